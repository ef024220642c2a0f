"""Cutting a padded batch into RAN windows, and putting token outputs back in place.

Windows depend only on each text's own length, never on the batch it sits in: window k
covers a text's real tokens k*W .. (k+1)*W - 1, and a tail shorter than `min_window_size`
joins the previous window (so the last window holds up to W + min - 1 tokens). A text with
no real token still gets one (empty) window, so its cell is defined. That is what makes a
text's embedding identical alone and in a padded batch.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor


@dataclass(frozen=True)
class WindowLayout:
    """Where every window slot reads its token from. Shapes: B texts, N windows, T slots."""

    #: [B, N, T] position in the input sequence each slot reads (0 where the slot is empty)
    token_index: Tensor
    #: [B, N, T] the slot holds a real token
    token_mask: Tensor
    #: [B, N] the window exists for that text (texts have different numbers of windows)
    window_mask: Tensor
    #: [B, L] flat slot (window * T + offset) of each input position; 0 for padding
    slot_of_position: Tensor
    #: [B, L] the input position is a real token
    position_mask: Tensor

    @property
    def num_windows(self) -> int:
        return int(self.window_mask.shape[1])

    @property
    def slots(self) -> int:
        return int(self.token_mask.shape[2])


def count_windows(lengths: Tensor, window_size: int, min_window_size: int) -> Tensor:
    """Windows per text: ceil(n / W), minus one when the tail is shorter than the minimum."""
    full, tail = lengths // window_size, lengths % window_size
    many = full + (tail >= min_window_size).long()
    return torch.where(lengths <= window_size, torch.ones_like(lengths), many)


def window_lengths(
    lengths: Tensor, num_windows: Tensor, window_size: int, max_windows: int
) -> Tensor:
    """[B, N] tokens in each window; the last window of a text takes whatever is left."""
    index = torch.arange(max_windows, device=lengths.device)[None, :]
    last = num_windows[:, None] - 1
    rest = lengths[:, None] - index * window_size
    sizes = torch.where(index < last, torch.full_like(rest, window_size), rest)
    return torch.where(index <= last, sizes, torch.zeros_like(sizes))


def real_positions(attention_mask: Tensor) -> Tensor:
    """[B, L] positions of the real tokens first, in order (so left padding works too)."""
    keys = (attention_mask == 0).to(torch.int8)
    return torch.sort(keys, dim=1, stable=True).indices


def plan_windows(attention_mask: Tensor, window_size: int, min_window_size: int) -> WindowLayout:
    """The window layout of a batch, from its attention mask alone."""
    mask = attention_mask.bool()
    lengths = mask.sum(dim=1)
    num_windows = count_windows(lengths, window_size, min_window_size)
    max_windows = int(num_windows.max().item())
    sizes = window_lengths(lengths, num_windows, window_size, max_windows)
    # at least one slot, so that an all-padding batch still has a (masked) token axis
    slots = max(1, int(sizes.max().item()))

    offsets = torch.arange(slots, device=mask.device)
    ranks = torch.arange(max_windows, device=mask.device)[:, None] * window_size + offsets
    token_mask = offsets[None, None, :] < sizes[:, :, None]
    order = real_positions(mask)
    flat_ranks = ranks.reshape(1, -1).expand(mask.shape[0], -1).clamp(max=mask.shape[1] - 1)
    token_index = torch.where(token_mask, order.gather(1, flat_ranks).view_as(token_mask), 0)
    return WindowLayout(
        token_index=token_index,
        token_mask=token_mask,
        window_mask=_window_exists(num_windows, max_windows),
        slot_of_position=_slot_of_position(mask, num_windows, window_size, slots),
        position_mask=mask,
    )


def _window_exists(num_windows: Tensor, max_windows: int) -> Tensor:
    return torch.arange(max_windows, device=num_windows.device)[None, :] < num_windows[:, None]


def _slot_of_position(mask: Tensor, num_windows: Tensor, window_size: int, slots: int) -> Tensor:
    rank = mask.long().cumsum(dim=1) - 1
    window = torch.minimum(rank.clamp(min=0) // window_size, num_windows[:, None] - 1)
    slot = window * slots + (rank.clamp(min=0) - window * window_size)
    return torch.where(mask, slot, 0)


def to_windows(sequence: Tensor, layout: WindowLayout) -> Tensor:
    """[B, L, D] -> [B, N, T, D]; empty slots hold zeros."""
    batch, _, dim = sequence.shape
    index = layout.token_index.reshape(batch, -1, 1).expand(-1, -1, dim)
    windows = sequence.gather(1, index).view(*layout.token_mask.shape, dim)
    return windows * layout.token_mask[..., None].to(windows.dtype)


def from_windows(windows: Tensor, layout: WindowLayout) -> Tensor:
    """[B, N, T, D] -> [B, L, D]; padding positions hold zeros."""
    batch, dim = windows.shape[0], windows.shape[-1]
    flat = windows.reshape(batch, -1, dim)
    index = layout.slot_of_position[..., None].expand(-1, -1, dim)
    sequence = flat.gather(1, index)
    return sequence * layout.position_mask[..., None].to(sequence.dtype)
