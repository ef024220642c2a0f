r"""The AnglE objective (Li & Li, "AnglE: Angle-optimized Text Embeddings", section 3).

Batches use the **zigzag layout**: row ``2i`` is a pair's ``text1``, row ``2i + 1`` its
``text2``, and the pair's label sits on both rows. Every objective reads that layout.

- ``cosine_objective`` (CoSENT):
  :math:`\log[1 + \sum_{s(i,j) > s(m,n)} e^{(\cos_{mn} - \cos_{ij})/\tau}]`, tau 0.05.
- ``in_batch_negative_objective``: each row of a positive pair must pick its partner among
  all other rows (cosine / tau, diagonal excluded), tau 0.05; rows holding an identical text
  are extra targets rather than negatives (identical-sentence detection).
- ``angle_objective``: the same ranking form over ``angle_similarity``, tau 1.0.
- ``AnglELoss``: ``w_cos * cos + w_ibn * ibn + w_angle * angle``; w = 1, 1, 1 by default.

The defaults reproduce the paper's setting and the reference implementation of its time
(``angle-emb`` 0.1.x, Oct 2023), where ``tau`` is a *temperature*: scores are divided by it
(the reference multiplies by its inverse, ``cosine_tau=20``, ``ibn_tau=20``,
``angle_tau=1.0``). Later releases changed weights (w3 = 0.02/1.0 ...), taus and dropped
duplicate texts from batches instead of detecting them; none of that is reproduced here.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

# The objective's settings live with the other configs, torch-free, where the CLI reads its
# defaults; LOSS_PRESETS is still importable from here.
from training.config import LOSS_PRESETS as LOSS_PRESETS
from training.config import LossConfig
from training.distributed import gather_rows, world_size


def full_precision(tensor: torch.Tensor) -> torch.Tensor:
    """Half-precision embeddings (bf16 autocast) are scored in float32; float64 stays."""
    return tensor.float() if tensor.dtype in (torch.float16, torch.bfloat16) else tensor


def pair_labels(labels: torch.Tensor) -> torch.Tensor:
    """One label per pair from zigzag labels ([2B] or [2B, 1] -> [B])."""
    return labels.reshape(-1)[::2]


def pair_cosine(embeddings: torch.Tensor) -> torch.Tensor:
    """Cosine similarity of each zigzag pair ([2B, D] -> [B])."""
    return F.cosine_similarity(embeddings[0::2], embeddings[1::2], dim=-1)


def angle_similarity(x: torch.Tensor, y: torch.Tensor, eps: float = 1e-12) -> torch.Tensor:
    r"""The reference's absolute normalised angle score of pairs of rows ([B, D] x2 -> [B]).

    Each vector is split by chunking into a real half ``a`` (``c``) and an imaginary half
    ``b`` (``d``), giving complex vectors ``z = a + bi`` and ``w = c + di``. The paper's
    division ``z / w = ((ac + bd) + (bc - ad)i) / (c^2 + d^2)`` normalised by
    ``1 / gamma`` with ``gamma = r_z / r_w`` is computed, as in the reference, with the
    magnitudes taken over the **whole vector** (``r_z = ||X_i||``, ``r_w = ||X_j||``), so
    each complex dimension contributes ``(ac + bd) / (r_z r_w)`` and ``(bc - ad) / (r_z r_w)``.
    The reference then **sums real and imaginary parts over all dimensions** and takes the
    absolute value; this equals ``|cos(X_i, X_j) + sum(bc - ad) / (r_z r_w)|``.

    How it reads the paper's notation: the paper writes this quantity as
    :math:`\Delta\theta_{zw}` and asks it to be *smaller* for more similar pairs, but the
    reference treats it as a *similarity* that higher-labelled pairs should exceed (it is 1
    for identical vectors). ``angle_objective`` follows the reference, i.e. it uses
    :math:`\Delta\theta = -\text{angle\_similarity}` in the paper's formula.
    """
    if x.shape[-1] % 2:
        x, y = F.pad(x, (0, 1)), F.pad(y, (0, 1))
    a, b = torch.chunk(x, 2, dim=-1)
    c, d = torch.chunk(y, 2, dim=-1)
    norms = (x.norm(dim=-1) * y.norm(dim=-1)).clamp(min=eps)
    real = (a * c + b * d).sum(dim=-1) / norms
    imaginary = (b * c - a * d).sum(dim=-1) / norms
    return (real + imaginary).abs()


def ranking_loss(scores: torch.Tensor, labels: torch.Tensor, tau: float) -> torch.Tensor:
    r""":math:`\log[1 + \sum_{y_{ij} > y_{mn}} e^{(s_{mn} - s_{ij})/\tau}]` over pairs.

    Exactly 0 when every pair has the same label (no ordered couple exists).
    """
    scaled = full_precision(scores) / tau
    differences = scaled[:, None] - scaled[None, :]  # [low, high] = s_low - s_high
    ordered = labels[:, None] < labels[None, :]
    terms = differences.masked_fill(~ordered, float("-inf")).reshape(-1)
    return torch.logsumexp(torch.cat([terms.new_zeros(1), terms]), dim=0)


def cosine_objective(
    embeddings: torch.Tensor, labels: torch.Tensor, tau: float = 0.05
) -> torch.Tensor:
    """CoSENT over zigzag rows: higher-labelled pairs should have the higher cosine."""
    return ranking_loss(pair_cosine(full_precision(embeddings)), pair_labels(labels), tau)


def angle_objective(
    embeddings: torch.Tensor, labels: torch.Tensor, tau: float = 1.0
) -> torch.Tensor:
    """The angle objective: CoSENT's ranking form over ``angle_similarity``."""
    rows = full_precision(embeddings)
    return ranking_loss(angle_similarity(rows[0::2], rows[1::2]), pair_labels(labels), tau)


def partner_targets(labels: torch.Tensor, positive_threshold: float = 1.0) -> torch.Tensor:
    """[2B, 2B] target matrix: row r's partner (r xor 1) when r's pair is positive."""
    rows = labels.reshape(-1).shape[0]
    index = torch.arange(rows, device=labels.device)
    targets = torch.zeros(rows, rows, device=labels.device)
    positive = (labels.reshape(-1) >= positive_threshold).to(targets.dtype)
    targets[index, index ^ 1] = positive
    return targets


def identical_targets(text_ids: torch.Tensor) -> torch.Tensor:
    """[2B, 2B]: 1 where two different rows hold the same text (same token ids)."""
    same = text_ids[:, None] == text_ids[None, :]
    same.fill_diagonal_(False)
    return same.float()


def in_batch_negative_objective(
    embeddings: torch.Tensor,
    labels: torch.Tensor,
    tau: float = 0.05,
    text_ids: torch.Tensor | None = None,
    positive_threshold: float = 1.0,
) -> torch.Tensor:
    r"""In-batch negatives:
    :math:`-\log \frac{e^{\cos(X_i, X_i^+)/\tau}}{\sum_j e^{\cos(X_i, X_j)/\tau}}`.

    Every row of a positive pair has its partner as target; all other rows of the batch
    (both texts of every other pair, and its own pair's negatives) are the candidates, the
    row itself excluded. With ``text_ids`` (one id per distinct text), rows with identical
    text are added as targets, so a duplicate text is never pushed away from itself. As in
    the reference, the per-row cross-entropies (target weights summed, not normalised) are
    averaged over all ``2B`` rows; rows of negative pairs without identical texts add 0.
    """
    rows = F.normalize(full_precision(embeddings), dim=-1)
    logits = (rows @ rows.T) / tau
    eye = torch.eye(rows.shape[0], dtype=torch.bool, device=rows.device)
    logits = logits.masked_fill(eye, float("-inf"))
    targets = partner_targets(labels, positive_threshold)
    if text_ids is not None:
        targets = targets + identical_targets(text_ids)
    targets = targets.to(rows.dtype)
    log_probs = F.log_softmax(logits, dim=-1).masked_fill(eye, 0.0)
    return -(targets * log_probs).sum(dim=-1).mean()


class AnglELoss(nn.Module):
    """The weighted AnglE objective around an encoder (any `training.models.Encoder`).

    ``forward(features, labels, text_ids)`` embeds zigzag-batched ``features`` and returns
    the total loss; ``compute_loss_from_embeddings`` holds the maths and ``components``
    reports each objective for logging. An objective with weight 0 is not computed.
    """

    def __init__(self, encoder: nn.Module | None = None, config: LossConfig | None = None) -> None:
        super().__init__()
        self.encoder = encoder
        self.config = config or LossConfig()

    def forward(
        self,
        features: dict[str, torch.Tensor],
        labels: torch.Tensor,
        text_ids: torch.Tensor | None = None,
    ) -> torch.Tensor:
        if self.encoder is None:
            raise ValueError(
                "AnglELoss was built without an encoder; call compute_loss_from_embeddings"
            )
        embeddings = self.encoder(features)["sentence_embedding"]
        return self.compute_loss_from_embeddings(embeddings, labels, text_ids)

    def compute_loss_from_embeddings(
        self, embeddings: torch.Tensor, labels: torch.Tensor, text_ids: torch.Tensor | None = None
    ) -> torch.Tensor:
        return self.weighted_total(self.components(embeddings, labels, text_ids))

    def weighted_total(self, parts: dict[str, torch.Tensor]) -> torch.Tensor:
        """``w_cos * cos + w_ibn * ibn + w_angle * angle`` over the computed objectives."""
        weights = {"cos": self.config.w_cos, "ibn": self.config.w_ibn, "angle": self.config.w_angle}
        values = [weights[name] * value for name, value in parts.items()]
        if not values:
            raise ValueError("every AnglE weight is 0: nothing to optimise")
        return torch.stack(values).sum()

    def components(
        self, embeddings: torch.Tensor, labels: torch.Tensor, text_ids: torch.Tensor | None = None
    ) -> dict[str, torch.Tensor]:
        cfg = self.config
        labels = labels.reshape(-1).to(embeddings.device)
        parts: dict[str, torch.Tensor] = {}
        if cfg.w_cos > 0:
            parts["cos"] = cosine_objective(embeddings, labels, cfg.cos_tau)
        if cfg.w_ibn > 0:
            parts["ibn"] = self._in_batch_negatives(embeddings, labels, text_ids)
        if cfg.w_angle > 0:
            parts["angle"] = angle_objective(embeddings, labels, cfg.angle_tau)
        return parts

    def _in_batch_negatives(
        self, embeddings: torch.Tensor, labels: torch.Tensor, text_ids: torch.Tensor | None
    ) -> torch.Tensor:
        cfg = self.config
        ids = text_ids if cfg.identical_detection else None
        scale = 1.0
        if cfg.gather_across_processes and world_size() > 1:
            embeddings, labels = gather_rows(embeddings), gather_rows(labels)
            ids = gather_rows(ids) if ids is not None else None
            # DDP averages gradients over ranks while only the local rows carry a gradient
            # here; scaling by the world size makes the update that of the global loss.
            scale = float(world_size())
        loss = in_batch_negative_objective(
            embeddings, labels, cfg.ibn_tau, ids, cfg.positive_threshold
        )
        if scale == 1.0:
            return loss
        # The gradient is scaled, the value is not: logs and the total show the real loss.
        return loss * scale - loss.detach() * (scale - 1.0)

    def get_config_dict(self) -> dict[str, Any]:
        return self.config.model_dump()
