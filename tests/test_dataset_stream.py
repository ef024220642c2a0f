"""The build reads the store a part at a time, in one pass shared by the link stage and the
scan (`issues_sts.passes`); how the store is cut into parts, and whether the parts are read in
this process or in worker processes, does not change a byte of the dataset."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from issues_sts.dataset.build import run_build
from issues_sts.dataset.config import BuildConfig
from issues_sts.dataset.hard_negatives import term_postings
from issues_sts.dataset.redact import redact_column
from issues_sts.dataset.scan import TEXT_INPUTS, StoreScanner
from issues_sts.dataset.texts import issue_texts
from issues_sts.passes import run_pass
from issues_sts.sandbox.worlds.generator import WorldConfig, generate_world
from issues_sts.sandbox.worlds.paper import PaperConfig, write_paper_store, write_repo_data
from issues_sts.store import Store


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def _build(store: Path, tmp_path: Path, name: str, **overrides: object) -> dict[str, bytes]:
    out = tmp_path / "out"  # one path: the card and build_config.json name it
    cfg = BuildConfig(store=store, out=out, seed=5, **overrides)  # type: ignore[arg-type]
    run_build(cfg)
    files = _files(out)
    out.rename(tmp_path / name)
    return files


def _cut(monkeypatch: pytest.MonkeyPatch, issues: int) -> None:
    import issues_sts.store.frames

    monkeypatch.setattr(issues_sts.store.frames, "PART_ISSUES", issues)


def _differ(a: dict[str, bytes], b: dict[str, bytes]) -> list[str]:
    return sorted(name for name in a.keys() | b.keys() if a.get(name) != b.get(name))


@pytest.fixture(scope="module")
def small_world_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated world with cross-repository duplicates, transfers, deletions and renames."""
    root = tmp_path_factory.mktemp("stream") / "store"
    corpus = generate_world(WorldConfig(seed=4, repos=4, issues_per_repo=400, cross_repo_rate=0.2))
    with Store.open(root, create=True) as store:
        for name, data in corpus.repos.items():
            store.upsert_repo(name, status="ok", current_name=name)
            write_repo_data(store, name, data)
            for number, (to_repo, to_number) in data.transferred.items():
                store.add_redirect(name, number, to_repo, to_number)
            for number in data.deleted:
                store.mark_tombstone(name, number, "deleted")
    return root


@pytest.mark.parametrize("negatives", ["random", "hard"])
def test_the_cut_into_parts_does_not_change_the_build(
    small_world_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, negatives: str
) -> None:
    """One part per repository against parts of 150 issues (links, scan, hard negatives'
    postings and the corpus all cross the cuts)."""
    whole = _build(small_world_store, tmp_path, "whole", negatives=negatives)
    _cut(monkeypatch, 150)
    with Store.open(small_world_store) as store:
        assert len(store.parts()) > 2 * len(store.repo_names())
    cut = _build(small_world_store, tmp_path, "cut", negatives=negatives)
    assert "data/train-00000-of-00001.parquet" in whole
    assert _differ(whole, cut) == []


def test_the_cut_does_not_change_the_build_of_the_paper_world(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "paper"
    write_paper_store(
        store,
        PaperConfig(seed=1, scale=0.02, repos=("psf/requests", "pallets/flask", "celery/celery")),
    )
    whole = _build(store, tmp_path, "whole", text_recipe="raw")
    _cut(monkeypatch, 97)
    cut = _build(store, tmp_path, "cut", text_recipe="raw")
    assert _differ(whole, cut) == []


def test_the_scans_postings_are_those_of_every_text_at_once(
    small_world_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hard negatives' BM25 postings, a part at a time, equal those of the whole store's
    texts (made and redacted as the scan makes them) read at once."""
    _cut(monkeypatch, 150)
    with Store.open(small_world_store) as store:
        (scan,) = run_pass(store, [StoreScanner("readers", postings=True)])
        texts, _ = issue_texts(store.issues_frame(columns=TEXT_INPUTS), "readers")
    texts, _ = redact_column(texts)
    assert scan.postings is not None and scan.postings.height > 1000
    assert scan.postings.equals(term_postings(texts.with_row_index("idx")))
    assert scan.texts.select("repo", "number").equals(texts.select("repo", "number"))
    assert scan.texts["text"].null_count() == scan.texts.height  # the texts were let go
    assert scan.postings["idx"].dtype == pl.UInt32


def test_parts_read_on_every_core_give_the_same_build(
    small_world_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big store's parts go to worker processes (links, scan, corpus); results come back in
    the parts' order, so the build is the same bytes as the one read in this process."""
    from issues_sts import passes

    _cut(monkeypatch, 150)
    alone = _build(small_world_store, tmp_path, "alone")
    monkeypatch.setattr(passes, "PARALLEL_MIN_ISSUES", 0)
    monkeypatch.setattr(passes, "cores", lambda: 2)  # a pool even on a one-core runner
    with Store.open(small_world_store) as store:
        assert passes.workers_for(store.parts()) == 2
    pooled = _build(small_world_store, tmp_path, "pooled")
    assert _differ(alone, pooled) == []
