"""The built dataset as an MTEB pair-classification task, run offline on a local folder:
MTEB's cosine average precision equals the one computed from this project's own cosines."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import average_precision_score

from tests.test_training_support import make_pairs_folder, tiny_encoder
from training.data import load_pairs
from training.evaluation import cosine_scores
from training.models import load_encoder

mteb = pytest.importorskip("mteb", reason="mteb is a dev dependency")


@pytest.mark.slow  # importing mteb takes tens of seconds on a loaded machine
def test_a_local_build_scores_as_an_mteb_task(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sentence_transformers import SentenceTransformer

    from training.mteb_task import TASK_NAME, github_issue_similarity_task

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    data = make_pairs_folder(tmp_path / "pairs", {"test": 24})
    tiny_encoder("avg").save(tmp_path / "model")
    task = github_issue_similarity_task(data, max_pairs=20)
    model = SentenceTransformer(str(tmp_path / "model"), device="cpu")
    result = mteb.evaluate(model, task, cache=None, show_progress_bar=False)
    scores = result.task_results[0].scores["test"][0]
    assert result.task_results[0].task_name == TASK_NAME

    pairs = load_pairs(str(data), "test", 20)
    ours = cosine_scores(load_encoder(tmp_path / "model"), pairs)
    expected = average_precision_score(pairs.labels.astype(int), ours)
    assert scores["cosine_ap"] == pytest.approx(expected, abs=1e-6)
    assert scores["main_score"] == scores["max_ap"] and np.isfinite(scores["max_f1"])


@pytest.mark.slow  # importing mteb takes tens of seconds on a loaded machine
def test_the_retrieval_view_scores_as_an_mteb_retrieval_task(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, one_torch_thread: None
) -> None:
    """MTEB ranks exactly the protocol's candidates: its hit rate, MRR@10 and nDCG@10 are
    `evaluate --task retrieval`'s recall@k, mrr@10 and ndcg@10 for the same saved model."""
    from sentence_transformers import SentenceTransformer

    from issues_sts.retrieval.evaluate import RetrievalConfig, evaluate_retrieval
    from tests.retrieval_support import world_build
    from training.mteb_task import RETRIEVAL_TASK_NAME, github_issue_retrieval_task

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    built = world_build(tmp_path, repos=2, issues_per_repo=200)
    tiny_encoder("avg").save(tmp_path / "model")
    task = github_issue_retrieval_task(built, "train")
    model = SentenceTransformer(str(tmp_path / "model"), device="cpu")
    result = mteb.evaluate(model, task, cache=None, show_progress_bar=False)
    scores = result.task_results[0].scores["train"][0]
    assert result.task_results[0].task_name == RETRIEVAL_TASK_NAME

    ours = evaluate_retrieval(
        RetrievalConfig(dataset=str(built), split="train", model=str(tmp_path / "model"))
    ).metrics.metrics
    for k in (1, 5, 10, 20):
        assert scores[f"hit_rate_at_{k}"] * 100 == pytest.approx(ours[f"recall@{k}"], abs=0.01)
    assert scores["mrr_at_10"] * 100 == pytest.approx(ours["mrr@10"], abs=0.01)
    assert scores["ndcg_at_10"] * 100 == pytest.approx(ours["ndcg@10"], abs=0.01)
    assert scores["main_score"] == scores["ndcg_at_10"]
