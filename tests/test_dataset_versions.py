"""A living dataset end to end: crawl a world, build v1, let the world grow, re-crawl
incrementally, build v2 pinned to v1, `diff` them, push both to the fake Hub with tags and
load v1 back by its tag."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from issues_sts.crawl.config import CrawlConfig
from issues_sts.crawl.runner import run_crawl
from issues_sts.dataset.build import run_build
from issues_sts.dataset.config import SPLITS, BuildConfig
from issues_sts.sandbox.github.server import FakeGitHub
from issues_sts.sandbox.github.settings import FakeSettings
from issues_sts.sandbox.hub import serve_fake_hub
from issues_sts.sandbox.worlds.generator import WorldConfig, generate_world
from issues_sts.sandbox.worlds.growth import Growth, grow_world
from issues_sts.store import Store
from tests.conftest import cli_exit_code

TOKEN = "ghp_" + "versionsTestToken" + "0" * 22
HF_TOKEN = "hf_fake_versions_token_0123456789"
REPO = "tester/gis-versions"

LOAD = """
import json, sys, datasets
d = datasets.load_dataset(sys.argv[1], revision=sys.argv[2])
print(json.dumps({s: d[s].to_list() for s in d}))
"""


def _crawl(github: FakeGitHub, repos: tuple[str, ...], store: Path) -> dict[str, int]:
    """Issues fetched per repository."""
    cfg = CrawlConfig(repos=repos, token=TOKEN, api_url=github.api_url, store=store)  # type: ignore[arg-type]
    summary = run_crawl(cfg)
    assert summary.ok
    return {r.repo: r.issues for r in summary.repos}


def _hub_env(url: str, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING"))}
    return env | {
        "HF_ENDPOINT": url,
        "HF_HUB_DISABLE_XET": "1",
        "HF_HOME": str(home),
        "HF_TOKEN": HF_TOKEN,
        "HF_HUB_OFFLINE": "0",
        "HF_DATASETS_OFFLINE": "0",
        "HF_HUB_DISABLE_PROGRESS_BARS": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "NO_COLOR": "1",
    }


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], env=env, capture_output=True, text=True, timeout=240
    )


def _issue_splits(folder: Path) -> dict[tuple[str, int], str]:
    pairs = pl.read_parquet(folder / "pairs.parquet")
    out = {}
    for side in ("1", "2"):
        for repo, number, split in pairs.select(
            f"repo{side}", f"number{side}", "split"
        ).iter_rows():
            out[(repo, number)] = split
    return out


@pytest.mark.slow
def test_crawl_grow_recrawl_build_diff_push_and_load_by_tag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = generate_world(WorldConfig(seed=5, repos=2, issues_per_repo=150, duplicate_rate=0.15))
    store, v1, v2 = tmp_path / "store", tmp_path / "v1", tmp_path / "v2"
    with FakeGitHub(corpus, FakeSettings(tokens=frozenset({TOKEN}))) as github:
        first = _crawl(github, tuple(corpus.repos), store)
        run_build(BuildConfig(store=store, out=v1, seed=7))
        growth = grow_world(
            corpus, Growth(seed=2, new_issues=25, merges=2, new_repos=1, new_repo_issues=60)
        )
        assert growth.merges and growth.new_repos and growth.duplicates
        again = _crawl(
            github, tuple(corpus.repos), store
        )  # the old repositories only send what is new
    for repo in first:  # incremental: an old repository sends its new and updated issues (and the
        # few at its `since` watermark again), not the whole list
        updated = len(growth.new_issues[repo]) + sum(1 for m in growth.merges if m[0] == repo)
        assert updated <= again[repo] <= updated + 5 < first[repo]
    with Store.open(store) as opened:
        issues = opened.issues_frame()
    for repo, numbers in growth.new_issues.items():
        assert issues.filter(
            (pl.col("repo") == repo) & pl.col("number").is_in(numbers)
        ).height == len(numbers)

    summary = run_build(BuildConfig(store=store, out=v2, seed=7, previous=str(v1)))
    assert json.loads((v2 / "build_config.json").read_text())["version"] == "v2"
    # every issue of v1 that v2 uses keeps its split; those a merge across splits moved are counted,
    # not used
    old, new = _issue_splits(v1), _issue_splits(v2)
    assert all(new[k] == split for k, split in old.items() if k in new)
    splits = summary.counters["splits"]
    card = (v2 / "README.md").read_text()
    assert "## Changes since v1" in card and "version `v2`" in card
    assert (
        f"{splits['merged_clusters']:,} clusters that new links merged across splits went where "
        f"most of their earlier pairs were, leaving {splits['merge_left_out_issues']:,} earlier "
        "issues"
    ) in card

    assert cli_exit_code(["diff", str(v1), str(v2), "--json-out", str(tmp_path / "diff.json")]) == 0
    report = json.loads((tmp_path / "diff.json").read_text())
    assert report == json.loads((v2 / "changes.json").read_text())
    assert report["issues_changed_split"] == 0
    assert sum(report["pairs"][s]["positives_added"] for s in SPLITS) > 0
    assert report["links_gained"] >= len(growth.merges)
    gained = {(r["repo"], r["number"]) for r in report["links_gained_examples"]}
    assert {(r, n) for r, n, _, _ in growth.merges} & gained or len(
        gained
    ) == 20  # examples are capped
    assert all(r["signal"] and r["evidence_url"] for r in report["links_gained_examples"])
    shown = capsys.readouterr()
    assert "duplicate links gained" in shown.out and "different seeds" not in shown.out

    with serve_fake_hub(token=HF_TOKEN) as hub:
        env = _hub_env(hub.url, tmp_path / "hf-home")
        for folder in (v1, v2):
            pushed = _run(
                ["-m", "issues_sts.cli.app", "push", "--repo-id", REPO, "--dataset", str(folder)],
                env,
            )
            assert pushed.returncode == 0, pushed.stderr[-2000:]
        repo = hub.repos[("dataset", REPO)]
        assert set(repo.tags) == {"v1", "v2"} and repo.tags["v2"] == repo.commits[-1][0]
        again_v1 = _run(
            ["-m", "issues_sts.cli.app", "push", "--repo-id", REPO, "--dataset", str(v1)], env
        )
        assert (
            again_v1.returncode == 0 and repo.tags["v1"] != repo.commits[-1][0]
        )  # same data: tag kept
        other_v1 = _run(
            [
                "-m",
                "issues_sts.cli.app",
                "push",
                "--repo-id",
                REPO,
                "--dataset",
                str(v2),
                "--tag",
                "v1",
            ],
            env,
        )
        assert (
            other_v1.returncode == 7
            and "already has a version tagged v1, with other data" in other_v1.stderr
            and "build with --dataset-version NAME" in other_v1.stderr  # said --version
        )
        loaded = _run(["-c", LOAD, REPO, "v1"], env)
        assert loaded.returncode == 0, loaded.stderr[-2000:]
        rows = json.loads(loaded.stdout)
        pairs_v1 = pl.read_parquet(v1 / "pairs.parquet")
        for split in SPLITS:
            assert (
                rows[split]
                == pairs_v1.filter(pl.col("split") == split)
                .select("text1", "text2", "label")
                .to_dicts()
            )
        main_head = repo.commits[-1][0]
        branch = _run(
            [
                "-m",
                "issues_sts.cli.app",
                "push",
                "--repo-id",
                REPO,
                "--dataset",
                str(v2),
                "--branch",
                "next",
                "--tag",
                "v2-next",
            ],
            env,
        )
        assert branch.returncode == 0, branch.stderr[-2000:]
        assert repo.tags["v2-next"] == repo.branches["next"] and repo.commits[-1][0] == main_head
        assert (
            hub.files_at("dataset", REPO, "next")["pairs.parquet"]
            == (v2 / "pairs.parquet").read_bytes()
        )
        remote = _run(
            ["-m", "issues_sts.cli.app", "diff", f"{REPO}@v1", f"{REPO}@v2", "--json"], env
        )
        assert remote.returncode == 0, remote.stderr[-2000:]
        assert json.loads(remote.stdout)["pairs"] == report["pairs"]
