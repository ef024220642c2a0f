"""Pooling strategies: token embeddings -> one sentence embedding, padding masked.

Names follow the paper's Table 4 (`cls`, `cls-last-avg`, `last-avg`, `last-max`,
`first-last-avg`); the short names used here map onto them:

=================  ===============================================================
`cls`              the first token ([CLS]) of the last layer (the paper's default)
`cls-avg`          mean of `cls` and `avg` (the paper's "cls-last-avg")
`avg`              mean of the last layer's real tokens ("last-avg")
`max`              element-wise max of the last layer's real tokens ("last-max")
`last`             the last real token (right or left padding)
`first-last-avg`   mean over real tokens of (first layer + last layer) / 2, where the
                   first layer is the first transformer block's output (`hidden_states[1]`,
                   as in SimCSE/BERT-whitening), not the raw word embeddings
=================  ===============================================================

Every strategy ignores padding positions, so a text pooled alone and pooled inside a padded
batch gives the same vector (the reference's early `avg` divided by the batch's total token
count; this does not).
"""

from __future__ import annotations

from typing import Literal, get_args

import torch

Pooling = Literal["cls", "cls-avg", "avg", "max", "last", "first-last-avg"]
POOLINGS: tuple[str, ...] = get_args(Pooling)
#: strategies that need every layer's output, not only the last one
NEEDS_HIDDEN_STATES = frozenset({"first-last-avg"})


def masked_mean(tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean over real positions (dim 1); zeros for a text without any real token."""
    weights = mask.unsqueeze(-1).to(tokens.dtype)
    return (tokens * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1.0)


def masked_max(tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Max over real positions (dim 1); zeros for a text without any real token, like
    `masked_mean` (a dtype's lowest value there would be a huge vector that a later
    normalisation or loss turns into noise, or inf after a cast)."""
    real = mask.bool()
    filled = tokens.masked_fill(~real.unsqueeze(-1), float("-inf")).amax(dim=1)
    return torch.where(real.any(dim=1, keepdim=True), filled, torch.zeros_like(filled))


def last_token(tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    # The highest position holding a real token works for right and left padding alike.
    positions = torch.arange(mask.shape[1], device=mask.device).expand_as(mask)
    last = (positions * mask.long()).argmax(dim=1)
    return tokens[torch.arange(tokens.shape[0], device=tokens.device), last]


def pool(
    strategy: str,
    tokens: torch.Tensor,
    mask: torch.Tensor,
    hidden_states: tuple[torch.Tensor, ...] | None = None,
) -> torch.Tensor:
    """Pool `tokens` ([batch, seq, dim]) under `mask` ([batch, seq], 1 = real token)."""
    if strategy == "cls":
        return tokens[:, 0]
    if strategy == "avg":
        return masked_mean(tokens, mask)
    if strategy == "cls-avg":
        return (tokens[:, 0] + masked_mean(tokens, mask)) / 2.0
    if strategy == "max":
        return masked_max(tokens, mask)
    if strategy == "last":
        return last_token(tokens, mask)
    if strategy == "first-last-avg":
        if hidden_states is None or len(hidden_states) < 2:
            raise ValueError("first-last-avg pooling needs the encoder's hidden states")
        return masked_mean((hidden_states[1] + hidden_states[-1]) / 2.0, mask)
    raise ValueError(f"unknown pooling {strategy!r}; choose one of {', '.join(POOLINGS)}")
