"""`issues-sts evaluate --task retrieval`: rank every query's candidates, then measure.

For each query of the split (see `issues_sts.dataset.retrieval_view` for the protocol), the
candidates are the corpus issues of its repository created strictly before it, itself
excluded; they are ranked by

- `dense`: cosine of the embeddings (training's encoder, `encode`), the untrained backbone
  unless `model` names another;
- `bm25`: bm25s's BM25 over the repository's whole corpus (`bm25`), the query's text as the
  query;
- `hybrid`: reciprocal-rank fusion (k = 60) of the two full rankings (`fusion`).

Ties break on the earlier corpus row. The top 20 go to `metrics.retrieval_metrics`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import polars as pl

from issues_sts.dataset.retrieval_view import earlier_candidates
from issues_sts.report import SILENT, Reporter
from issues_sts.retrieval.bm25 import BM25Index
from issues_sts.retrieval.encode import encode_texts, load_encoder
from issues_sts.retrieval.fusion import rank, reciprocal_rank_fusion
from issues_sts.retrieval.metrics import (
    CUTOFFS,
    RESAMPLES,
    SEED,
    QueryRanking,
    RetrievalMetrics,
    retrieval_metrics,
)
from issues_sts.retrieval.view import RetrievalData, load_split

Method = Literal["dense", "bm25", "hybrid"]
METHODS: tuple[Method, ...] = ("dense", "bm25", "hybrid")
DEPTH = max(CUTOFFS)


@dataclass(frozen=True)
class RetrievalConfig:
    """What `evaluate --task retrieval` runs; built once by the CLI."""

    dataset: str
    split: str = "test"
    method: Method = "dense"
    model: str | None = None
    pooling: str | None = None
    max_length: int | None = None
    batch_size: int = 64
    resamples: int = RESAMPLES
    seed: int = SEED

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, not {self.method!r}")


@dataclass(frozen=True)
class RetrievalResult:
    """The metrics and what they were measured on."""

    config: RetrievalConfig
    metrics: RetrievalMetrics
    rankings: list[QueryRanking] = field(repr=False)
    candidates: int  # corpus issues that were a candidate of at least one query

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": "retrieval",
            "method": self.config.method,
            "model": self.config.model if self.config.method != "bm25" else None,
            "split": self.config.split,
            "candidates": self.candidates,
            **self.metrics.to_dict(),
        }


@dataclass(frozen=True)
class _Query:
    query_id: str
    repo: str
    text: str
    row: int  # the query's own corpus row (-1 if absent)
    candidates: np.ndarray  # corpus rows, ascending


def evaluate_retrieval(cfg: RetrievalConfig, reporter: Reporter = SILENT) -> RetrievalResult:
    """Rank every query's candidates with `cfg.method` and measure the rankings."""
    data = load_split(cfg.dataset, cfg.split)
    queries = list(_queries(data))
    scorer = _Scorer(cfg, data, queries, reporter)
    relevant = _relevant(data)
    rankings = [
        QueryRanking(q.query_id, q.repo, scorer.top(q), relevant.get(q.query_id, frozenset()))
        for q in queries
    ]
    used = np.unique(np.concatenate([q.candidates for q in queries]))
    return RetrievalResult(
        cfg,
        retrieval_metrics(rankings, resamples=cfg.resamples, seed=cfg.seed),
        rankings,
        int(len(used)),
    )


def _relevant(data: RetrievalData) -> dict[str, frozenset[str]]:
    grouped = data.qrels.filter(pl.col("score") > 0).group_by("query-id").agg("corpus-id")
    return {q: frozenset(ids) for q, ids in grouped.iter_rows()}


def _queries(data: RetrievalData) -> Iterator[_Query]:
    """Each query with its candidates (`earlier_candidates`: the protocol's, written once)."""
    ids = data.queries["_id"].to_list()
    repo_of = dict(zip(data.corpus["_id"], data.corpus["repo"], strict=True))
    row_of = {doc: i for i, doc in enumerate(data.corpus["_id"].to_list())}
    candidates = earlier_candidates(data.corpus, ids)
    for query_id, text, rows in zip(ids, data.queries["text"].to_list(), candidates, strict=True):
        yield _Query(query_id, repo_of.get(query_id, ""), text, row_of.get(query_id, -1), rows)


class _Scorer:
    """Scores of a query's candidates by the configured method, and its top DEPTH ids."""

    def __init__(
        self, cfg: RetrievalConfig, data: RetrievalData, queries: list[_Query], reporter: Reporter
    ) -> None:
        self.cfg = cfg
        self.ids = np.array(data.corpus["_id"].to_list(), dtype=object)
        texts = data.corpus["text"].to_list()
        self.dense: dict[int, np.ndarray] = {}
        self.bm25: dict[str, tuple[BM25Index, dict[int, int]]] = {}
        if cfg.method in ("dense", "hybrid"):
            self._embed(texts, queries, reporter)
        if cfg.method in ("bm25", "hybrid"):
            repos = {q.repo for q in queries}
            reporter.stage(f"indexing {len(repos)} repositories for BM25")
            for repo, rows in _repo_rows(data.corpus, repos).items():
                index = BM25Index([texts[i] for i in rows])
                self.bm25[repo] = (index, {int(row): pos for pos, row in enumerate(rows)})

    def _embed(self, texts: list[str], queries: list[_Query], reporter: Reporter) -> None:
        needed = np.unique(np.concatenate([q.candidates for q in queries]))
        encoder = load_encoder(self.cfg.model, self.cfg.pooling, self.cfg.max_length)
        reporter.stage(
            f"embedding {len(needed) + len(queries):,} texts", len(needed) + len(queries)
        )
        vectors = encode_texts(
            encoder,
            [texts[i] for i in needed] + [q.text for q in queries],
            batch_size=self.cfg.batch_size,
            max_length=self.cfg.max_length,
            progress=reporter.advance,
        )
        self.corpus_vectors = vectors[: len(needed)]
        self.position = np.full(len(texts), -1, dtype=np.int64)
        self.position[needed] = np.arange(len(needed))
        self.dense = {i: vectors[len(needed) + i] for i in range(len(queries))}
        self.query_index = {q.query_id: i for i, q in enumerate(queries)}

    def dense_ranking(self, query: _Query) -> np.ndarray:
        vector = self.dense[self.query_index[query.query_id]]
        scores = self.corpus_vectors[self.position[query.candidates]] @ vector
        return rank(query.candidates, scores)

    def bm25_ranking(self, query: _Query) -> np.ndarray:
        index, position = self.bm25[query.repo]
        local = np.array([position[int(row)] for row in query.candidates], dtype=np.int64)
        return rank(query.candidates, index.scores(query.text, local))

    def top(self, query: _Query) -> list[str]:
        if len(query.candidates) == 0:
            return []
        if self.cfg.method == "dense":
            ranked = self.dense_ranking(query)
        elif self.cfg.method == "bm25":
            ranked = self.bm25_ranking(query)
        else:
            ranked = reciprocal_rank_fusion(
                [self.dense_ranking(query), self.bm25_ranking(query)], depth=DEPTH
            )[0]
        return [str(doc) for doc in self.ids[ranked[:DEPTH]]]


def _repo_rows(corpus: pl.DataFrame, repos: set[str]) -> dict[str, np.ndarray]:
    """Corpus rows of each repository in `repos`, every issue (the BM25 statistics' base)."""
    rows = corpus.with_row_index("_row").filter(pl.col("repo").is_in(sorted(repos)))
    return {
        str(repo): group["_row"].to_numpy().astype(np.int64)
        for (repo,), group in rows.group_by("repo", maintain_order=True)
    }
