"""The retrieval core against oracles: metrics against a naive loop, fusion against the
formula, BM25 against bm25s's own index and against the Lucene formula written out, dense
embeddings against training's `embed`."""

from __future__ import annotations

import math
from collections import Counter

import bm25s
import numpy as np
import pytest

from issues_sts.errors import DatasetError
from issues_sts.retrieval import (
    METRICS,
    RRF_K,
    BM25Index,
    BM25Tokenizer,
    QueryRanking,
    rank,
    reciprocal_rank_fusion,
    retrieval_metrics,
)
from issues_sts.retrieval.encode import encode_texts, normalise
from issues_sts.retrieval.metrics import bootstrap_intervals, query_metrics
from tests.test_training_support import tiny_encoder
from training.evaluation import embed


def naive_metrics(ranked: list[str], relevant: set[str]) -> dict[str, float]:
    """The metrics written the long way, one rank at a time."""
    out: dict[str, float] = {}
    for k in (1, 5, 10, 20):
        out[f"recall@{k}"] = 1.0 if set(ranked[:k]) & relevant else 0.0
    out["mrr@10"] = 0.0
    for position in range(1, 11):
        if position <= len(ranked) and ranked[position - 1] in relevant:
            out["mrr@10"] = 1 / position
            break
    dcg = 0.0
    for position in range(1, 11):
        if position <= len(ranked) and ranked[position - 1] in relevant:
            dcg += 1 / math.log2(position + 1)
    ideal = 0.0
    for position in range(1, min(len(relevant), 10) + 1):
        ideal += 1 / math.log2(position + 1)
    out["ndcg@10"] = dcg / ideal
    return out


DOCS = [f"d{i}" for i in range(30)]


@pytest.mark.parametrize(
    ("ranked", "relevant"),
    [
        (DOCS, {"d0"}),
        (DOCS, {"d3"}),
        (DOCS, {"d12"}),
        (DOCS, {"d25"}),
        (DOCS, {"d2", "d7", "d15"}),
        (DOCS[:4], {"d9"}),
        (DOCS, {f"d{i}" for i in range(0, 30, 2)}),
        (DOCS[:3], {"d1", "d2"}),
    ],
)
def test_query_metrics_match_a_naive_loop(ranked: list[str], relevant: set[str]) -> None:
    expected = naive_metrics(ranked, relevant)
    got = dict(zip(METRICS, query_metrics(ranked, frozenset(relevant)), strict=True))
    assert got == pytest.approx(expected)


def test_metrics_average_per_query_values_on_a_0_100_scale_overall_and_per_repo() -> None:
    rankings = [
        QueryRanking("q1", "a/x", ["d0", "d1"], frozenset({"d0"})),
        QueryRanking("q2", "a/x", ["d0", "d1"], frozenset({"d1"})),
        QueryRanking("q3", "b/y", ["d5"] * 1 + DOCS[:20], frozenset({"d29"})),
    ]
    result = retrieval_metrics(rankings, resamples=200)
    assert result.queries == 3
    assert result.metrics["recall@1"] == pytest.approx(100 / 3)
    assert result.metrics["recall@5"] == pytest.approx(200 / 3)
    assert result.metrics["mrr@10"] == pytest.approx((1 + 0.5 + 0) / 3 * 100)
    assert set(result.per_repo) == {"a/x", "b/y"}
    assert result.per_repo["a/x"].metrics["recall@1"] == pytest.approx(50.0)
    assert result.per_repo["b/y"].metrics["recall@20"] == 0.0
    payload = result.to_dict()
    assert set(METRICS) <= set(payload) and payload["queries"] == 3
    assert set(payload["intervals"]) == set(METRICS)  # type: ignore[arg-type]


def test_bootstrap_intervals_are_seeded_and_bracket_the_mean() -> None:
    rng = np.random.default_rng(3)
    values = (rng.random((50, len(METRICS))) < 0.4).astype(float)
    first = bootstrap_intervals(values, 500, seed=7)
    assert first == bootstrap_intervals(values, 500, seed=7)
    for name, mean in zip(METRICS, values.mean(axis=0) * 100, strict=True):
        low, high = first[name]
        assert low <= mean <= high and high - low > 0
    # the percentile bootstrap by hand, the same draws
    picks = np.random.default_rng(7).integers(0, 50, size=(500, 50))
    column = values[:, 0][picks].mean(axis=1) * 100
    assert first[METRICS[0]] == pytest.approx(tuple(np.percentile(column, [2.5, 97.5])))


def test_zero_queries_is_an_error_not_a_metric() -> None:
    with pytest.raises(DatasetError, match="zero queries"):
        retrieval_metrics([])
    with pytest.raises(ValueError, match="no metric"):
        query_metrics(["d0"], frozenset())


@pytest.mark.parametrize(
    ("ids", "scores", "depth", "expected"),
    [
        ([5, 3, 9], [0.1, 0.9, 0.5], None, [3, 9, 5]),
        ([5, 3, 9], [0.5, 0.5, 0.5], None, [3, 5, 9]),  # ties: smaller id first
        ([5, 3, 9, 1], [0.2, 0.9, 0.5, 0.9], 2, [1, 3]),
        ([], [], None, []),
    ],
)
def test_rank_orders_by_score_then_id(
    ids: list[int], scores: list[float], depth: int | None, expected: list[int]
) -> None:
    assert rank(np.array(ids, dtype=np.int64), np.array(scores), depth).tolist() == expected


def test_reciprocal_rank_fusion_follows_the_formula() -> None:
    first, second = np.array([4, 2, 7, 1]), np.array([2, 9, 4])
    ids, scores = reciprocal_rank_fusion([first, second])
    expected: Counter[int] = Counter()
    for ranking in (first, second):
        for position, doc in enumerate(ranking.tolist(), start=1):
            expected[doc] += 1 / (RRF_K + position)
    assert dict(zip(ids.tolist(), scores.tolist(), strict=True)) == pytest.approx(dict(expected))
    assert ids.tolist()[:2] == [2, 4]  # in both lists, near the top
    assert list(scores) == sorted(scores, reverse=True)
    assert reciprocal_rank_fusion([first], depth=2)[0].tolist() == [4, 2]
    with pytest.raises(ValueError, match="at least 1"):
        reciprocal_rank_fusion([first], k=0)


TEXTS = [
    "Compiler panics on nested closures in trait impls",
    "ICE: the compiler panicked while borrow checking a closure",
    "Docs: typo in the book's chapter on closures",
    "Segfault in std::io when reading a closed pipe",
    "Windows build fails: linker error LNK1120",
    "",
    "panic panic panic closure closure borrow",
]


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("The Compiler PANICS", ["compil", "panic"]),  # lowercased, stopword gone, stemmed
        ("crashed crashes crashing", ["crash", "crash", "crash"]),
        (
            "a E0308 snake_case x",
            ["e0308", "snake_cas"],
        ),  # one-letter tokens dropped, one word kept
        ("", []),
    ],
)
def test_the_tokenizer_lowercases_drops_stopwords_and_stems(text: str, tokens: list[str]) -> None:
    assert BM25Tokenizer()([text]) == [tokens]


def test_the_tokenizer_settings_can_be_turned_off() -> None:
    assert BM25Tokenizer(stopwords=None, stemmer=None)(["The Panics"]) == [["the", "panics"]]


def test_bm25_matches_the_librarys_own_scores_for_the_same_tokens() -> None:
    tokenizer = BM25Tokenizer()
    index = BM25Index(TEXTS, tokenizer)
    reference = bm25s.BM25()  # the library's defaults: Lucene, k1 1.5, b 0.75
    reference.index(tokenizer(TEXTS), show_progress=False)
    for query in ("closure panics", "linker error on windows", "pipe", "nothing matches zzz"):
        tokens = tokenizer([query])[0]
        expected = (
            reference.get_scores(tokens)
            if reference.get_tokens_ids(tokens)
            else np.zeros(len(TEXTS))
        )
        np.testing.assert_allclose(index.scores(query), expected, rtol=1e-6)
        candidates = np.array([6, 0, 3])
        np.testing.assert_allclose(index.scores(query, candidates), expected[candidates], rtol=1e-6)


def test_bm25_is_the_lucene_formula() -> None:
    """Lucene's BM25 written out: idf = ln(1 + (N - df + 0.5) / (df + 0.5)), and
    tf / (tf + k1 * (1 - b + b * dl / avgdl)) per query token (Lucene 8 dropped the
    constant (k1 + 1) factor of Robertson's formula: the ranking is the same)."""
    tokenizer, k1, b = BM25Tokenizer(), 1.5, 0.75
    docs = tokenizer(TEXTS)
    avgdl = sum(len(d) for d in docs) / len(docs)
    query = tokenizer(["compiler panics with a closure"])[0]
    expected = []
    for doc in docs:
        score = 0.0
        for token in query:
            df = sum(token in d for d in docs)
            if df == 0:
                continue
            idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
            tf = doc.count(token)
            score += idf * tf / (tf + k1 * (1 - b + b * len(doc) / avgdl))
        expected.append(score)
    np.testing.assert_allclose(BM25Index(TEXTS, tokenizer).token_scores(query), expected, rtol=1e-5)


def test_bm25_refuses_an_empty_corpus() -> None:
    with pytest.raises(ValueError, match="at least one text"):
        BM25Index([])


def test_dense_embeddings_are_trainings_embeddings_normalised_in_input_order(
    one_torch_thread: None,
) -> None:
    encoder = tiny_encoder("avg")
    texts = [t or "empty" for t in TEXTS]
    seen: list[int] = []
    vectors = encode_texts(encoder, texts, batch_size=3, max_length=16, progress=seen.append)
    assert vectors.dtype == np.float32 and vectors.shape == (len(texts), encoder.embedding_dim)
    assert sum(seen) == len(texts) and len(seen) == 3
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    reference = embed(encoder, texts, batch_size=64, max_length=16)
    reference /= np.linalg.norm(reference, axis=1, keepdims=True)
    np.testing.assert_allclose(vectors, reference, atol=1e-5)


def test_normalise_leaves_a_zero_row_zero() -> None:
    rows = normalise(np.array([[3.0, 4.0], [0.0, 0.0]]))
    np.testing.assert_allclose(rows, [[0.6, 0.8], [0.0, 0.0]])
