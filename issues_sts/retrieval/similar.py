"""`issues-sts similar`: the earlier issues of a repository most like one issue (or a text).

Candidates are the protocol's (docs/retrieval.md): every issue of the asked repository in the
index created strictly before the asked one (itself excluded); a text that is not in the
index has every issue of the repository as candidate.

- `dense`: cosine of the stored vectors. A repository with an ANN graph is searched through
  it, asking for more neighbours until `depth` candidates are among them; where candidates are
  few (an early issue) or the graph cannot find enough, the candidates are scanned exactly.
- `hybrid`: reciprocal-rank fusion (`fusion.py`) of the dense ranking and BM25's
  (`bm25.py`, over the repository's texts as indexed: saved by `index`), each `depth` deep.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from issues_sts.dataset import earlier_mask
from issues_sts.errors import ConfigError
from issues_sts.retrieval.ann import RERANK, AnnGraph
from issues_sts.retrieval.fusion import rank, reciprocal_rank_fusion
from issues_sts.retrieval.vectors import RepoRows, VectorIndex

Method = Literal["dense", "hybrid"]
METHODS: tuple[str, ...] = ("dense", "hybrid")
DEPTH = 100  # how deep each ranking goes into the fusion
EXACT_BELOW = 20_000  # fewer candidates than this: an exact scan (milliseconds, never wrong)
MAX_ASK = 4_096  # the most neighbours asked of an ANN index before the exact scan answers


@dataclass(frozen=True)
class Question:
    """An issue of the index (`number`), or a text that is not in it (`text`)."""

    repo: str
    number: int | None = None
    text: str | None = None
    vector: np.ndarray | None = None  # the text's embedding (the caller's model)


@dataclass(frozen=True)
class Answer:
    query: dict[str, Any]
    method: str
    k: int
    candidates: int
    results: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "method": self.method,
            "k": self.k,
            "candidates": self.candidates,
            "results": self.results,
        }


def repo_rows(index: VectorIndex, repo: str) -> RepoRows:
    found = index.repo(repo)
    if found is None:
        raise ConfigError(
            f"the index {index.root} holds no issue of {repo}",
            hint="check OWNER/NAME, or crawl it and run `issues-sts index` again",
        )
    return found


def query_position(index: VectorIndex, rows: RepoRows, number: int) -> int:
    position = index.position(rows, number)
    if position is None:
        raise ConfigError(
            f"{rows.repo}#{number} is not in the index {index.root} (a pull request, deleted, "
            "without text, or crawled after the index was made)",
            hint="run `issues-sts index` again after crawling it, or ask with --text FILE",
        )
    return position


def candidate_mask(index: VectorIndex, rows: RepoRows, position: int | None) -> np.ndarray:
    """Over the repository's rows: True where a row is a candidate, by the protocol's rule
    (`earlier_mask`, written once in the dataset); a text not in the index has them all."""
    created = index.created[rows.start : rows.stop]
    if position is None:
        return np.ones(len(created), dtype=bool)
    return earlier_mask(created, int(index.created[position]), position - rows.start)


def dense_ranking(
    index: VectorIndex, rows: RepoRows, query: np.ndarray, mask: np.ndarray, depth: int
) -> tuple[np.ndarray, np.ndarray]:
    """(positions, cosines) of the best `depth` candidates, best first."""
    count = int(mask.sum())
    graph = index.graph(rows)
    vectors = index.vectors[rows.start : rows.stop]
    if graph is not None and count >= EXACT_BELOW:
        found = graph_ranking(graph, vectors, query, mask, min(depth, count))
        if found is not None:
            return found[0] + rows.start, found[1]
    scores = np.asarray(vectors @ query, dtype=np.float32)
    ids = np.flatnonzero(mask)
    top = ids[np.argpartition(-scores[ids], min(depth, len(ids)) - 1)[:depth]] if len(ids) else ids
    ordered = rank(top, scores[top])
    return ordered + rows.start, scores[ordered]


def graph_ranking(
    graph: AnnGraph, vectors: np.ndarray, query: np.ndarray, mask: np.ndarray, depth: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """(positions in the repository, cosines) of the best `depth` candidates the ANN index
    finds: it is asked for more neighbours, 4x at a time up to MAX_ASK, until `depth`
    candidates are among them; the best max(depth, RERANK) of those by the index's
    approximate score are re-scored exactly from `vectors` (the repository's rows). None
    where even MAX_ASK neighbours hold too few candidates (the caller scans then)."""
    pool = max(depth, RERANK)
    ask = max(4 * depth, pool, math.ceil(2 * depth * len(mask) / max(1, mask.sum())))
    ask = min(len(mask), ask)
    while True:
        keys, _ = graph.search(query, ask)
        keys = keys[(keys >= 0) & (keys < len(mask))]
        allowed = keys[mask[keys]]
        if len(allowed) >= depth:
            return exact_top(vectors, query, allowed[:pool], depth)
        if ask >= min(len(mask), MAX_ASK):
            return None
        ask = min(len(mask), MAX_ASK, ask * 4)


def exact_top(
    vectors: np.ndarray, query: np.ndarray, keys: np.ndarray, depth: int
) -> tuple[np.ndarray, np.ndarray]:
    """The best `depth` of `keys` by the exact cosine of their stored vectors, best first
    (ties: the earlier row, as the exact scan breaks them)."""
    order = np.sort(keys)  # ascending rows: the memory map is read front to back
    scores = np.asarray(vectors[order] @ query, dtype=np.float32)
    best = rank(order, scores, depth)
    return best, scores[np.searchsorted(order, best)]


def bm25_ranking(
    index: VectorIndex, rows: RepoRows, text: str, mask: np.ndarray, depth: int
) -> np.ndarray:
    ids = np.flatnonzero(mask)
    bm25 = index.bm25(rows)
    if not len(ids) or bm25 is None:
        return ids[:0]
    return rank(ids, bm25.scores(text, ids), depth) + rows.start


def similar(index: VectorIndex, question: Question, k: int, method: Method) -> Answer:
    """The `k` best earlier issues of the question's repository."""
    rows = repo_rows(index, question.repo)
    position = None if question.number is None else query_position(index, rows, question.number)
    vector = question.vector if position is None else np.asarray(index.vectors[position])
    assert vector is not None  # a text comes with its embedding
    mask = candidate_mask(index, rows, position)
    depth = max(k, DEPTH) if method == "hybrid" else k
    positions, scores = dense_ranking(index, rows, vector, mask, depth)
    if method == "hybrid":
        text = question.text
        if text is None:
            text = index.texts_of(rows)[position - rows.start]  # type: ignore[operator]
        lexical = bm25_ranking(index, rows, text, mask, depth)
        positions, fused = reciprocal_rank_fusion([positions, lexical], depth=k)
        scores = fused.astype(np.float32)
    positions, scores = positions[:k], scores[:k]
    results = [
        {"rank": i + 1, **row, "score": round(float(score), 4)}
        for i, (row, score) in enumerate(zip(index.shown(positions), scores, strict=True))
    ]
    asked = index.shown(np.array([position])) if position is not None else []
    query = asked[0] if asked else {"repo": rows.repo, "number": None, "text": question.text}
    return Answer(query, method, k, int(mask.sum()), results)
