"""Approximate nearest neighbours for a large repository: an HNSW graph (usearch) over its
rows' vectors, by inner product (the vectors are unit length, so it ranks by cosine).

A repository below ANN_MIN_ROWS is scanned exactly (numpy): at that size a scan answers in
milliseconds and is never wrong. The graph's keys are the rows' positions in the repository,
so a hit maps back to rows without a lookup table.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

ANN_MIN_ROWS = 50_000
CONNECTIVITY = 16
EXPANSION_ADD = 128
# wide enough for the top 10 to agree with an exact scan on at least 99 % of the results
# (benchmarks/similar.py measures it)
EXPANSION_SEARCH = 256


def build_ann(vectors: np.ndarray, path: Path, threads: int = 0) -> None:
    """Write the HNSW graph of `vectors` (rows keyed 0..n-1) to `path`."""
    from usearch.index import Index

    graph = Index(
        ndim=int(vectors.shape[1]),
        metric="ip",
        dtype="f32",
        connectivity=CONNECTIVITY,
        expansion_add=EXPANSION_ADD,
        expansion_search=EXPANSION_SEARCH,
    )
    graph.add(
        np.arange(len(vectors), dtype=np.uint64), np.ascontiguousarray(vectors), threads=threads
    )
    graph.save(str(path))


class AnnGraph:
    """A saved graph, memory-mapped (`view`): opening it reads no vectors."""

    def __init__(self, path: Path, dimensions: int) -> None:
        from usearch.index import Index

        self.graph = Index(
            ndim=dimensions, metric="ip", dtype="f32", expansion_search=EXPANSION_SEARCH
        )
        self.graph.view(str(path))

    def search(self, query: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
        """(positions, cosines) of the `count` nearest rows, best first."""
        found = self.graph.search(np.ascontiguousarray(query, dtype=np.float32), count, threads=1)
        keys = np.asarray(found.keys, dtype=np.int64)
        return keys, 1.0 - np.asarray(found.distances, dtype=np.float32)
