"""Benchmark of `issues-sts similar`: answer time (p50, p95) against a plain numpy scan of the
same vectors, the top 10's agreement with that exact scan, and how the index's size and the
answer time grow with the corpus.

    .venv/bin/python -m benchmarks.similar                           # 100,000 and 1,000,000
    .venv/bin/python -m benchmarks.similar --sizes 100000 --queries 100

Per size, one repository of n issues (numbers 1..n, created in that order) gets synthetic
unit vectors of 384 dimensions (all-MiniLM-L6-v2's), written into a real index folder by the
product's own writer (`retrieval.publish.write_generation`: rows, vectors, the IVF-SQ8 index
of a repository of at least ANN_MIN_ROWS rows; the texts are empty, so no BM25 index is
written and the write time is the vectors' and the ANN's). Questions are issues of the later
half, so each has at least n/2 candidates (its earlier issues). `similar` answers through the
product's path (`VectorIndex.open` + `similar`, in this process, the index opened once); the
baseline scores every earlier issue with one numpy matrix product over the same memory-mapped
vectors and takes the exact top 10. Both run warm (every question is asked once before the
timed pass), one after the other, per question.

The vectors are clustered, not uniform: n/50 centres, each vector a centre plus Gaussian noise
(0.6 per dimension, before normalising). Uniform random unit vectors in 384 dimensions are
all nearly equally far apart, so no approximate index can tell the nearest 10 from the next
hundred; issue embeddings are not like that (duplicates and topics form tight groups).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from issues_sts.retrieval.ann import PROBES

DIMENSIONS = 384
REPO = "bench/tracker"


def clustered_vectors(n: int, seed: int, path: Path) -> np.ndarray:
    """n unit vectors around n/50 centres, written a block at a time into `path` (.npy)."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((max(1, n // 50), DIMENSIONS), dtype=np.float32)
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(n, DIMENSIONS))
    for start in range(0, n, 100_000):
        size = min(100_000, n - start)
        block = centres[rng.integers(0, len(centres), size)]
        block += 0.6 * rng.standard_normal((size, DIMENSIONS), dtype=np.float32)
        out[start : start + size] = block / np.linalg.norm(block, axis=1, keepdims=True)
    out.flush()
    return out


def write_index(n: int, seed: int, work: Path) -> tuple[Path, float]:
    """A real index folder of n synthetic rows; seconds its generation took to write."""
    from issues_sts.report import SILENT
    from issues_sts.retrieval.indexer import manifest_of
    from issues_sts.retrieval.layout import MANIFEST, IndexSpec, write_json_atomic
    from issues_sts.retrieval.publish import write_generation

    out = work / f"index-{n}"
    shutil.rmtree(out, ignore_errors=True)
    (out / "staging").mkdir(parents=True)
    vectors = clustered_vectors(n, seed, work / f"vectors-{n}.npy")
    numbers = np.arange(1, n + 1)
    meta = pl.DataFrame(
        {
            "repo": [REPO] * n,
            "number": numbers,
            "title": [""] * n,
            "state": ["open"] * n,
            # one second apart: creation order is number order
            "created_at": pl.datetime_range(
                pl.datetime(2010, 1, 1),
                pl.datetime(2010, 1, 1) + pl.duration(seconds=n - 1),
                "1s",
                eager=True,
                time_zone="UTC",
            ).dt.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "url": [""] * n,
            "text_hash": [""] * n,
        }
    )
    texts = out / "staging" / "texts-00000.parquet"
    meta.select("repo", "number", "text_hash", pl.lit("").alias("text")).write_parquet(texts)
    spec = IndexSpec("synthetic", "mean", 256, "readers", DIMENSIONS, (0.0,))
    start = time.perf_counter()
    generation = write_generation(out, spec, meta, [texts], lambda key: vectors[key[1] - 1], SILENT)
    seconds = time.perf_counter() - start
    write_json_atomic(out / MANIFEST, manifest_of(spec, generation))
    shutil.rmtree(out / "staging")
    (work / f"vectors-{n}.npy").unlink()
    return out, seconds


def measure(index_dir: Path, queries: int, seed: int, probes: list[int]) -> list[dict[str, Any]]:
    """Per number of probed lists: `similar`'s times and agreement, against one exact scan per
    question (timed once: the scan does not depend on the probes)."""
    from issues_sts.retrieval.similar import Question, similar
    from issues_sts.retrieval.vectors import VectorIndex

    index = VectorIndex.open(index_dir)
    n = index.rows.height
    graph = index.graph(index.repo(REPO))  # type: ignore[arg-type]
    asked = (np.random.default_rng(seed + 1).integers(n // 2, n, queries) + 1).tolist()
    scan, exact = [], []
    for timed in (False, True):  # warm: the pages the scan reads are in memory, as in a server
        for number in asked:
            start = time.perf_counter()
            query = np.asarray(index.vectors[number - 1])
            scores = index.vectors[: number - 1] @ query  # every earlier issue
            top = np.argpartition(-scores, 9)[:10]
            found = set((top[np.argsort(-scores[top])] + 1).tolist())
            if timed:
                scan.append(time.perf_counter() - start)
                exact.append(found)
    files = {name: (index.folder / name).stat().st_size for name in index.manifest["files"]}
    results = []
    for lists in probes:
        if graph is not None:
            graph.probes = lists
        ours, agree = [], []
        for timed in (False, True):
            for number, truth in zip(asked, exact, strict=True):
                start = time.perf_counter()
                answer = similar(index, Question(REPO, number), 10, "dense")
                if timed:
                    ours.append(time.perf_counter() - start)
                    agree.append(len({r["number"] for r in answer.results} & truth) / 10)
        results.append(
            {
                "rows": n,
                "queries": queries,
                "probes": lists if graph is not None else None,
                "similar_p50_ms": 1000 * float(np.percentile(ours, 50)),
                "similar_p95_ms": 1000 * float(np.percentile(ours, 95)),
                "scan_p50_ms": 1000 * float(np.percentile(scan, 50)),
                "scan_p95_ms": 1000 * float(np.percentile(scan, 95)),
                "speedup_p50": float(np.percentile(scan, 50) / np.percentile(ours, 50)),
                "top10_agreement": float(np.mean(agree)),
                "index_bytes": sum(files.values()),
                "files": files,
            }
        )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--probes", default=str(PROBES), help="IVF lists a question scans, comma-separated"
    )
    parser.add_argument("--work", type=Path, default=Path("/tmp/issues-sts-bench-similar"))
    args = parser.parse_args()
    results = []
    for n in (int(s) for s in args.sizes.split(",")):
        args.work.mkdir(parents=True, exist_ok=True)
        index_dir, build_s = write_index(n, args.seed, args.work)
        probes = [int(p) for p in args.probes.split(",")]
        for result in measure(index_dir, args.queries, args.seed, probes):
            result["write_seconds"] = build_s
            results.append(result)
            _line(n, result)
        shutil.rmtree(index_dir)
    _growth(results)
    json.dump(results, sys.stdout, indent=2)
    print()


def _line(n: int, result: dict[str, Any]) -> None:
    print(
        f"{n:>9,} vectors, {result['probes']} probes: similar p50 "
        f"{result['similar_p50_ms']:.2f} ms, p95 {result['similar_p95_ms']:.2f} ms; numpy scan "
        f"p50 {result['scan_p50_ms']:.1f} ms, p95 {result['scan_p95_ms']:.1f} ms; "
        f"{result['speedup_p50']:.1f}x faster; top-10 agreement "
        f"{100 * result['top10_agreement']:.2f} %; index {result['index_bytes'] / 1e6:.0f} MB, "
        f"written in {result['write_seconds']:.0f} s",
        flush=True,
    )


def _growth(results: list[dict[str, Any]]) -> None:
    """Size and time of the largest corpus over the smallest, at the product's probes."""
    at = [r for r in results if r["probes"] in (PROBES, None)]
    if len(at) > 1:
        a, b = at[0], at[-1]
        print(
            f"x{b['rows'] / a['rows']:g} rows: index size "
            f"x{b['index_bytes'] / a['index_bytes']:.1f}, similar p50 "
            f"x{b['similar_p50_ms'] / a['similar_p50_ms']:.1f}, scan p50 "
            f"x{b['scan_p50_ms'] / a['scan_p50_ms']:.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
