"""Duplicate retrieval: find the earlier report of a new issue among its repository's issues.

A room of its own above the dataset and training: it embeds texts with training's encoders
(`encode`), scores them with BM25 through bm25s (`bm25`), fuses rankings (`fusion`) and
measures the ranking the way the duplicate-bug-report field does (`metrics`). Neither the
dataset nor training imports it (tests/test_layering.py); it imports neither the CLI nor the
sandbox. The protocol (queries, candidates, relevant issues) is docs/retrieval.md.
"""

from __future__ import annotations

from issues_sts.retrieval.bm25 import BM25Index, BM25Tokenizer
from issues_sts.retrieval.fusion import RRF_K, rank, reciprocal_rank_fusion
from issues_sts.retrieval.metrics import (
    CUTOFFS,
    METRICS,
    QueryRanking,
    RetrievalMetrics,
    retrieval_metrics,
)

__all__ = [
    "CUTOFFS",
    "METRICS",
    "RRF_K",
    "BM25Index",
    "BM25Tokenizer",
    "QueryRanking",
    "RetrievalMetrics",
    "rank",
    "reciprocal_rank_fusion",
    "retrieval_metrics",
]
