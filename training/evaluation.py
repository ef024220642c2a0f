"""Evaluation like the paper: Spearman x100 between cosine similarity and label.

`similarity_metrics(scores, labels)` is the pure part; `SimilarityEvaluator` embeds a split
with any encoder and returns `dict[str, float]` whose primary metric is `spearman`
(computed exactly like the reference evaluator: ``1 - paired_cosine_distances`` then
``scipy.stats.spearmanr``). Pearson, ROC-AUC and best-threshold accuracy/F1 serve users who
treat the task as duplicate detection.
"""

from __future__ import annotations

import math
import warnings
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np
import torch
from scipy.stats import pearsonr, spearmanr
from sklearn.metrics import roc_auc_score
from sklearn.metrics.pairwise import paired_cosine_distances

from issues_sts.errors import TrainingError
from training.data import PairSet
from training.models.base import Encoder

PRIMARY_METRIC = "spearman"


def best_accuracy(scores: np.ndarray, positive: np.ndarray) -> tuple[float, float]:
    """Highest accuracy of `score >= threshold` over all thresholds, and that threshold."""
    order = np.argsort(-scores, kind="stable")
    ranked, truth = scores[order], positive[order]
    # Predict positive for the first k rows: correct = positives among them + negatives after.
    true_pos = np.concatenate([[0], np.cumsum(truth)])
    neg_after = (~truth).sum() - np.concatenate([[0], np.cumsum(~truth)])
    correct = true_pos + neg_after
    cut = _valid_cuts(ranked)
    k = int(cut[np.argmax(correct[cut])])
    return float(correct[k] / len(scores)), _threshold(ranked, k)


def best_f1(scores: np.ndarray, positive: np.ndarray) -> tuple[float, float, float, float]:
    """Highest F1 over thresholds: (f1, precision, recall, threshold)."""
    order = np.argsort(-scores, kind="stable")
    ranked, truth = scores[order], positive[order]
    true_pos = np.concatenate([[0], np.cumsum(truth)]).astype(float)
    predicted = np.arange(len(ranked) + 1, dtype=float)
    total_pos = max(float(truth.sum()), 1.0)
    precision = np.divide(true_pos, predicted, out=np.zeros_like(true_pos), where=predicted > 0)
    recall = true_pos / total_pos
    f1 = np.divide(
        2 * precision * recall,
        precision + recall,
        out=np.zeros_like(true_pos),
        where=(precision + recall) > 0,
    )
    cut = _valid_cuts(ranked)
    k = int(cut[np.argmax(f1[cut])])
    return float(f1[k]), float(precision[k]), float(recall[k]), _threshold(ranked, k)


def _valid_cuts(ranked: np.ndarray) -> np.ndarray:
    # A threshold can only fall between two different scores (or before/after all).
    ends = np.flatnonzero(np.diff(ranked) != 0) + 1
    return np.concatenate([[0], ends, [len(ranked)]])


def _threshold(ranked: np.ndarray, k: int) -> float:
    if k == 0:
        return float(ranked[0]) + 1e-6
    if k == len(ranked):
        return float(ranked[-1])
    return float((ranked[k - 1] + ranked[k]) / 2)


def similarity_metrics(scores: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    """All metrics of cosine `scores` against `labels` (x100 for the correlations).

    Never NaN: labels of one value, or scores that are all equal (a collapsed model), leave the
    correlations undefined, and that is a TrainingError saying so, not a NaN in a table or in
    JSON. scipy's warnings about it are not passed on."""
    scores = np.asarray(scores, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.float64)
    positive = (
        labels >= 0.5 if set(np.unique(labels)) <= {0.0, 1.0} else labels >= np.median(labels)
    )
    if not 0 < positive.sum() < len(positive):
        raise TrainingError(
            f"all {len(labels)} pairs carry one label: the metrics are undefined",
            hint="evaluate pairs with both labels",
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant input: reported below, in one line
        metrics = {
            "spearman": float(spearmanr(labels, scores)[0]) * 100,
            "pearson": float(pearsonr(labels, scores)[0]) * 100,
            "roc_auc": float(roc_auc_score(positive, scores)),
        }
    if any(math.isnan(v) for v in metrics.values()):
        raise TrainingError(
            f"the model gives all {len(scores)} pairs the same similarity "
            f"({float(scores[0]):.4f}): the correlations are undefined",
            hint="check the model (a collapsed or untrained head?) and its --pooling",
        )
    accuracy, accuracy_threshold = best_accuracy(scores, positive)
    f1, precision, recall, f1_threshold = best_f1(scores, positive)
    metrics.update(
        accuracy=accuracy,
        accuracy_threshold=accuracy_threshold,
        f1=f1,
        precision=precision,
        recall=recall,
        f1_threshold=f1_threshold,
        pairs=float(len(scores)),
    )
    return metrics


@torch.no_grad()
def embed(
    encoder: Encoder,
    texts: list[str],
    batch_size: int = 64,
    max_length: int | None = None,
    device: torch.device | None = None,
    bf16: bool = False,
) -> np.ndarray:
    """Embeddings of `texts` in input order (batched longest-first to waste less padding)."""
    device = device or next(encoder.parameters()).device
    was_training = encoder.training
    encoder.eval()
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    chunks: list[np.ndarray] = []
    autocast = torch.autocast(device.type, dtype=torch.bfloat16) if bf16 else nullcontext()
    for start in range(0, len(order), batch_size):
        batch = [texts[i] for i in order[start : start + batch_size]]
        features = {k: v.to(device) for k, v in encoder.tokenize(batch, max_length).items()}
        with autocast:
            output = encoder(features)["sentence_embedding"]
        chunks.append(output.float().cpu().numpy())
    encoder.train(was_training)
    stacked = np.concatenate(chunks) if chunks else np.zeros((0, encoder.embedding_dim))
    result = np.empty_like(stacked)
    result[order] = stacked
    return result


def cosine_scores(
    encoder: Encoder,
    pairs: PairSet,
    batch_size: int = 64,
    max_length: int | None = None,
    bf16: bool = False,
) -> np.ndarray:
    """``1 - paired_cosine_distance`` of each pair, as the reference evaluator computes it."""
    embeddings = embed(encoder, pairs.text1 + pairs.text2, batch_size, max_length, bf16=bf16)
    first, second = embeddings[: len(pairs)], embeddings[len(pairs) :]
    return 1 - paired_cosine_distances(first, second)


@dataclass
class SimilarityEvaluator:
    """Callable evaluator: ``evaluator(encoder) -> {"spearman": ..., ...}``."""

    pairs: PairSet
    name: str = "valid"
    batch_size: int = 64
    max_length: int | None = None
    bf16: bool = False
    primary_metric: str = PRIMARY_METRIC

    def __call__(self, encoder: Encoder) -> dict[str, float]:
        scores = cosine_scores(encoder, self.pairs, self.batch_size, self.max_length, self.bf16)
        self.last_scores = scores
        return similarity_metrics(scores, self.pairs.labels)
