"""The field's retrieval metrics over ranked candidates, with bootstrap intervals.

Per query, from its ranked corpus ids and its relevant ids (binary relevance):

- ``recall@k`` (k = 1, 5, 10, 20): 1 if at least one relevant issue is in the top k, else 0.
  Averaged over queries this is the duplicate-bug-report field's "recall rate", not the
  IR share of relevant documents found;
- ``mrr@10``: 1 / rank of the first relevant issue when it is in the top 10, else 0;
- ``ndcg@10``: DCG@10 = sum of 1 / log2(rank + 1) over relevant issues in the top 10,
  divided by the ideal DCG of min(#relevant, 10) relevant issues at the top (as pytrec_eval
  and MTEB compute it for 0/1 relevance).

Reported as means x100 (0-100, like Spearman), each with a percentile bootstrap 95 % interval
over queries (seeded, so a rerun prints the same interval), overall and per repository.
Zero queries is an error: a metric over zero rows means nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from issues_sts.errors import DatasetError

CUTOFFS = (1, 5, 10, 20)
DEPTH = 10  # of MRR and nDCG
METRICS = (*(f"recall@{k}" for k in CUTOFFS), f"mrr@{DEPTH}", f"ndcg@{DEPTH}")
RESAMPLES = 1000
SEED = 0


@dataclass(frozen=True)
class QueryRanking:
    """One query's answer: corpus ids best first (at least the top 20) and its relevant ids."""

    query_id: str
    repo: str
    ranked: Sequence[str]
    relevant: frozenset[str]


@dataclass(frozen=True)
class RetrievalMetrics:
    """Means x100 over queries, their 95 % intervals, and the same per repository."""

    queries: int
    metrics: dict[str, float]
    intervals: dict[str, tuple[float, float]]
    per_repo: dict[str, RetrievalMetrics]

    def to_dict(self) -> dict[str, object]:
        return {
            "queries": self.queries,
            **self.metrics,
            "intervals": {name: list(bounds) for name, bounds in self.intervals.items()},
            "per_repo": {repo: sub.to_dict() for repo, sub in self.per_repo.items()},
        }


def query_metrics(ranked: Sequence[str], relevant: frozenset[str]) -> list[float]:
    """The values of METRICS for one query, each in [0, 1]."""
    if not relevant:
        raise ValueError("a query without a relevant issue has no metric (leave it out)")
    hits = [doc in relevant for doc in list(ranked)[: max(CUTOFFS)]]
    recall = [float(any(hits[:k])) for k in CUTOFFS]
    first = next((i for i, hit in enumerate(hits[:DEPTH], start=1) if hit), None)
    reciprocal = 1.0 / first if first else 0.0
    dcg = sum(1.0 / math.log2(i + 1) for i, hit in enumerate(hits[:DEPTH], start=1) if hit)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(relevant), DEPTH) + 1))
    return [*recall, reciprocal, dcg / ideal]


def retrieval_metrics(
    rankings: Sequence[QueryRanking],
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    per_repo: bool = True,
) -> RetrievalMetrics:
    """Mean metrics x100 with bootstrap 95 % intervals, overall and (per_repo) per repository."""
    if not rankings:
        raise DatasetError(
            "no query to evaluate: retrieval metrics over zero queries mean nothing",
            hint="evaluate a split whose duplicates have an earlier report in the corpus",
        )
    values = np.array([query_metrics(r.ranked, r.relevant) for r in rankings], dtype=np.float64)
    repos = sorted({r.repo for r in rankings}) if per_repo else []
    return RetrievalMetrics(
        queries=len(rankings),
        metrics={
            name: float(v) for name, v in zip(METRICS, values.mean(axis=0) * 100, strict=True)
        },
        intervals=bootstrap_intervals(values, resamples, seed),
        per_repo={
            repo: retrieval_metrics(
                [r for r in rankings if r.repo == repo],
                resamples=resamples,
                seed=seed,
                per_repo=False,
            )
            for repo in repos
        },
    )


def bootstrap_intervals(
    values: np.ndarray, resamples: int = RESAMPLES, seed: int = SEED
) -> dict[str, tuple[float, float]]:
    """Percentile 95 % intervals (x100) of the column means, queries resampled with
    replacement `resamples` times by a generator seeded with `seed`."""
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(values), size=(resamples, len(values)))
    means = values[picks].mean(axis=1) * 100  # (resamples, metrics)
    low, high = np.percentile(means, [2.5, 97.5], axis=0)
    return {name: (float(lo), float(hi)) for name, lo, hi in zip(METRICS, low, high, strict=True)}
