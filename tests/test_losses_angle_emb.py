"""The AnglE objective against the paper authors' own library, `angle_emb` (0.6.1), on
random batches: each objective and the weighted total, at the paper's setting and at the
library's current defaults (the `angle-emb-0.6.1` preset)."""

from __future__ import annotations

import warnings

import pytest
import torch

with warnings.catch_warnings():  # bitsandbytes (imported by angle_emb) warns about CPU kernels
    warnings.simplefilter("ignore")
    angle_emb = pytest.importorskip(
        "angle_emb", reason="angle-emb is a dev dependency (make install)"
    )
    from angle_emb import AngleLoss
    from angle_emb import loss as reference

from training.losses import (
    LOSS_PRESETS,
    AnglELoss,
    LossConfig,
    angle_objective,
    cosine_objective,
    in_batch_negative_objective,
)

SEEDS = range(6)


def random_batch(
    seed: int, pairs: int = 12, dim: int = 48, graded: bool = False
) -> tuple[torch.Tensor, torch.Tensor]:
    """Zigzag rows in float64 (so that 'equal' means equal up to the last few bits)."""
    generator = torch.Generator().manual_seed(seed)
    rows = torch.randn(2 * pairs, dim, generator=generator, dtype=torch.float64)
    if graded:
        labels = torch.randint(0, 6, (pairs,), generator=generator).double()
    else:
        labels = torch.randint(0, 2, (pairs,), generator=generator).double()
        labels[0], labels[1] = 0.0, 1.0  # both kinds in every batch
    return rows, labels.repeat_interleave(2)


def exact(ours: torch.Tensor, theirs: torch.Tensor) -> None:
    torch.testing.assert_close(ours, theirs.to(ours.dtype), rtol=1e-12, atol=1e-12)


def test_the_installed_oracle_is_the_release_we_pin() -> None:
    assert angle_emb.__version__ == "0.6.1"


@pytest.mark.parametrize("seed", SEEDS)
def test_each_objective_equals_angle_emb_at_the_papers_temperatures(seed: int) -> None:
    rows, labels = random_batch(seed, graded=seed % 2 == 1)
    column = labels[:, None]
    # the library multiplies by a scale (20, 20, 1); the paper and we divide by tau (0.05, 0.05, 1)
    exact(cosine_objective(rows, labels, 0.05), reference.cosine_loss(column, rows, tau=20.0))
    exact(angle_objective(rows, labels, 1.0), reference.angle_loss(column, rows, tau=1.0))
    binary, binary_labels = random_batch(seed)  # the library's in-batch targets need 0/1 labels
    exact(
        in_batch_negative_objective(binary, binary_labels, 0.05),
        reference.in_batch_negative_loss(binary_labels[:, None], binary, tau=20.0),
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_the_papers_weighted_total_equals_angle_emb(seed: int) -> None:
    rows, labels = random_batch(seed)
    theirs = AngleLoss(
        cosine_w=1.0,
        ibn_w=1.0,
        angle_w=1.0,
        cosine_tau=20.0,
        ibn_tau=20.0,
        angle_tau=1.0,
        dataset_format="A",
    )(labels[:, None], rows)
    paper = LOSS_PRESETS["paper"]
    assert (
        paper.w_cos,
        paper.w_ibn,
        paper.w_angle,
        paper.cos_tau,
        paper.ibn_tau,
        paper.angle_tau,
    ) == (1.0, 1.0, 1.0, 0.05, 0.05, 1.0)
    # identical-text detection changes nothing when every text in the batch is distinct
    distinct = torch.arange(rows.shape[0])
    exact(AnglELoss(config=paper).compute_loss_from_embeddings(rows, labels, distinct), theirs)
    exact(
        AnglELoss(
            config=paper.model_copy(update={"identical_detection": False})
        ).compute_loss_from_embeddings(rows, labels),
        theirs,
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_the_angle_emb_preset_equals_the_librarys_current_defaults(seed: int) -> None:
    rows, labels = random_batch(seed)
    theirs = AngleLoss(dataset_format="A")  # cosine_w 0, ibn_w 1, angle_w 0.02, every tau 20
    assert (theirs.cosine_w, theirs.ibn_w, theirs.angle_w) == (0.0, 1.0, 0.02)
    ours = AnglELoss(config=LOSS_PRESETS["angle-emb-0.6.1"])
    exact(ours.compute_loss_from_embeddings(rows, labels), theirs(labels[:, None], rows))


def test_the_presets_differ_where_the_library_changed() -> None:
    rows, labels = random_batch(0)
    paper = AnglELoss(config=LossConfig()).compute_loss_from_embeddings(rows, labels)
    current = AnglELoss(config=LOSS_PRESETS["angle-emb-0.6.1"]).compute_loss_from_embeddings(
        rows, labels
    )
    assert not torch.allclose(paper, current)
