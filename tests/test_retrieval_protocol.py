"""The retrieval view of a real build (a generated world written into a real store) and
`evaluate --task retrieval` on it: the protocol's invariants, recomputed here from the
pairs and the corpus, and each method against an independent computation."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import bm25s
import numpy as np
import polars as pl
import pytest

from issues_sts.dataset.build import run_build
from issues_sts.dataset.config import SPLITS, BuildConfig
from issues_sts.errors import DatasetError
from issues_sts.retrieval import BM25Tokenizer
from issues_sts.retrieval.evaluate import RetrievalConfig, _queries, evaluate_retrieval
from issues_sts.retrieval.view import load_split
from tests.cli_process import run
from tests.dataset_store import make_store
from tests.retrieval_support import world_build
from tests.test_training_support import tiny_encoder


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return world_build(tmp_path_factory.mktemp("retrieval"))


def _frame(built: Path, config: str) -> pl.DataFrame:
    import datasets

    split = {"corpus": "corpus", "queries": "queries"}
    if config in split:
        return datasets.load_dataset(str(built), config, split=split[config]).to_polars()
    parts = datasets.load_dataset(str(built), "qrels")
    return pl.concat([parts[s].to_polars() for s in SPLITS])


def _times(corpus: pl.DataFrame) -> dict[str, str]:
    return dict(zip(corpus["_id"], corpus["created_at"], strict=True))


def test_the_three_configs_load_with_datasets(built: Path) -> None:
    corpus, queries, qrels = (_frame(built, c) for c in ("corpus", "queries", "qrels"))
    assert corpus.columns == ["_id", "title", "text", "repo", "number", "created_at"]
    assert queries.columns == ["_id", "text", "split"]
    assert qrels.columns == ["query-id", "corpus-id", "score", "split"]
    assert corpus["_id"].n_unique() == corpus.height and queries["_id"].n_unique() == queries.height
    stats = json.loads((built / "stats.json").read_text())
    assert corpus.height == stats["counters"]["texts"]["issues_with_text"]
    assert set(qrels["score"].to_list()) == {1}
    assert all(t.startswith(f"{title}") for title, t in corpus.select("title", "text").rows())


def test_corpus_texts_are_the_pairs_texts(built: Path) -> None:
    """Same recipe and redaction as the pairs: every issue in a pair has its pair text."""
    corpus = _frame(built, "corpus")
    text_of = dict(zip(corpus["_id"], corpus["text"], strict=True))
    pairs = pl.read_parquet(built / "pairs.parquet")
    for k in ("1", "2"):
        for repo, number, text in pairs.select(f"repo{k}", f"number{k}", f"text{k}").rows():
            assert text_of[f"{repo}#{number}"] == text
    queries = _frame(built, "queries")
    assert all(text_of[q] == t for q, t in queries.select("_id", "text").rows())


def _expected(built: Path) -> tuple[dict[str, set[str]], dict[str, int], dict[str, int]]:
    """The protocol recomputed from pairs.parquet and the corpus: relevant ids per query,
    queries kept and left out per split."""
    corpus = _frame(built, "corpus")
    times = _times(corpus)
    positives = pl.read_parquet(built / "pairs.parquet").filter(pl.col("label") == 1)
    cluster: dict[str, set[str]] = {}
    for repo1, n1, repo2, n2 in positives.select("repo1", "number1", "repo2", "number2").rows():
        cluster.setdefault(f"{repo2}#{n2}", {f"{repo2}#{n2}"}).add(f"{repo1}#{n1}")
    relevant: dict[str, set[str]] = {}
    kept = dict.fromkeys(SPLITS, 0)
    left = dict.fromkeys(SPLITS, 0)
    for split, repo1, n1, repo2, n2 in positives.select(
        "split", "repo1", "number1", "repo2", "number2"
    ).rows():
        query = f"{repo1}#{n1}"
        earlier = {
            doc
            for doc in cluster[f"{repo2}#{n2}"]
            if doc != query and doc.split("#")[0] == repo1 and times[doc] < times[query]
        }
        if earlier:
            relevant[query] = earlier
            kept[split] += 1
        else:
            left[split] += 1
    return relevant, kept, left


def test_qrels_are_the_split_positives_clusters_earlier_members(built: Path) -> None:
    relevant, kept, left = _expected(built)
    qrels, corpus = _frame(built, "qrels"), _frame(built, "corpus")
    got: dict[str, set[str]] = {}
    for query, doc in qrels.select("query-id", "corpus-id").rows():
        got.setdefault(query, set()).add(doc)
    assert got == relevant
    times = _times(corpus)
    assert all(
        times[doc] < times[query] for query, doc in qrels.select("query-id", "corpus-id").rows()
    )
    assert all(query != doc for query, doc in qrels.select("query-id", "corpus-id").rows())
    assert set(_frame(built, "queries")["_id"]) == set(relevant)
    pairs = pl.read_parquet(built / "pairs.parquet").filter(pl.col("label") == 1)
    split_of = {f"{r}#{n}": s for s, r, n in pairs.select("split", "repo1", "number1").rows()}
    assert all(split_of[q] == s for q, s in qrels.select("query-id", "split").rows())


def test_queries_left_out_are_counted_in_stats_and_the_card(built: Path) -> None:
    _, kept, left = _expected(built)
    counters = json.loads((built / "stats.json").read_text())["counters"]["retrieval"]
    assert sum(left.values()) > 0 and sum(kept.values()) > 0
    for split in SPLITS:
        assert counters[f"{split}_queries"] == kept[split]
        assert counters[f"{split}_left_out_no_earlier_relevant"] == left[split]
    card = (built / "README.md").read_text()
    assert "## Retrieval view" in card and "no earlier relevant issue" in card
    assert f"| test | {kept['test']:,} |" in card


def test_candidates_are_earlier_issues_of_the_same_repository_never_the_query(
    built: Path,
) -> None:
    data = load_split(str(built), "test")
    corpus = data.corpus
    ids, repos, times = corpus["_id"].to_list(), corpus["repo"].to_list(), corpus["created_at"]
    queries = list(_queries(data))
    assert len(queries) == data.queries.height > 0
    for query in queries:
        own = ids.index(query.query_id)
        assert own not in query.candidates.tolist()
        assert all(repos[row] == query.repo for row in query.candidates)
        assert all(times[int(row)] < times[own] for row in query.candidates)
        earlier = [i for i in range(len(ids)) if repos[i] == query.repo and times[i] < times[own]]
        assert query.candidates.tolist() == earlier


def _ranked_by(scores: np.ndarray, rows: list[int]) -> list[int]:
    return [rows[i] for i in sorted(range(len(rows)), key=lambda i: (-scores[i], rows[i]))]


def _metrics(ranked: dict[str, list[str]], relevant: dict[str, set[str]]) -> dict[str, float]:
    """The metrics the long way: per query, then the mean x100."""
    rows = []
    for query, docs in ranked.items():
        hits = [doc in relevant[query] for doc in docs[:20]]
        first = next((i for i, hit in enumerate(hits[:10], 1) if hit), None)
        dcg = sum(1 / math.log2(i + 1) for i, hit in enumerate(hits[:10], 1) if hit)
        ideal = sum(1 / math.log2(i + 1) for i in range(1, min(len(relevant[query]), 10) + 1))
        rows.append(
            [
                *(float(any(hits[:k])) for k in (1, 5, 10, 20)),
                1 / first if first else 0.0,
                dcg / ideal,
            ]
        )
    names = ["recall@1", "recall@5", "recall@10", "recall@20", "mrr@10", "ndcg@10"]
    return dict(zip(names, (np.array(rows).mean(axis=0) * 100).tolist(), strict=True))


def _independent_candidates(built: Path) -> tuple[pl.DataFrame, dict[str, list[int]]]:
    corpus = _frame(built, "corpus")
    queries = _frame(built, "queries").filter(pl.col("split") == "test")
    ids, repos, times = corpus["_id"].to_list(), corpus["repo"].to_list(), corpus["created_at"]
    where = {doc: i for i, doc in enumerate(ids)}
    candidates = {
        q: [
            i
            for i in range(len(ids))
            if repos[i] == repos[where[q]] and times[i] < times[where[q]] and i != where[q]
        ]
        for q in queries["_id"]
    }
    return corpus, candidates


def test_dense_agrees_with_sentence_transformers_and_numpy(
    built: Path, tmp_path: Path, one_torch_thread: None
) -> None:
    from sentence_transformers import SentenceTransformer

    tiny_encoder("avg").save(tmp_path / "model")
    ours = evaluate_retrieval(
        RetrievalConfig(dataset=str(built), method="dense", model=str(tmp_path / "model"))
    )
    corpus, candidates = _independent_candidates(built)
    queries = _frame(built, "queries").filter(pl.col("split") == "test")
    model = SentenceTransformer(str(tmp_path / "model"), device="cpu")
    docs = model.encode(corpus["text"].to_list(), normalize_embeddings=True)
    asked = model.encode(queries["text"].to_list(), normalize_embeddings=True)
    ids = corpus["_id"].to_list()
    ranked = {
        q: [ids[i] for i in _ranked_by(docs[candidates[q]] @ asked[n], candidates[q])]
        for n, q in enumerate(queries["_id"])
    }
    relevant, _, _ = _expected(built)
    expected = _metrics(ranked, relevant)
    assert ours.metrics.queries == len(ranked)
    for name, value in expected.items():
        assert ours.metrics.metrics[name] == pytest.approx(value, abs=0.005)


def test_bm25_ranks_by_the_librarys_own_scores(built: Path) -> None:
    ours = evaluate_retrieval(RetrievalConfig(dataset=str(built), method="bm25"))
    corpus, candidates = _independent_candidates(built)
    queries = _frame(built, "queries").filter(pl.col("split") == "test")
    tokenizer, ids, texts = BM25Tokenizer(), corpus["_id"].to_list(), corpus["text"].to_list()
    ranked: dict[str, list[str]] = {}
    for query, text in queries.select("_id", "text").rows():
        repo = corpus["repo"][ids.index(query)]
        rows = [i for i in range(len(ids)) if corpus["repo"][i] == repo]  # the repo's corpus
        library = bm25s.BM25()
        library.index(tokenizer([texts[i] for i in rows]), show_progress=False)
        scores = library.get_scores(tokenizer([text])[0])
        position = {row: n for n, row in enumerate(rows)}
        wanted = candidates[query]
        order = _ranked_by(np.array([scores[position[i]] for i in wanted]), wanted)
        ranked[query] = [ids[i] for i in order]
    got = {r.query_id: list(r.ranked) for r in ours.rankings}
    assert got == {q: docs[:20] for q, docs in ranked.items()}
    relevant, _, _ = _expected(built)
    assert ours.metrics.metrics == pytest.approx(_metrics(ranked, relevant))


def test_hybrid_fuses_both_rankings(built: Path, one_torch_thread: None, tmp_path: Path) -> None:
    tiny_encoder("avg").save(tmp_path / "model")
    result = evaluate_retrieval(
        RetrievalConfig(dataset=str(built), method="hybrid", model=str(tmp_path / "model"))
    )
    payload = result.to_dict()
    assert payload["method"] == "hybrid" and payload["queries"] == result.metrics.queries > 0
    assert all(0 <= payload[k] <= 100 for k in ("recall@1", "recall@20", "mrr@10", "ndcg@10"))
    assert (
        payload["recall@1"] <= payload["recall@5"] <= payload["recall@10"] <= payload["recall@20"]
    )


def test_the_cli_prints_the_metrics_as_json(built: Path) -> None:
    outcome = run(
        ["evaluate", "--task", "retrieval", "--dataset", str(built), "--method", "bm25", "--json"]
    )
    assert outcome.code == 0, outcome.err
    payload = json.loads(outcome.out)
    for key in ("recall@1", "recall@5", "recall@10", "recall@20", "mrr@10", "ndcg@10"):
        assert 0 <= payload[key] <= 100 and key in payload["intervals"]
    assert payload["split"] == "test" and payload["per_repo"]


def test_a_build_without_the_view_is_refused_with_one_line(built: Path, tmp_path: Path) -> None:
    older = tmp_path / "older"
    shutil.copytree(built, older)
    shutil.rmtree(older / "corpus")
    outcome = run(["evaluate", "--task", "retrieval", "--dataset", str(older), "--method", "bm25"])
    assert outcome.code == DatasetError.exit_code
    assert len(outcome.error_lines) == 1 and "build it again" in outcome.error_lines[0]


def test_a_split_without_queries_is_an_error_and_its_queries_are_counted(tmp_path: Path) -> None:
    """The hand-made store's issues all share one creation time: no duplicate has an earlier
    issue, so every query is left out, counted, and evaluating is refused (exit 6)."""
    out = tmp_path / "build"
    run_build(BuildConfig(store=make_store(tmp_path / "store"), out=out, seed=7))
    stats = json.loads((out / "stats.json").read_text())
    counters = stats["counters"]["retrieval"]
    positives = pl.read_parquet(out / "pairs.parquet").filter(pl.col("label") == 1)
    assert sum(counters[f"{s}_left_out_no_earlier_relevant"] for s in SPLITS) == positives.height
    assert all(counters[f"{s}_queries"] == 0 for s in SPLITS)
    with pytest.raises(DatasetError, match="no retrieval query"):
        load_split(str(out), "test")
    outcome = run(["evaluate", "--task", "retrieval", "--dataset", str(out), "--method", "bm25"])
    assert outcome.code == DatasetError.exit_code and len(outcome.error_lines) == 1


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--method", "tfidf"], "--method must be"),
        (["--plot", "x.png"], "--max-pairs and --plot"),
        (["--split", "nope"], "no retrieval split"),
    ],
)
def test_bad_retrieval_options_are_usage_errors(built: Path, args: list[str], needle: str) -> None:
    outcome = run(["evaluate", "--task", "retrieval", "--dataset", str(built), *args])
    assert outcome.code == 2 and needle in outcome.error_lines[0]
