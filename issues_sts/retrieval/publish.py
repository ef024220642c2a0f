"""Writing one generation of an index: rows, texts, vectors and ANN indexes in a folder of its
own, finished under a `.partial` name and renamed whole (index.json names it live after)."""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from issues_sts.dataset import NO_TIME, created_time
from issues_sts.report import Reporter
from issues_sts.retrieval.ann import ANN_KIND, ANN_MIN_ROWS, build_ann
from issues_sts.retrieval.bm25 import BM25Index
from issues_sts.retrieval.layout import IndexSpec
from issues_sts.retrieval.pending import Key


@dataclass(frozen=True)
class Generation:
    name: str
    rows: int
    repos: dict[str, dict[str, Any]]
    files: dict[str, int]
    ann_repos: int


def next_name(previous: dict[str, Any] | None) -> str:
    number = int(str(previous["generation"])[1:]) + 1 if previous else 1
    return f"g{number:06d}"


def with_times(meta: pl.DataFrame) -> pl.DataFrame:
    """`created_s`: the creation time in seconds since 1970 (what "earlier" compares)."""
    seconds = created_time().dt.epoch("s").fill_null(NO_TIME)
    return meta.sort("repo", "number").with_columns(seconds.alias("created_s"))


def repo_digest(frame: pl.DataFrame) -> str:
    """Changes when any of a repository's rows (number, text) does: an unchanged repository
    keeps its ANN index."""
    lines = "\n".join(f"{n}:{h}" for n, h in frame.select("number", "text_hash").iter_rows())
    return hashlib.sha256(lines.encode()).hexdigest()[:16]


def write_generation(
    out: Path,
    spec: IndexSpec,
    meta: pl.DataFrame,
    parts: list[Path],
    vector: Callable[[Key], np.ndarray],
    reporter: Reporter,
    previous: dict[str, Any] | None = None,
) -> Generation:
    name = next_name(previous)
    folder = out / f"{name}.partial"
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "ann").mkdir(parents=True)
    rows = with_times(meta)
    rows.write_parquet(folder / "rows.parquet")
    pl.scan_parquet(parts).select("repo", "number", "text").sink_parquet(folder / "texts.parquet")
    vectors = _write_vectors(folder / "vectors.npy", rows, spec.dimensions, vector)
    repos = _write_graphs(out, folder, rows, vectors, reporter, previous)
    files = {
        str(path.relative_to(folder)): path.stat().st_size
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }
    os.replace(folder, out / name)
    ann = sum(1 for entry in repos.values() if entry["ann"])
    return Generation(name, rows.height, repos, files, ann)


def _write_vectors(
    path: Path, rows: pl.DataFrame, dimensions: int, vector: Callable[[Key], np.ndarray]
) -> np.ndarray:
    """vectors.npy in rows' order, written through a memory map (never twice in memory)."""
    vectors = np.lib.format.open_memmap(
        path, mode="w+", dtype=np.float32, shape=(rows.height, dimensions)
    )
    for i, key in enumerate(rows.select("repo", "number", "text_hash").iter_rows()):
        vectors[i] = vector(key)
    vectors.flush()
    return vectors


def _write_graphs(
    out: Path,
    folder: Path,
    rows: pl.DataFrame,
    vectors: np.ndarray,
    reporter: Reporter,
    previous: dict[str, Any] | None,
) -> dict[str, dict[str, Any]]:
    """Per repository its row range, a digest of its rows, its BM25 index and, when large,
    its ANN index (each kept from the previous generation when the digest is unchanged and
    the file is of the kind this version writes)."""
    ranges = (
        rows.with_row_index("i")
        .group_by("repo", maintain_order=True)
        .agg(pl.col("i").min().alias("start"), (pl.col("i").max() + 1).alias("stop"))
    )
    reporter.stage("building ANN and BM25 indexes", total=ranges.height)
    repos: dict[str, dict[str, Any]] = {}
    for index, (repo, start, stop) in enumerate(ranges.iter_rows()):
        digest = repo_digest(rows.slice(start, stop - start))
        entry: dict[str, Any] = {"start": start, "stop": stop, "digest": digest, "ann": None}
        old = (previous or {}).get("repos", {}).get(repo)
        kept = old if old and old.get("digest") == digest else {}
        old_folder = out / str((previous or {}).get("generation"))
        if stop - start >= ANN_MIN_ROWS:
            entry["ann"], entry["ann_kind"] = f"ann/{index:05d}.faiss", ANN_KIND
            if kept.get("ann") and kept.get("ann_kind") == ANN_KIND:
                os.link(old_folder / kept["ann"], folder / entry["ann"])
            else:
                build_ann(np.asarray(vectors[start:stop]), folder / entry["ann"])
        entry["bm25"] = _write_bm25(folder, f"bm25/{index:05d}", start, stop, old_folder, kept)
        reporter.advance(1, note=repo)
        repos[repo] = entry
    return repos


def _write_bm25(
    folder: Path, name: str, start: int, stop: int, old_folder: Path, kept: dict[str, Any]
) -> str | None:
    """The repository's BM25 index over its texts as indexed (rows start..stop of
    texts.parquet, what `VectorIndex.texts_of` reads); None where no text has a token."""
    if kept.get("bm25"):
        (folder / name).mkdir(parents=True)
        for path in sorted((old_folder / kept["bm25"]).iterdir()):
            os.link(path, folder / name / path.name)
        return name
    texts = pl.scan_parquet(folder / "texts.parquet").slice(start, stop - start).collect()
    try:
        bm25 = BM25Index(list(texts["text"]))
    except ValueError:  # bm25s has nothing to index: every text is empty of tokens
        return None
    bm25.save(folder / name)
    return name
