"""Ranking candidates by score, and reciprocal-rank fusion of several rankings.

Reciprocal-rank fusion (Cormack, Clarke & Buettcher, SIGIR 2009) scores a document
``sum over rankings of 1 / (k + rank)``, ranks counted from 1, with their k = 60: it needs
no score calibration between BM25 and cosine, which live on different scales. A document
absent from a ranking adds nothing from it. Ties break on the smaller id, so a ranking is
the same on every run.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

RRF_K = 60


def rank(ids: np.ndarray, scores: np.ndarray, depth: int | None = None) -> np.ndarray:
    """`ids` ordered by descending score (ties: smaller id first), the first `depth` kept."""
    ids = np.asarray(ids)
    scores = np.asarray(scores, dtype=np.float64)
    if ids.shape != scores.shape:
        raise ValueError(f"{len(ids)} ids but {len(scores)} scores")
    order = np.lexsort((ids, -scores))
    return ids[order if depth is None else order[:depth]]


def reciprocal_rank_fusion(
    rankings: Sequence[np.ndarray], k: int = RRF_K, depth: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(ids, fused scores), best first: the union of `rankings` fused by 1 / (k + rank)."""
    if k < 1:
        raise ValueError(f"the fusion constant k must be at least 1, not {k}")
    fused: dict[int, float] = {}
    for ranking in rankings:
        for position, doc in enumerate(np.asarray(ranking).tolist(), start=1):
            fused[doc] = fused.get(doc, 0.0) + 1.0 / (k + position)
    ids = np.fromiter(fused.keys(), dtype=np.int64, count=len(fused))
    scores = np.fromiter(fused.values(), dtype=np.float64, count=len(fused))
    ordered = rank(ids, scores, depth)
    return ordered, np.array([fused[int(doc)] for doc in ordered], dtype=np.float64)
