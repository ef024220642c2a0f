"""The paper-scale world: sizes from the table, realistic shape, the same world served over
HTTP and written straight into a store."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from issues_sts.crawl.config import CrawlConfig
from issues_sts.crawl.runner import run_crawl
from issues_sts.links import build_links
from issues_sts.repos import load_repos
from issues_sts.sandbox.corpus import Corpus
from issues_sts.sandbox.github.server import FakeGitHub
from issues_sts.sandbox.github.settings import FakeSettings
from issues_sts.sandbox.worlds.paper import (
    PAPER_REPOS,
    PaperConfig,
    generate_paper_world,
    write_paper_store,
)
from issues_sts.store import Store

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "ghp_" + "paperWorldToken" + "0" * 24
TWO = ("psf/requests", "tiangolo/fastapi")


def test_the_table_is_the_55_repositories_of_repos_yaml() -> None:
    assert [r.name for r in PAPER_REPOS] == list(load_repos(ROOT / "repos.yaml"))
    total = sum(r.items for r in PAPER_REPOS)
    assert 2_000_000 <= total <= 2_700_000
    prs = sum(r.items * r.pr_share for r in PAPER_REPOS) / total
    assert 0.4 <= prs <= 0.6, "about half of the items are pull requests"
    assert PaperConfig(scale=0.1).expected_items() == pytest.approx(total * 0.1, rel=0.01)
    for bad in (0.0, 0.0001, 1.5):
        with pytest.raises(ValueError, match="scale"):
            PaperConfig(scale=bad)


@pytest.fixture(scope="module")
def world() -> object:
    return generate_paper_world(PaperConfig(seed=3, scale=0.003))


def test_same_config_same_world() -> None:
    cfg = PaperConfig(seed=5, scale=0.01, repos=("mwaskom/seaborn",), chunk=7)

    def dump(c: Corpus) -> str:
        return json.dumps(
            {n: (r.issues, r.comments, r.timeline) for n, r in c.repos.items()}, sort_keys=True
        )

    assert dump(generate_paper_world(cfg)) == dump(generate_paper_world(cfg))
    assert dump(
        generate_paper_world(PaperConfig(seed=6, scale=0.01, repos=("mwaskom/seaborn",)))
    ) != dump(generate_paper_world(cfg))


def test_shape_sizes_comments_bots_and_moved_repositories(world: object) -> None:
    repos = world.repos  # type: ignore[attr-defined]
    assert len(repos) == 55
    assert "fastapi/fastapi" in repos and repos["fastapi/fastapi"].renamed_from == [
        "tiangolo/fastapi"
    ]
    vscode, go = repos["microsoft/vscode"], repos["golang/go"]
    assert len(vscode.issues) > 5 * len(repos["psf/requests"].issues)
    assert sum("pull_request" in i for i in go.issues) < 0.15 * len(go.issues)
    items = [i for r in repos.values() for i in r.issues]
    comments = [c for r in repos.values() for c in r.comments]
    assert 3.5 <= len(comments) / len(items) <= 6.5, "four to six comments per item"
    per_item = sorted((i["comments"] for i in items), reverse=True)
    assert per_item[0] >= 40 and per_item[len(per_item) // 2] <= 4, (
        "a heavy tail: a few long threads"
    )
    # since templates and CI (2017 on) bots write most of a pull request's comments; before,
    # a merge bot a quarter of them (the rust archive)
    pr_era = {
        (r.full_name, i["number"]): i["created_at"] >= "2017"
        for r in repos.values()
        for i in r.issues
        if "pull_request" in i
    }
    for modern, low, high in ((True, 0.6, 0.8), (False, 0.15, 0.35)):
        on_prs = [
            c
            for r in repos.values()
            for c in r.comments
            if pr_era.get((r.full_name, int(c["issue_url"].rsplit("/", 1)[1]))) is modern
        ]
        share = sum(c["user"]["type"] == "Bot" for c in on_prs) / len(on_prs)
        assert low <= share <= high, (modern, share)
    truth = sum(len(r.truth_duplicates) for r in repos.values())
    assert truth >= 40


def test_each_era_writes_its_own_kind_of_report_at_its_measured_length(world: object) -> None:
    """Prose before 2017, bold-heading templates until 2023, issue forms since: each era's
    median body as long as in the archive it is calibrated on (`eras.ERAS`); longer texts
    carry pasted logs and traces."""
    from issues_sts.sandbox.worlds.eras import ERAS, era_at
    from issues_sts.sandbox.worlds.render import stamp

    bodies: dict[str, list[str]] = {era.name: [] for era in ERAS}
    for repo in world.repos.values():  # type: ignore[attr-defined]
        for item in repo.issues:
            if "pull_request" not in item and item["body"]:
                bodies[era_at(stamp(item["created_at"])).name].append(item["body"])
    heading = {"early": None, "templates": "**Describe the bug**", "forms": "### "}
    for era in ERAS:
        texts = bodies[era.name]
        median = sorted(map(len, texts))[len(texts) // 2]
        assert abs(median - era.body_median) <= 0.25 * era.body_median, (era.name, median)
        marked = sum(heading[era.name] in t for t in texts) if heading[era.name] else 0
        if heading[era.name]:
            assert marked >= 0.3 * len(texts), era.name
        assert any("```console" in t for t in texts if len(t) > 3 * era.body_median)
    assert not any("### " in t for t in bodies["early"])


def test_written_store_equals_a_crawl_of_the_served_world(tmp_path: Path) -> None:
    cfg = PaperConfig(seed=2, scale=0.1, repos=TWO)
    summary = write_paper_store(tmp_path / "direct", cfg)
    corpus = generate_paper_world(cfg)
    assert summary.items == corpus.total_items() and summary.comments == corpus.total_comments()
    with FakeGitHub(corpus, FakeSettings(tokens=frozenset({TOKEN}))) as github:
        crawl = CrawlConfig(
            repos=TWO, token=TOKEN, api_url=github.api_url, store=tmp_path / "crawled"
        )  # type: ignore[arg-type]
        assert run_crawl(crawl).ok
    with Store.open(tmp_path / "direct") as direct, Store.open(tmp_path / "crawled") as crawled:
        # a crawl also records tombstones for deleted numbers that some text names
        assert direct.issues_frame().equals(
            crawled.issues_frame().filter(pl.col("tombstone").is_null())
        )
        # a GraphQL crawl reads issue threads only (PR comments are never paid for); the direct
        # store is the REST crawl's, with every comment
        issues_only = (
            direct.issues_frame().filter(~pl.col("is_pull_request")).select("repo", "number")
        )
        assert (
            direct.comments_frame()
            .join(issues_only, on=["repo", "number"], how="semi")
            .equals(crawled.comments_frame())
        )
        assert direct.repo_counts()[0]["repo"] == crawled.repo_counts()[0]["repo"]
        found = build_links(direct).links.filter(pl.col("usable"))
        events_direct = direct.events_frame().select(
            "repo", "number", "event", "canonical_repo", "canonical_number"
        )
        # each issue's own events (a crawl also sees every mark on its canonical's timeline)
        own = pl.col("duplicate_number").is_null() | (
            pl.col("duplicate_number") == pl.col("number")
        )
        events_crawled = (
            crawled.events_frame()
            .filter(own)
            .select("repo", "number", "event", "canonical_repo", "canonical_number")
        )
        assert events_direct.equals(events_crawled)
    # the moved repository's links name it as it is now (fastapi/fastapi); the store keeps the
    # name it was crawled under (tiangolo/fastapi), and the links resolve to it
    stored_as = {"psf/requests": "psf/requests", "fastapi/fastapi": "tiangolo/fastapi"}
    truth = {
        (stored_as[name], n): t
        for name, r in corpus.repos.items()
        for n, t in r.truth_duplicates.items()
    }
    assert found.filter(pl.col("target_repo") == "fastapi/fastapi").height == 0
    hits = sum(
        1
        for repo, number, target_number in found.select(
            "repo", "number", "target_number"
        ).iter_rows()
        if truth.get((repo, number), (None, None))[1] == target_number
    )
    assert len(truth) >= 10 and hits >= 0.7 * len(truth), (hits, len(truth))


def test_fake_github_serves_the_paper_world_and_refuses_a_bad_scale() -> None:
    from issues_sts.cli.fake import load_corpus
    from issues_sts.errors import ConfigError

    corpus = load_corpus("paper", 1, None, None, scale=0.001)
    assert len(corpus.repos) == 55 and corpus.total_items() >= 55 * 5
    with pytest.raises(ConfigError, match="scale"):
        load_corpus("paper", 1, None, None, scale=2.0)


def test_drafting_in_a_second_process_writes_the_same_store(tmp_path: Path) -> None:
    """`two_processes` drafts in a child while this process writes: the same rows."""
    cfg = PaperConfig(seed=3, scale=0.02, repos=TWO)
    one = write_paper_store(tmp_path / "one", cfg)
    two = write_paper_store(tmp_path / "two", cfg, two_processes=True)
    assert one == two and one.items > 100
    with Store.open(tmp_path / "one") as a, Store.open(tmp_path / "two") as b:
        assert a.issues_frame(include_raw=True).equals(b.issues_frame(include_raw=True))
        assert a.comments_frame().equals(b.comments_frame())
        assert a.events_frame().equals(b.events_frame())


def test_github_ids_grow_with_time_past_2_31_and_stay_unique() -> None:
    """`github_ids`: each object's id is GitHub's id of its creation time (issues and comments
    above 2^31 from 2024, events long before), unique across repositories."""
    from issues_sts.sandbox.worlds.ids import IdClock
    from issues_sts.sandbox.worlds.render import stamp

    clock = IdClock()
    t2015, t2025 = stamp("2015-06-01T00:00:00Z"), stamp("2025-06-01T00:00:00Z")
    same_moment = [clock.comment(t2025, 0) for _ in range(50)]
    same_moment += [clock.comment(t2025, 1) for _ in range(50)]
    assert len(set(same_moment)) == 100 and min(same_moment) > 2**31
    early, late_id = clock.issue(t2015, 0), clock.issue(t2025, 0)
    assert early < 2**31 < late_id
    assert clock.event(t2015, 0) < 2**31 < clock.event(stamp("2020-01-01T00:00:00Z"), 0)
    cfg = PaperConfig(seed=1, scale=0.01, repos=("psf/requests",), github_ids=True)
    corpus = generate_paper_world(cfg)
    repo = corpus.repos["psf/requests"]
    ids = [c["id"] for c in repo.comments]
    assert len(ids) == len(set(ids))
    late = [i["id"] for i in repo.issues if i["created_at"] >= "2025"]
    assert late and min(late) > 2**31
