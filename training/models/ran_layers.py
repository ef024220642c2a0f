"""The building blocks of one RAN layer (Li et al. 2023, "Recurrent Attention Networks for
Long-text Modeling"), following the reference Keras implementation's choices: swish on the
q/k/v/o projections, a gated-linear-unit residual with LayerNorm instead of a feed-forward
block, rotary positions that restart in every window, and a recurrent global perception
cell (GPC) carried from window to window.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.checkpoint import checkpoint

from training.models.ran_config import RanConfig


class GatedLinearUnit(nn.Module):
    """GLU(x) = (x A + a) * sigmoid(x B + b)."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.linear = nn.Linear(dim, dim)
        self.gate = nn.Linear(dim, dim)

    def forward(self, x: Tensor) -> Tensor:
        return self.linear(x) * torch.sigmoid(self.gate(x))


def rotary_tables(length: int, head_size: int, base: float, like: Tensor) -> tuple[Tensor, Tensor]:
    """cos/sin tables [length, head_size] for positions 0 .. length-1 (rotate-half layout)."""
    inv_freq = 1.0 / base ** (torch.arange(0, head_size, 2, device=like.device).float() / head_size)
    angles = torch.arange(length, device=like.device).float()[:, None] * inv_freq[None, :]
    angles = torch.cat((angles, angles), dim=-1)
    return angles.cos().to(like.dtype), angles.sin().to(like.dtype)


def apply_rotary(x: Tensor, cos: Tensor, sin: Tensor) -> Tensor:
    """Rotate [..., length, head_size] by position."""
    first, second = x.chunk(2, dim=-1)
    return x * cos + torch.cat((-second, first), dim=-1) * sin


def standardise(x: Tensor, eps: float = 1e-7) -> Tensor:
    """Parameter-free normalisation of cell and tokens after each window (as the reference)."""
    return F.layer_norm(x, x.shape[-1:], eps=eps)


class WindowAttention(nn.Module):
    """Multi-head self-attention over [cell; window tokens] with a GLU residual.

    The cell sits at rotary position 0 and the window's tokens at 1..T, so positions restart
    in each window and no absolute position is ever learned.
    """

    def __init__(self, config: RanConfig) -> None:
        super().__init__()
        dim, width = config.hidden_size, config.attention_width
        self.num_heads, self.head_size = config.num_heads, config.head_size
        self.rope_base = config.rope_base
        self.attention_dropout = config.attention_dropout
        self.query = nn.Linear(dim, width)
        self.key = nn.Linear(dim, width)
        self.value = nn.Linear(dim, width)
        self.output = nn.Linear(width, dim)
        self.residual = GatedLinearUnit(dim)
        self.norm = nn.LayerNorm(dim, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.dropout)

    def _heads(self, projection: nn.Linear, x: Tensor) -> Tensor:
        batch, length, _ = x.shape
        heads = F.silu(projection(x)).view(batch, length, self.num_heads, self.head_size)
        return heads.transpose(1, 2)

    def forward(self, x: Tensor, key_mask: Tensor) -> Tensor:
        """x [B, 1+T, D], key_mask [B, 1+T] -> [B, 1+T, D]."""
        query, key, value = (self._heads(p, x) for p in (self.query, self.key, self.value))
        cos, sin = rotary_tables(x.shape[1], self.head_size, self.rope_base, query)
        query, key = apply_rotary(query, cos, sin), apply_rotary(key, cos, sin)
        attended = F.scaled_dot_product_attention(
            query,
            key,
            value,
            attn_mask=key_mask[:, None, None, :],
            dropout_p=self.attention_dropout if self.training else 0.0,
        )
        merged = attended.transpose(1, 2).reshape(x.shape[0], x.shape[1], -1)
        out = self.dropout(F.silu(self.output(merged)))
        return self.norm(out + self.residual(x))


class WindowStep(nn.Module):
    """One step of the recurrence: encode a window with the current cell prepended."""

    def __init__(self, config: RanConfig) -> None:
        super().__init__()
        self.input_norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.attention = WindowAttention(config)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, cell: Tensor, window: Tensor, token_mask: Tensor) -> tuple[Tensor, Tensor]:
        """cell [B, D], window [B, T, D], token_mask [B, T] -> new cell [B, D], tokens [B, T, D]."""
        x = self.dropout(self.input_norm(torch.cat((cell[:, None, :], window), dim=1)))
        cell_always_visible = torch.ones_like(token_mask[:, :1])
        out = self.attention(x, torch.cat((cell_always_visible, token_mask), dim=1))
        return self.dropout(standardise(out[:, 0])), self.dropout(standardise(out[:, 1:]))


class MemoryReview(nn.Module):
    """Every token output attends to the sequence of all window cells of its text."""

    def __init__(self, config: RanConfig) -> None:
        super().__init__()
        dim = config.hidden_size
        self.query = nn.Linear(dim, dim)
        self.key = nn.Linear(dim, dim)
        self.value = nn.Linear(dim, dim)
        self.output = nn.Linear(dim, dim)
        self.residual = GatedLinearUnit(dim)
        self.norm = nn.LayerNorm(dim, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, tokens: Tensor, cells: Tensor, window_mask: Tensor) -> Tensor:
        """tokens [B, N*T, D], cells [B, N, D], window_mask [B, N] -> [B, N*T, D]."""
        query = F.silu(self.query(tokens))
        key, value = F.silu(self.key(cells)), F.silu(self.value(cells))
        attended = F.scaled_dot_product_attention(
            query[:, None], key[:, None], value[:, None], attn_mask=window_mask[:, None, None, :]
        )[:, 0]
        out = self.dropout(F.silu(self.output(attended)))
        # the reference gates the projected query into the residual, not the raw token
        return self.norm(out + self.residual(query))


class RanLayer(nn.Module):
    """Runs the window recurrence over a batch, then the memory review.

    The windows of all texts are processed together at each step; a text that has run out
    of windows keeps its cell unchanged, so padding never reaches a real text's result.
    """

    def __init__(self, config: RanConfig) -> None:
        super().__init__()
        self.step = WindowStep(config)
        self.cell_residual = GatedLinearUnit(config.hidden_size)
        self.cell_norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.dropout)
        self.memory_review = MemoryReview(config)
        self.gradient_checkpointing = False

    def _run_step(self, cell: Tensor, window: Tensor, token_mask: Tensor) -> tuple[Tensor, Tensor]:
        if self.gradient_checkpointing and self.training and torch.is_grad_enabled():
            out = checkpoint(self.step, cell, window, token_mask, use_reentrant=False)
            return out[0], out[1]
        return self.step(cell, window, token_mask)

    def forward(
        self, windows: Tensor, token_mask: Tensor, window_mask: Tensor, cell: Tensor
    ) -> tuple[Tensor, Tensor, Tensor]:
        """windows [B, N, T, D] and the seed cell [B, D] -> (windows, cells [B, N, D], last
        cell)."""
        outputs, cells = [], []
        carry, previous = cell, cell
        for index in range(windows.shape[1]):
            new_cell, tokens = self._run_step(carry, windows[:, index], token_mask[:, index])
            if index == 0:
                updated = new_cell
            else:
                # the cell of the window before feeds in through a gate: linear-cost memory
                updated = self.dropout(self.cell_norm(new_cell + self.cell_residual(previous)))
            exists = window_mask[:, index, None]
            carry = torch.where(exists, updated, carry)
            previous = torch.where(exists, new_cell, previous)
            outputs.append(tokens)
            cells.append(new_cell)
        stacked = torch.stack(cells, dim=1)
        flat = torch.stack(outputs, dim=1).flatten(1, 2)
        reviewed = self.memory_review(flat, stacked, window_mask).view_as(windows)
        return reviewed, stacked, carry
