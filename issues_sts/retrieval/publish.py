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

from issues_sts.report import Reporter
from issues_sts.retrieval.ann import ANN_MIN_ROWS, build_ann
from issues_sts.retrieval.layout import IndexSpec
from issues_sts.retrieval.pending import Key

NEVER = np.iinfo(np.int64).max  # an issue without a creation time is nobody's earlier issue


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
    seconds = (
        pl.col("created_at")
        .str.to_datetime(time_zone="UTC", strict=False)
        .dt.epoch("s")
        .fill_null(NEVER)
    )
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
    """Per repository its row range, a digest of its rows and, when large, its ANN index
    (kept from the previous generation when the digest is unchanged)."""
    ranges = (
        rows.with_row_index("i")
        .group_by("repo", maintain_order=True)
        .agg(pl.col("i").min().alias("start"), (pl.col("i").max() + 1).alias("stop"))
    )
    big = ranges.filter((pl.col("stop") - pl.col("start")) >= ANN_MIN_ROWS).height
    reporter.stage("building ANN indexes", total=big)
    repos: dict[str, dict[str, Any]] = {}
    for index, (repo, start, stop) in enumerate(ranges.iter_rows()):
        digest = repo_digest(rows.slice(start, stop - start))
        entry: dict[str, Any] = {"start": start, "stop": stop, "digest": digest, "ann": None}
        if stop - start >= ANN_MIN_ROWS:
            entry["ann"] = f"ann/{index:05d}.faiss"
            old = (previous or {}).get("repos", {}).get(repo)
            if old and old.get("digest") == digest and old.get("ann"):
                os.link(out / previous["generation"] / old["ann"], folder / entry["ann"])  # type: ignore[index]
            else:
                build_ann(np.asarray(vectors[start:stop]), folder / entry["ann"])
            reporter.advance(1, note=repo)
        repos[repo] = entry
    return repos
