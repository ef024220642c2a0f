"""Approximate nearest neighbours for a large repository: an inverted-file index with 8-bit
scalar-quantised codes (faiss IVF-SQ8) over its rows' vectors, by inner product (the vectors
are unit length, so it ranks by cosine).

k-means cuts the repository's vectors into about 2 sqrt(n) lists; a question scans only the
`PROBES` lists whose centres are nearest to it instead of every row. The lists hold one byte
per dimension (a quarter of the float vectors), so a question can afford to scan many lists;
the caller re-scores the best `RERANK` it finds exactly, from the stored float vectors
(`similar.graph_ranking`), so the codes' rounding never reorders the answer. An index of the
first layout (IVF-Flat, format 1) is still read the same way: its scores are already exact.

IVF was chosen over an HNSW graph for what a maintainer's index does: building it for a
million rows takes a few minutes on two cores where a graph takes most of an hour, and a
re-crawled repository rebuilds it as cheaply (benchmarks/similar.py measures both the time
and the agreement with an exact scan).

A repository below ANN_MIN_ROWS is scanned exactly (numpy): at that size a scan answers in
milliseconds and is never wrong. The index's ids are the rows' positions in the repository,
so a hit maps back to rows without a lookup table.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

ANN_MIN_ROWS = 50_000
ANN_KIND = "ivf-sq8"  # what build_ann writes; an ANN file of another kind is rebuilt
TRAIN_PER_LIST = 64  # k-means samples per list (faiss asks for at least 39)
PROBES = 96
RERANK = 100  # candidates the codes rank best, re-scored exactly from the float vectors


def list_count(rows: int) -> int:
    """2 sqrt(n): smaller lists than the usual sqrt(n) follow the corpus's topics more
    closely, so fewer rows are scanned for the same agreement (benchmarks/similar.py at a
    million vectors: 96 of 2,000 lists agreed on 99.67 % of the top 10, where 96 of the
    first layout's 1,000 IVF-Flat lists gave 98.83 %; docs/benchmarks.md)."""
    return max(16, int(2 * math.sqrt(rows)))


def build_ann(vectors: np.ndarray, path: Path, seed: int = 0) -> None:
    """Write the IVF-SQ8 index of `vectors` (ids 0..n-1) to `path`."""
    import faiss

    rows, dimensions = vectors.shape
    lists = list_count(rows)
    quantizer = faiss.IndexFlatIP(dimensions)
    index = faiss.IndexIVFScalarQuantizer(
        quantizer, dimensions, lists, faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT
    )
    sample = np.random.default_rng(seed).choice(rows, min(rows, lists * TRAIN_PER_LIST), False)
    index.cp.seed = seed
    index.train(np.ascontiguousarray(vectors[np.sort(sample)], dtype=np.float32))
    for start in range(0, rows, 100_000):  # a block at a time: never a second copy of it all
        block = np.ascontiguousarray(vectors[start : start + 100_000], dtype=np.float32)
        index.add_with_ids(block, np.arange(start, start + len(block), dtype=np.int64))
    faiss.write_index(index, str(path))


class AnnGraph:
    """A saved IVF index, memory-mapped where faiss can (its lists are read on demand)."""

    def __init__(self, path: Path, dimensions: int) -> None:
        import faiss

        index: Any = faiss.read_index(str(path), faiss.IO_FLAG_MMAP | faiss.IO_FLAG_READ_ONLY)
        index.nprobe = PROBES
        self.index = index
        # one question at a time: threads buy nothing there, and OpenMP's spinning threads
        # cost many times the search itself on a machine whose cores are busy
        faiss.omp_set_num_threads(1)
        if self.index.d != dimensions:
            raise ValueError(f"{path.name} has {self.index.d} dimensions, not {dimensions}")

    @property
    def probes(self) -> int:
        return int(self.index.nprobe)

    @probes.setter
    def probes(self, lists: int) -> None:
        """How many lists a question scans: more agree better with an exact scan, and cost
        more (benchmarks/similar.py --probes measures the trade)."""
        self.index.nprobe = lists

    def search(self, query: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
        """(positions, approximate cosines) of the `count` nearest rows found, best first
        (-1: none)."""
        scores, ids = self.index.search(
            np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32), count
        )
        return ids[0].astype(np.int64), scores[0].astype(np.float32)
