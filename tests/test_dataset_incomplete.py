"""No silent half-dataset: `build` refuses a store whose crawl did not finish every repository
it was asked for, unless `--allow-incomplete`, and then says in the card and stats.json what
is missing. A crawl interrupted for real leaves such a store: one of the tests makes it so."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from issues_sts.dataset.build import run_build
from issues_sts.dataset.completeness import NEVER_STARTED, MissingRepo, incomplete_repos
from issues_sts.dataset.config import BuildConfig
from issues_sts.errors import IncompleteStore, StoreError
from issues_sts.links.renames import record_renames
from issues_sts.sandbox.github.server import FakeGitHub
from issues_sts.sandbox.github.settings import FakeSettings
from issues_sts.store import CRAWL_CONFIG, Store
from tests.cli_process import run
from tests.crawl_support import TOKEN, small_world
from tests.dataset_store import GADGETS, WIDGETS, make_store


@pytest.fixture(scope="module")
def complete(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_store(tmp_path_factory.mktemp("complete") / "store")


def _copy_with(complete: Path, tmp: Path, status: str | None, asked: list[str] | None) -> Path:
    store = tmp / "store"
    shutil.copytree(complete, store)
    if status is not None:
        with Store.open(store) as db:
            db.upsert_repo(GADGETS, status=status)
    if asked is not None:
        (store / CRAWL_CONFIG).write_text(json.dumps({"repos": asked, "token": None}))
    return store


@pytest.mark.parametrize("status", ["pending", "failed", "stopped", "lossy", "missing"])
def test_any_status_but_ok_is_refused(complete: Path, tmp_path: Path, status: str) -> None:
    store = _copy_with(complete, tmp_path, status, None)
    with pytest.raises(IncompleteStore) as caught:
        run_build(BuildConfig(store=store, out=tmp_path / "out"))
    assert caught.value.exit_code == 3
    assert f"{GADGETS} ({status})" in caught.value.one_line()
    assert "--allow-incomplete" in caught.value.one_line()
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("text", ["{not json", '{"token": null}', "[]"])
def test_a_damaged_crawl_config_is_refused_unless_incomplete_is_allowed(
    complete: Path, tmp_path: Path, text: str
) -> None:
    """Which repositories the crawl was asked for is unknown: building as if none were missing
    (what happened before) could hide one it never started."""
    store = _copy_with(complete, tmp_path, None, None)
    (store / CRAWL_CONFIG).write_text(text)
    with pytest.raises(StoreError, match="crawl-config.json") as caught:
        run_build(BuildConfig(store=store, out=tmp_path / "out"))
    assert caught.value.exit_code == 3 and not (tmp_path / "out").exists()
    run_build(BuildConfig(store=store, out=tmp_path / "out", allow_incomplete=True))
    assert (tmp_path / "out" / "pairs.parquet").is_file()


def test_a_repository_the_crawl_never_started_is_missing(complete: Path, tmp_path: Path) -> None:
    store = _copy_with(complete, tmp_path, None, [WIDGETS, GADGETS, "acme/sprockets"])
    with Store.open(store) as db:
        assert incomplete_repos(db) == [MissingRepo("acme/sprockets", NEVER_STARTED)]
    with Store.open(complete) as db:
        assert incomplete_repos(db) == []


def test_a_remembered_rename_is_not_a_missing_repository(complete: Path, tmp_path: Path) -> None:
    """A store that remembers a repository's old name (status "renamed", as the rust archive's
    does) is complete: the record is not an unfinished crawl."""
    store = _copy_with(complete, tmp_path, None, None)
    with Store.open(store) as db:
        record_renames(db, (("acme/old-gadgets", GADGETS),))
        assert db.repo_states()["acme/old-gadgets"] == "renamed"
        assert incomplete_repos(db) == []
    run_build(BuildConfig(store=store, out=tmp_path / "out"))
    assert (tmp_path / "out" / "stats.json").is_file()


def test_allow_incomplete_builds_and_names_what_is_missing(complete: Path, tmp_path: Path) -> None:
    store = _copy_with(complete, tmp_path, "lossy", [WIDGETS, GADGETS, "acme/sprockets"])
    out = tmp_path / "out"
    result = run(
        ["build", "--quiet", "--store", str(store), "--out", str(out), "--allow-incomplete"]
    )
    assert result.code == 0, result.err[-2000:]
    assert "incomplete store" in result.err
    stats = json.loads((out / "stats.json").read_text())
    assert stats["incomplete_repositories"] == [
        {"repo": GADGETS, "status": "lossy"},
        {"repo": "acme/sprockets", "status": NEVER_STARTED},
    ]
    card = (out / "README.md").read_text()
    assert "**Incomplete crawl.**" in card and "--allow-incomplete" in card
    assert f"| {GADGETS} | lossy |" in card and "| acme/sprockets | never started |" in card
    config = json.loads((out / "build_config.json").read_text())
    assert config["allow_incomplete"] is True


def test_a_complete_store_says_nothing_of_it(complete: Path, tmp_path: Path) -> None:
    run_build(BuildConfig(store=complete, out=tmp_path / "out"))
    assert "incomplete_repositories" not in json.loads((tmp_path / "out/stats.json").read_text())
    assert "Incomplete crawl" not in (tmp_path / "out" / "README.md").read_text()


def test_an_interrupted_crawl_is_refused_until_it_is_finished(tmp_path: Path) -> None:
    """A real crawl stopped by its request budget (as a killed one), then the same build."""
    world = small_world(repos=3, issues=60)
    store = tmp_path / "store"
    with FakeGitHub(world, FakeSettings()) as gh:
        args = ["crawl", "--quiet", "--api-url", gh.api_url, "--store", str(store)]
        for name in world.repos:
            args += ["--repo", name]
        stopped = run([*args, "--max-requests", "4", "--repos-at-once", "1"], GITHUB_TOKEN=TOKEN)
        assert stopped.code == 0, stopped.err[-2000:]  # a budget is a clean stop
        refused = run(["build", "--store", str(store), "--out", str(tmp_path / "out")])
        assert refused.code == 3 and "incomplete" in refused.err, refused.err[-2000:]
        assert "never started" in refused.err
        assert run(args, GITHUB_TOKEN=TOKEN).code == 0  # the same command finishes it
    built = run(["build", "--quiet", "--store", str(store), "--out", str(tmp_path / "out")])
    assert built.code == 0, built.err[-2000:]
