"""The large-repository path of `similar` on a small scale: an IVF-SQ8 index written by the
product's writer answers the earlier-issue question as an exact numpy scan does (the
thresholds that pick this path for 50,000+ issues are the benchmark's business)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from issues_sts.retrieval.ann import AnnGraph, build_ann
from issues_sts.retrieval.similar import graph_ranking


def _clustered(n: int, d: int = 32, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((n // 20, d))
    x = centres[rng.integers(0, len(centres), n)] + 0.5 * rng.standard_normal((n, d))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def test_the_ivf_path_agrees_with_an_exact_scan_of_the_earlier_issues(tmp_path: Path) -> None:
    vectors = _clustered(4000)
    build_ann(vectors, tmp_path / "ann.faiss")
    graph = AnnGraph(tmp_path / "ann.faiss", vectors.shape[1])
    agree = []
    for position in (3999, 3000, 2500, 2100):
        mask = np.arange(len(vectors)) < position  # the issues created before it
        found = graph_ranking(graph, vectors, vectors[position], mask, 10)
        assert found is not None
        keys, sims = found
        assert len(keys) == 10 and mask[keys].all()  # never a later issue, never itself
        assert np.allclose(sims, vectors[keys] @ vectors[position], atol=1e-6)  # re-scored
        assert list(sims) == sorted(sims, reverse=True)
        scores = vectors[:position] @ vectors[position]
        exact = set(np.argsort(-scores)[:10].tolist())
        agree.append(len(exact & set(keys.tolist())) / 10)
    assert np.mean(agree) >= 0.9


def test_too_few_candidates_in_reach_hand_the_question_to_the_exact_scan(tmp_path: Path) -> None:
    vectors = _clustered(2000)
    build_ann(vectors, tmp_path / "ann.faiss")
    graph = AnnGraph(tmp_path / "ann.faiss", vectors.shape[1])
    mask = np.zeros(len(vectors), dtype=bool)
    mask[:3] = True  # only three earlier issues: ten cannot be found
    assert graph_ranking(graph, vectors, vectors[1500], mask, 10) is None
