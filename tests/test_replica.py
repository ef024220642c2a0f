"""Renumbered copies of a store's repository (the replica benchmark's store): the same rows
under a new name, ids raised, web URLs renamed, texts untouched."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from issues_sts.crawl.rows import comment_rows, issue_rows
from issues_sts.errors import StoreError
from issues_sts.sandbox.replica import ID_STRIDE, copy_name, write_replica_store
from issues_sts.sandbox.stores import raw_comment, raw_issue
from issues_sts.store import Store

ROOT = Path(__file__).resolve().parents[1]


def _source(root: Path) -> Path:
    with Store.open(root, create=True) as store:
        store.write_page(
            "a/b",
            issues=issue_rows(
                "a/b", [raw_issue("a/b", 1, "Crash", "see #2"), raw_issue("a/b", 2, "Crash again")]
            ),
            comments=comment_rows("a/b", [raw_comment("a/b", 2, 77, "Duplicate of #1")]),
            events=[
                {
                    "repo": "a/b",
                    "number": 2,
                    "event_key": "MADE_1",
                    "event": "marked_as_duplicate",
                    "actor": "maintainer",
                    "created_at": "2023-01-03T00:00:00Z",
                    "canonical_repo": "a/b",
                    "canonical_number": 1,
                    "source": "graphql",
                    "raw": "{}",
                }
            ],
        )
        store.write_page("c/d", issues=issue_rows("c/d", [raw_issue("c/d", 1, "Other")]))
    return root


def test_copies_hold_the_same_rows_under_new_names_and_ids(tmp_path: Path) -> None:
    source = _source(tmp_path / "source")
    with Store.open(tmp_path / "copy", create=True) as store:
        for k in range(3):
            assert store.copy_repository(source, "a/b", copy_name("a/b", k), k * ID_STRIDE) == 2
        issues = store.issues_frame().sort("repo", "number")
        comments = store.comments_frame().sort("id")
        events = store.events_frame()
        assert issues["repo"].to_list() == ["a/b"] * 2 + ["a/b-copy1"] * 2 + ["a/b-copy2"] * 2
        assert issues["body"].to_list() == ["see #2", ""] * 3  # texts untouched
        assert comments["id"].to_list() == [77, 77 + ID_STRIDE, 77 + 2 * ID_STRIDE]
        assert comments["html_url"][2] == "https://github.com/a/b-copy2/issues/2#issuecomment-77"
        assert events["repo"].to_list() == ["a/b", "a/b-copy1", "a/b-copy2"]
        assert events["canonical_repo"].to_list() == ["a/b"] * 3  # what GraphQL named, as named
        assert issues.filter(pl.col("repo") == "c/d").is_empty()
        assert {r["repo"] for r in store.repo_counts()} == {"a/b", "a/b-copy1", "a/b-copy2"}


def test_a_replica_needs_an_empty_store_and_known_archives(tmp_path: Path) -> None:
    _source(tmp_path / "full")
    with pytest.raises(StoreError, match="already holds"):
        write_replica_store(tmp_path / "full", 2)
    with pytest.raises(ValueError, match="unknown archive"):
        write_replica_store(tmp_path / "new", 2, ("nope",))
    with pytest.raises(ValueError, match="at least 1"):
        write_replica_store(tmp_path / "new", 0)


@pytest.mark.slow
def test_two_copies_of_the_rust_archive(rust_archive: Path, tmp_path: Path) -> None:
    summary = write_replica_store(tmp_path / "replica", 2, cache=ROOT / "data" / "cache")
    with Store.open(tmp_path / "replica") as store:
        counts = {r["repo"]: r["issues"] for r in store.repo_counts()}  # issues, not PRs
        assert counts["rust-lang/rust"] == counts["rust-lang/rust-copy1"] > 15_000
        assert summary.items == 2 * store.issues_frame(repo="rust-lang/rust").height
        assert ("mozilla/rust", "rust-lang/rust") in store.renamed_repos()
