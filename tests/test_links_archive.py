"""The link stage on the real rust issue archive (../shared; skipped when absent)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from issues_sts.links import LinkConfig, LinkTable, build_links
from issues_sts.links.archive import RUST_REPO_ALIASES, load_rust_archive
from issues_sts.links.evaluate import claimed_canonicals, read_annotations, score

ROOT = Path(__file__).resolve().parents[1]
ANNOTATIONS = ROOT / "data" / "annotations" / "rust_duplicates.csv"

pytestmark = [pytest.mark.slow, pytest.mark.shared]


@pytest.fixture(scope="module")
def table(rust_archive: Path, tmp_path_factory: pytest.TempPathFactory) -> LinkTable:
    store = load_rust_archive(rust_archive, tmp_path_factory.mktemp("rust-store"))
    with store:
        return build_links(store, LinkConfig(repo_aliases=RUST_REPO_ALIASES))


def test_whole_archive_links(table: LinkTable) -> None:
    links, counters = table.links, table.counters
    assert counters["usable_links"] > 1000  # rust-lang/rust 2010-2015 has well over a thousand
    usable = links.filter(pl.col("usable"))
    assert usable.filter(pl.col("target_kind") == "pull").is_empty()
    assert (usable["repo"] + usable["number"].cast(pl.Utf8) != usable["target_repo"]
            + usable["target_number"].cast(pl.Utf8)).all()
    assert usable["cluster_id"].null_count() == 0
    assert counters["excluded:source_is_pull_request"] > 0 and counters["target_missing:repo_not_crawled"] > 0
    # old mozilla/rust URLs resolve to rust-lang/rust
    assert links.filter(pl.col("target_repo").str.to_lowercase() == "mozilla/rust").is_empty()


@pytest.mark.skipif(not ANNOTATIONS.exists(), reason="no annotation file in data/annotations")
def test_annotated_threads_regression_floor(table: LinkTable) -> None:
    """A floor, not the target (0.97/0.95): catches a regression of the extractor."""
    metrics = score(read_annotations(ANNOTATIONS), claimed_canonicals(table)).metrics()
    assert metrics["precision"] >= 0.85 and metrics["recall"] >= 0.83, metrics
