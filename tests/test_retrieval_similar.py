"""`similar` on indexes written by the product's own writer (`publish.write_generation`) over
synthetic vectors and texts, no model: its candidates are the protocol's (the dataset's one
rule), its hybrid ranking reads the BM25 index `index` saved and ranks as BM25 built from the
texts at question time did, and an index of the first layout (format 1: IVF-Flat, no saved
BM25) is still read and is brought to the new layout by the next run without embedding."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from issues_sts.dataset import earlier_candidates
from issues_sts.report import SILENT
from issues_sts.retrieval.ann import ANN_KIND, ANN_MIN_ROWS
from issues_sts.retrieval.bm25 import BM25Index
from issues_sts.retrieval.fusion import rank, reciprocal_rank_fusion
from issues_sts.retrieval.indexer import manifest_of
from issues_sts.retrieval.layout import MANIFEST, IndexSpec, read_manifest, write_json_atomic
from issues_sts.retrieval.publish import write_generation
from issues_sts.retrieval.similar import (
    DEPTH,
    Question,
    candidate_mask,
    dense_ranking,
    repo_rows,
    similar,
)
from issues_sts.retrieval.vectors import VectorIndex

WORDS = [
    "panic",
    "borrow",
    "checker",
    "crash",
    "build",
    "docs",
    "macro",
    "trait",
    "lifetime",
    "async",
    "compile",
    "error",
]


def _issues(repos: dict[str, int], seed: int) -> pl.DataFrame:
    """Issues with creation times that repeat (ties) and are sometimes missing."""
    rng = np.random.default_rng(seed)
    frames = []
    for repo, n in repos.items():
        hours = rng.integers(0, max(2, n // 3), n)  # many issues share an hour
        created = [
            None if rng.random() < 0.03 else f"2020-01-{1 + h // 24:02d}T{h % 24:02d}:00:00Z"
            for h in hours.tolist()
        ]
        texts = [" ".join(rng.choice(WORDS, 6).tolist()) for _ in range(n)]
        frames.append(
            pl.DataFrame(
                {
                    "repo": [repo] * n,
                    "number": np.arange(1, n + 1),
                    "title": texts,
                    "state": ["open"] * n,
                    "created_at": pl.Series(created, dtype=pl.String),
                    "url": [""] * n,
                    "text_hash": [str(i) for i in range(n)],
                    "text": texts,
                }
            )
        )
    return pl.concat(frames).sort("repo", "number")


def _write(out: Path, issues: pl.DataFrame, dims: int = 8, seed: int = 0) -> np.ndarray:
    """A real index of `issues` with random unit vectors (returned in rows' order)."""
    vectors = np.random.default_rng(seed).standard_normal((issues.height, dims))
    vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    where = {(r, n): i for i, (r, n) in enumerate(issues.select("repo", "number").iter_rows())}
    (out / "staging").mkdir(parents=True, exist_ok=True)
    texts = out / "staging" / "texts.parquet"
    issues.select("repo", "number", "text_hash", "text").write_parquet(texts)
    spec = IndexSpec("synthetic", "mean", 32, "readers", dims, (0.0,))
    meta = issues.drop("text")
    previous = read_manifest(out)
    generation = write_generation(
        out, spec, meta, [texts], lambda key: vectors[where[key[:2]]], SILENT, previous
    )
    write_json_atomic(out / MANIFEST, manifest_of(spec, generation))
    return vectors


def test_similar_candidates_are_the_datasets_earlier_candidates(tmp_path: Path) -> None:
    issues = _issues({"acme/a": 300, "acme/b": 120}, seed=1)
    _write(tmp_path / "idx", issues)
    index = VectorIndex.open(tmp_path / "idx")
    corpus = issues.select(pl.format("{}#{}", "repo", "number").alias("_id"), "repo", "created_at")
    expected = earlier_candidates(corpus, list(corpus["_id"]))
    for i, (repo, number) in enumerate(issues.select("repo", "number").iter_rows()):
        rows = repo_rows(index, repo)
        position = index.position(rows, number)
        ours = np.flatnonzero(candidate_mask(index, rows, position)) + rows.start
        assert ours.tolist() == expected[i].tolist(), f"{repo}#{number}"
    assert sum(len(c) == 0 for c in expected) > 2  # the first issues, and those without a time


def _hybrid_as_before(index: VectorIndex, repo: str, number: int, k: int) -> list[int]:
    """The hybrid ranking as `similar` made it before BM25 was saved: BM25 over the
    repository's texts, indexed at question time, fused with the dense ranking."""
    rows = repo_rows(index, repo)
    position = index.position(rows, number)
    assert position is not None
    mask = candidate_mask(index, rows, position)
    depth = max(k, DEPTH)
    dense, _ = dense_ranking(index, rows, np.asarray(index.vectors[position]), mask, depth)
    texts = index.texts_of(rows)
    ids = np.flatnonzero(mask)
    bm25 = BM25Index(texts).scores(texts[position - rows.start], ids)
    fused, _ = reciprocal_rank_fusion([dense, rank(ids, bm25, depth) + rows.start], depth=k)
    return [int(n) for n in index.numbers[fused[:k]]]


def test_hybrid_reads_the_saved_bm25_and_ranks_as_before(tmp_path: Path) -> None:
    issues = _issues({"acme/a": 400}, seed=2)
    _write(tmp_path / "idx", issues)
    manifest = json.loads((tmp_path / "idx" / MANIFEST).read_text())
    assert manifest["repos"]["acme/a"]["bm25"]  # saved by the writer, its files checked
    assert any(name.startswith("bm25/") for name in manifest["files"])
    index = VectorIndex.open(tmp_path / "idx")
    for number in (400, 333, 250, 120):
        answer = similar(index, Question("acme/a", number), 10, "hybrid")
        expected = _hybrid_as_before(index, "acme/a", number, 10)
        assert [r["number"] for r in answer.results] == expected


def _to_first_layout(out: Path, old_ann: np.ndarray | None = None) -> None:
    """Rewrite a written index as the first layout wrote it: format 1, no BM25, and (given
    the repository's vectors) an IVF-Flat ANN file."""
    import faiss

    manifest = json.loads((out / MANIFEST).read_text())
    generation = out / manifest["generation"]
    for entry in manifest["repos"].values():
        if entry.get("bm25"):
            for path in (generation / entry["bm25"]).iterdir():
                path.unlink()
            (generation / entry["bm25"]).rmdir()
        entry.pop("bm25", None)
        entry.pop("ann_kind", None)
        if entry["ann"] and old_ann is not None:
            lists = 64
            flat = faiss.IndexIVFFlat(faiss.IndexFlatIP(old_ann.shape[1]), old_ann.shape[1], lists)
            flat.metric_type = faiss.METRIC_INNER_PRODUCT
            flat.train(old_ann[: lists * 40])
            flat.add_with_ids(old_ann, np.arange(len(old_ann), dtype=np.int64))
            faiss.write_index(flat, str(generation / entry["ann"]))
    manifest["format"] = 1
    manifest["files"] = {
        str(p.relative_to(generation)): p.stat().st_size
        for p in sorted(generation.rglob("*"))
        if p.is_file()
    }
    write_json_atomic(out / MANIFEST, manifest)


def test_an_index_of_the_first_layout_is_still_read(tmp_path: Path) -> None:
    issues = _issues({"acme/a": 300}, seed=3)
    _write(tmp_path / "new", issues)
    _write(tmp_path / "old", issues)
    _to_first_layout(tmp_path / "old")
    new, old = VectorIndex.open(tmp_path / "new"), VectorIndex.open(tmp_path / "old")
    assert old.manifest["format"] == 1
    for method in ("dense", "hybrid"):
        for number in (300, 200, 150):
            ours = similar(old, Question("acme/a", number), 10, method)  # type: ignore[arg-type]
            theirs = similar(new, Question("acme/a", number), 10, method)  # type: ignore[arg-type]
            assert ours.results == theirs.results


@pytest.mark.slow
def test_the_next_run_rebuilds_a_first_layout_ann_and_its_answers_stay_exact(
    tmp_path: Path,
) -> None:
    """A repository of ANN_MIN_ROWS issues whose ANN file is IVF-Flat (format 1): `similar`
    searches it with the exact re-rank, and the next run writes an IVF-SQ8 file and a BM25
    index for it, keeping every vector."""
    n = ANN_MIN_ROWS
    start = np.datetime64("2020-01-01T00:00:00")
    seconds = start + np.arange(n).astype("timedelta64[s]")  # creation order is number order
    issues = _issues({"acme/big": n}, seed=4).with_columns(
        pl.Series("created_at", np.char.add(np.datetime_as_string(seconds), "Z"))
    )
    out = tmp_path / "idx"
    vectors = _write(out, issues, dims=16)
    _to_first_layout(out, old_ann=vectors)
    old = VectorIndex.open(out)
    for number in (n, n - 7_000, 25_000):
        answer = similar(old, Question("acme/big", number), 10, "dense")
        scores = vectors[: number - 1] @ vectors[number - 1]
        exact = np.argsort(-scores, kind="stable")[:10] + 1
        found = [r["number"] for r in answer.results]
        assert found == exact.tolist()  # the probes reach every list of this small index
    _write(out, issues, dims=16)  # the same vectors again: the next `index` run
    manifest = json.loads((out / MANIFEST).read_text())
    entry = manifest["repos"]["acme/big"]
    assert manifest["format"] == 2 and entry["ann_kind"] == ANN_KIND and entry["bm25"]
    assert np.array_equal(VectorIndex.open(out).vectors, vectors)
