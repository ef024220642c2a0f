"""The contract every backbone (BERT-family, RAN) implements, so that losses, trainer,
evaluator and ablations work unchanged whichever encoder is plugged in."""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path

import torch
from torch import nn


class Encoder(nn.Module, ABC):
    """Maps tokenised text to one embedding per text.

    `forward(features)` takes at least `input_ids` and `attention_mask` ([batch, seq]) and
    returns a dict with `sentence_embedding` ([batch, dim]) and, where meaningful,
    `token_embeddings` ([batch, seq, dim]). Padding must never change a real text's
    embedding. `save(dir)` writes safetensors weights plus a JSON config (and the tokenizer)
    so that `load(dir)` rebuilds the same model with no network access.
    """

    #: the longest input the encoder accepts (BERT: 512; RAN: unbounded, a practical cap)
    max_seq_length: int

    @abstractmethod
    def forward(self, features: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]: ...

    @property
    @abstractmethod
    def embedding_dim(self) -> int: ...

    @abstractmethod
    def save(self, directory: Path) -> None: ...

    @classmethod
    @abstractmethod
    def load(cls, directory: Path) -> Encoder: ...
