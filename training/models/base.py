"""The contract every backbone (BERT-family, RAN) implements, so that losses, trainer,
evaluator and ablations work unchanged whichever encoder is plugged in."""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any

import torch
from torch import nn


class Encoder(nn.Module, ABC):
    """Maps tokenised text to one embedding per text.

    `forward(features)` takes at least `input_ids` and `attention_mask` ([batch, seq]) and
    returns a dict with `sentence_embedding` ([batch, dim]) and, where meaningful,
    `token_embeddings` ([batch, seq, dim]). Padding must never change a real text's
    embedding. `save(dir)` writes safetensors weights plus a JSON config (and the tokenizer)
    so that `load(dir)` rebuilds the same model with no network access.

    Text goes in through `tokenize(texts)`, which every caller (collator, evaluator, demo)
    uses, so a backbone controls its own truncation and padding.
    """

    #: the longest input the encoder accepts (BERT: 512; RAN: unbounded, a practical cap)
    max_seq_length: int
    #: a Hugging Face tokenizer (both backbones use the bert-base-uncased vocabulary offline)
    tokenizer: Any

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

    def tokenize(self, texts: list[str], max_length: int | None = None) -> dict[str, torch.Tensor]:
        """Pad to the longest text of the batch, truncate at `max_length` (capped by the model)."""
        limit = min(max_length or self.max_seq_length, self.max_seq_length)
        encoded = self.tokenizer(
            list(texts), padding=True, truncation=True, max_length=limit, return_tensors="pt"
        )
        return {key: value for key, value in encoded.items() if key in _MODEL_INPUTS}

    def gradient_checkpointing_enable(self) -> None:
        """Trade compute for memory on long inputs; backbones override where they can."""

    def set_attention_dropout(self, probability: float) -> None:
        """Change attention dropout at run time (benchmarks); a no-op where not applicable."""


_MODEL_INPUTS = frozenset({"input_ids", "attention_mask", "token_type_ids"})
