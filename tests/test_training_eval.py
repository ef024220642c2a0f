"""The evaluator against scipy/sklearn, thresholds against brute force, and the plot."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import pearsonr, spearmanr
from sklearn.metrics import f1_score, roc_auc_score
from sklearn.metrics.pairwise import paired_cosine_distances

from issues_sts.errors import ConfigError, TrainingError
from tests.test_training_support import tiny_encoder
from training.data import PairSet
from training.evaluation import SimilarityEvaluator, best_accuracy, best_f1, similarity_metrics
from training.plots import plot_similarity_density


def brute_force(scores: np.ndarray, positive: np.ndarray) -> tuple[float, float]:
    candidates = np.concatenate([np.unique(scores), [scores.max() + 1]])
    accuracy = max(float(np.mean((scores >= t) == positive)) for t in candidates)
    f1 = max(float(f1_score(positive, scores >= t, zero_division=0)) for t in candidates)
    return accuracy, f1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-5, 5), st.booleans()), min_size=2, max_size=30))
def test_best_thresholds_match_brute_force(rows: list[tuple[int, bool]]) -> None:
    scores = np.array([r[0] / 5 for r in rows])
    positive = np.array([r[1] for r in rows])
    accuracy, threshold = best_accuracy(scores, positive)
    f1, _, _, f1_threshold = best_f1(scores, positive)
    expected_accuracy, expected_f1 = brute_force(scores, positive)
    assert accuracy == pytest.approx(expected_accuracy)
    assert f1 == pytest.approx(expected_f1)
    # The reported thresholds really achieve the reported values.
    assert float(np.mean((scores >= threshold) == positive)) == pytest.approx(accuracy)
    assert float(f1_score(positive, scores >= f1_threshold, zero_division=0)) == pytest.approx(f1)


def test_metrics_match_scipy_and_sklearn() -> None:
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, 200).astype(float)
    scores = labels * 0.3 + rng.normal(0, 0.3, 200)
    scores[:10] = scores[10:20]  # ties, which spearmanr ranks by averaging
    metrics = similarity_metrics(scores, labels)
    assert metrics["spearman"] == pytest.approx(spearmanr(labels, scores)[0] * 100)
    assert metrics["pearson"] == pytest.approx(pearsonr(labels, scores)[0] * 100)
    assert metrics["roc_auc"] == pytest.approx(roc_auc_score(labels, scores))


def test_evaluator_is_one_minus_paired_cosine_distance_with_spearmanr() -> None:
    encoder = tiny_encoder("avg").eval()
    pairs = PairSet(
        [
            "cargo crash",
            "borrow checker error",
            "async trait",
            "macro panic on nightly",
            "doc typo",
        ],
        ["cargo crash on build", "lifetime error", "async trait object", "docs", "doc typo fix"],
        np.array([1, 0, 1, 0, 1], dtype=np.float32),
    )
    metrics = SimilarityEvaluator(pairs, "test", batch_size=2)(encoder)
    with torch.no_grad():  # one text at a time: no batching, no padding
        single = [
            encoder(encoder.tokenize([t]))["sentence_embedding"][0].numpy()
            for t in pairs.text1 + pairs.text2
        ]
    first, second = np.stack(single[:5]), np.stack(single[5:])
    expected = spearmanr(pairs.labels, 1 - paired_cosine_distances(first, second))[0] * 100
    assert metrics["spearman"] == pytest.approx(expected, abs=1e-4)
    assert {"pearson", "roc_auc", "accuracy", "f1", "accuracy_threshold"} <= set(metrics)


def test_density_plot_is_a_png(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    labels = np.array([0, 1] * 20, dtype=float)
    path = plot_similarity_density(rng.random(40), labels, tmp_path / "plots" / "density.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# -- evaluate never reports what cannot be computed ---------------------------------------


def _pairs(labels: list[int]) -> PairSet:
    return PairSet([f"a{i}" for i in labels], [f"b{i}" for i in labels], np.array(labels, float))


@pytest.mark.parametrize(
    ("labels", "count", "kept"),
    [
        ([0, 0, 0, 0, 0, 0, 1, 1], 4, [0, 0, 0, 1]),  # the first rows alone are all negatives
        ([0, 0, 0, 0, 0, 0, 1, 1], 2, [0, 1]),  # each label at least once
        ([1, 0, 1, 0, 1, 0], 4, [1, 0, 1, 0]),  # in the split's order
        ([0, 1, 0, 1], 10, [0, 1, 0, 1]),  # more than the split: all of it
        ([1, 1, 1], 2, [1, 1]),  # one label: the sample too (refused by the caller)
    ],
)
def test_stratified_sample_keeps_both_labels(
    labels: list[int], count: int, kept: list[int]
) -> None:
    sample = _pairs(labels).stratified(count)
    assert sample.labels.tolist() == kept and len(sample) == min(count, len(labels))
    assert set(sample.text1) <= set(_pairs(labels).text1)


def test_a_sample_of_one_label_is_refused() -> None:
    with pytest.raises(TrainingError, match="only label 1 pairs .*need both labels"):
        _pairs([1, 1, 1]).require_both_labels("split 'test'")
    with pytest.raises(TrainingError, match="one label"):
        similarity_metrics(np.array([0.1, 0.5, 0.9]), np.array([0.0, 0.0, 0.0]))


def test_constant_scores_are_an_error_not_nan_and_no_scipy_warning(
    recwarn: pytest.WarningsRecorder,
) -> None:
    with pytest.raises(TrainingError, match="same similarity") as caught:
        similarity_metrics(np.full(6, 0.25), np.array([0, 1, 0, 1, 0, 1], float))
    assert "nan" not in caught.value.one_line().lower()
    assert not [w for w in recwarn if "scipy" in str(w.filename)]


def test_evaluate_draws_a_stratified_sample_and_writes_valid_json(tmp_path: Path) -> None:
    from tests.test_training_support import make_pairs_folder
    from training.api import evaluate

    data = make_pairs_folder(tmp_path / "d", {"train": 4, "test": 12})
    model = tmp_path / "model"
    tiny_encoder("avg").save(model)
    out = tmp_path / "metrics.json"
    metrics = evaluate(str(model), str(data), "test", max_pairs=3, output=out)
    assert metrics["pairs"] == 3.0
    assert json.loads(out.read_text(), parse_constant=_no_constants) == metrics
    for split in ("validation", "nonsense"):
        with pytest.raises(ConfigError, match=f"no split '{split}'"):
            evaluate(str(model), str(data), split)


def _no_constants(name: str) -> float:
    raise AssertionError(f"{name} in JSON")
