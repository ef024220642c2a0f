"""The AnglE objectives against naive loops written from the paper's formulas, and against
sentence-transformers where the definitions coincide."""

from __future__ import annotations

import math

import pytest
import torch
from sentence_transformers.sentence_transformer.losses import AnglELoss as STAnglELoss
from sentence_transformers.sentence_transformer.losses import (
    CoSENTLoss,
    MultipleNegativesRankingLoss,
)
from sentence_transformers.util import pairwise_angle_sim

from training.losses import (
    AnglELoss,
    LossConfig,
    angle_objective,
    angle_similarity,
    cosine_objective,
    in_batch_negative_objective,
)


def zigzag(pairs: int = 4, dim: int = 6, seed: int = 0) -> torch.Tensor:
    return torch.randn(
        2 * pairs, dim, generator=torch.Generator().manual_seed(seed), dtype=torch.float64
    )


def both_rows(pair_labels: list[float]) -> torch.Tensor:
    return torch.tensor(pair_labels, dtype=torch.float64).repeat_interleave(2)


def cos(u: torch.Tensor, v: torch.Tensor) -> float:
    return float(u @ v) / math.sqrt(float(u @ u) * float(v @ v))


def naive_ranking(scores: list[float], labels: list[float], tau: float) -> float:
    """log[1 + sum over (ij, mn) with s(ij) > s(mn) of exp((score_mn - score_ij) / tau)]."""
    total = 1.0
    for ij in range(len(scores)):
        for mn in range(len(scores)):
            if labels[ij] > labels[mn]:
                total += math.exp((scores[mn] - scores[ij]) / tau)
    return math.log(total)


def naive_angle_score(x: torch.Tensor, y: torch.Tensor) -> float:
    """The paper's z / w with gamma over whole vectors, real + imaginary summed, abs."""
    half = x.shape[0] // 2
    z = [complex(float(x[k]), float(x[k + half])) for k in range(half)]
    w = [complex(float(y[k]), float(y[k + half])) for k in range(half)]
    norm_z = math.sqrt(sum(abs(v) ** 2 for v in z))
    norm_w = math.sqrt(sum(abs(v) ** 2 for v in w))
    total = 0.0
    for zk, wk in zip(z, w, strict=True):
        quotient = zk * wk.conjugate() / norm_w**2  # (ac + bd) + (bc - ad)i over |w|^2
        quotient /= norm_z / norm_w  # times 1 / gamma
        total += quotient.real + quotient.imag
    return abs(total)


def naive_ibn(
    rows: torch.Tensor, labels: list[float], tau: float, texts: list[str] | None
) -> float:
    """-log softmax of each row's targets among all other rows, averaged over all rows."""
    count = rows.shape[0]
    loss = 0.0
    for r in range(count):
        denominator = sum(math.exp(cos(rows[r], rows[j]) / tau) for j in range(count) if j != r)
        targets = [r ^ 1] if labels[r] >= 1 else []
        if texts is not None:
            targets += [j for j in range(count) if j != r and texts[j] == texts[r]]
        for t in targets:
            loss -= math.log(math.exp(cos(rows[r], rows[t]) / tau) / denominator)
    return loss / count


torch.set_num_threads(1)  # shared 2-core machine: contention makes more threads slower

PAIR_LABELS = [1.0, 0.0, 1.0, 0.0]
GRADED = [0.9, 0.1, 0.5, 0.5]


@pytest.mark.parametrize("labels", [PAIR_LABELS, GRADED])
def test_cosine_objective_matches_naive_loop(labels: list[float]) -> None:
    rows = zigzag()
    scores = [cos(rows[2 * i], rows[2 * i + 1]) for i in range(4)]
    expected = naive_ranking(scores, labels, 0.05)
    assert float(cosine_objective(rows, both_rows(labels), 0.05)) == pytest.approx(
        expected, rel=1e-9
    )


@pytest.mark.parametrize("labels", [PAIR_LABELS, GRADED])
def test_angle_objective_matches_naive_loop(labels: list[float]) -> None:
    rows = zigzag(dim=8, seed=1)
    scores = [naive_angle_score(rows[2 * i], rows[2 * i + 1]) for i in range(4)]
    expected = naive_ranking(scores, labels, 1.0)
    assert float(angle_objective(rows, both_rows(labels), 1.0)) == pytest.approx(expected, rel=1e-9)


def test_angle_similarity_reads_as_cosine_plus_sine() -> None:
    rows = zigzag(dim=8, seed=2)
    ours = angle_similarity(rows[0::2], rows[1::2])
    naive = [naive_angle_score(rows[2 * i], rows[2 * i + 1]) for i in range(4)]
    assert ours.tolist() == pytest.approx(naive, rel=1e-9)
    # Same vector: z / w = 1 after normalisation, the highest similarity.
    assert float(angle_similarity(rows[:1], rows[:1])) == pytest.approx(1.0)
    # sentence-transformers computes the same score as |cos + sin| (no objective difference).
    assert ours.tolist() == pytest.approx(
        pairwise_angle_sim(rows[0::2], rows[1::2]).tolist(), rel=1e-9
    )


def test_angle_similarity_pads_odd_dimensions() -> None:
    rows = zigzag(dim=7, seed=3)
    assert angle_similarity(rows[0::2], rows[1::2]).shape == (4,)


@pytest.mark.parametrize("objective", [cosine_objective, angle_objective])
def test_ranking_objectives_are_exactly_zero_when_all_labels_are_equal(objective) -> None:
    rows = zigzag(seed=4)
    for value in (0.0, 1.0):
        assert float(objective(rows, both_rows([value] * 4))) == 0.0


def test_in_batch_negatives_match_naive_loop_with_identical_texts() -> None:
    rows = zigzag(seed=5)
    labels = [1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]
    texts = ["a", "b", "c", "a", "e", "f", "g", "c"]  # row 3 repeats row 0, row 7 repeats row 2
    ids = torch.tensor([ord(t) for t in texts])
    ours = in_batch_negative_objective(rows, torch.tensor(labels), 0.05, ids)
    assert float(ours) == pytest.approx(naive_ibn(rows, labels, 0.05, texts), rel=1e-9)
    without = in_batch_negative_objective(rows, torch.tensor(labels), 0.05, None)
    assert float(without) == pytest.approx(naive_ibn(rows, labels, 0.05, None), rel=1e-9)


def test_identical_texts_are_pulled_together_not_pushed_apart() -> None:
    rows = zigzag(seed=6).requires_grad_(True)
    labels = torch.tensor([1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0])
    ids = torch.tensor([1, 2, 3, 1, 5, 6, 7, 8])  # row 3 holds the same text as row 0
    in_batch_negative_objective(rows, labels, 0.05, ids).backward()
    grad_detected = rows.grad[3].clone()
    rows.grad = None
    in_batch_negative_objective(rows, labels, 0.05, None).backward()
    toward_row0 = rows[0].detach() / rows[0].detach().norm()
    # Gradient descent moves row 3 along -grad: toward row 0 only with detection on.
    assert float(-grad_detected @ toward_row0) > 0
    assert float(-rows.grad[3] @ toward_row0) < 0


def test_in_batch_negatives_coincide_with_symmetric_mnrl_on_all_positive_batches() -> None:
    # Where they coincide: every pair positive, no repeated text. Our rows 2i rank their
    # partner against all other rows = MNRL(query_to_doc + query_to_query, joint softmax) on
    # (text1, text2); rows 2i+1 the same with the columns swapped; we average all rows.
    # They differ otherwise: MNRL has no labels (negative pairs would become positives) and
    # no identical-text detection.
    rows = zigzag(seed=7)
    mnrl = MultipleNegativesRankingLoss(
        None, scale=20.0, directions=("query_to_doc", "query_to_query")
    )
    forward = mnrl.compute_loss_from_embeddings([rows[0::2], rows[1::2]], None)
    backward = mnrl.compute_loss_from_embeddings([rows[1::2], rows[0::2]], None)
    ours = in_batch_negative_objective(rows, torch.ones(8), 0.05, torch.arange(8))
    assert float(ours) == pytest.approx(float((forward + backward) / 2), rel=1e-6)


@pytest.mark.parametrize("labels", [PAIR_LABELS, GRADED])
def test_cosine_objective_coincides_with_sentence_transformers_cosent(labels: list[float]) -> None:
    rows = zigzag(seed=8)
    theirs = CoSENTLoss(None, scale=20.0).compute_loss_from_embeddings(
        [rows[0::2], rows[1::2]], torch.tensor(labels)
    )
    assert float(cosine_objective(rows, both_rows(labels), 0.05)) == pytest.approx(
        float(theirs), rel=1e-6
    )


def test_angle_objective_coincides_with_sentence_transformers_angle_at_scale_one() -> None:
    # They differ by default: sentence-transformers' AnglELoss uses scale 20 (tau 0.05), the
    # paper and its reference use tau 1.0 for the angle objective; with scale=1 they coincide.
    rows = zigzag(dim=8, seed=9)
    labels = torch.tensor(GRADED)
    theirs = STAnglELoss(None, scale=1.0).compute_loss_from_embeddings(
        [rows[0::2], rows[1::2]], labels
    )
    assert float(angle_objective(rows, both_rows(GRADED), 1.0)) == pytest.approx(
        float(theirs), rel=1e-6
    )
    default = STAnglELoss(None).compute_loss_from_embeddings([rows[0::2], rows[1::2]], labels)
    assert float(default) != pytest.approx(float(theirs), rel=1e-3)


def test_total_is_the_weighted_sum_and_zero_weights_are_skipped() -> None:
    rows, labels = zigzag(seed=10).float(), both_rows(PAIR_LABELS).float()
    ids = torch.arange(8)
    config = LossConfig(w_cos=0.5, w_ibn=2.0, w_angle=3.0)
    loss = AnglELoss(config=config)
    parts = loss.components(rows, labels, ids)
    expected = 0.5 * parts["cos"] + 2.0 * parts["ibn"] + 3.0 * parts["angle"]
    assert float(loss.compute_loss_from_embeddings(rows, labels, ids)) == pytest.approx(
        float(expected)
    )
    only_cos = AnglELoss(config=LossConfig(w_ibn=0, w_angle=0))
    assert set(only_cos.components(rows, labels, ids)) == {"cos"}
    assert loss.get_config_dict()["w_angle"] == 3.0
    with pytest.raises(ValueError):
        AnglELoss(config=LossConfig(w_cos=0, w_ibn=0, w_angle=0)).compute_loss_from_embeddings(
            rows, labels
        )


def test_paper_defaults() -> None:
    config = LossConfig()
    assert (config.w_cos, config.w_ibn, config.w_angle) == (1.0, 1.0, 1.0)
    assert (config.cos_tau, config.ibn_tau, config.angle_tau) == (0.05, 0.05, 1.0)
    assert config.identical_detection


def test_gathered_in_batch_loss_logs_its_value_and_scales_only_its_gradient(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Under DDP with gathering, each rank's gradient must be world-size times the local one
    # (DDP averages), but the logged loss must stay the loss of the whole batch.
    from training import losses

    monkeypatch.setattr(losses, "world_size", lambda: 4)
    monkeypatch.setattr(losses, "gather_rows", lambda tensor: tensor)
    rows = torch.randn(8, 6, dtype=torch.float64, requires_grad=True)
    labels = torch.tensor([1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0], dtype=torch.float64)
    gathered = AnglELoss(config=LossConfig(w_cos=0.0, w_angle=0.0)).components(rows, labels)["ibn"]
    plain = losses.in_batch_negative_objective(rows, labels, 0.05)
    assert gathered.item() == pytest.approx(plain.item(), rel=1e-12)
    (grad_gathered,) = torch.autograd.grad(gathered, rows)
    (grad_plain,) = torch.autograd.grad(plain, rows)
    torch.testing.assert_close(grad_gathered, 4 * grad_plain)
