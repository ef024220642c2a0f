"""Encoders sharing one contract (see `base.Encoder`), built through one registry.

`build_encoder(name_or_path)` accepts:

- `ran-base`, `ran-tiny`, ... : a fresh RAN from a preset (`training.models.ran`);
- a folder saved by `Encoder.save`: a RAN folder (`config.json` with `"encoder_type": "ran"`)
  or a BERT-family folder (`encoder.json` next to the Hugging Face files);
- anything else: a Hugging Face encoder id or folder, wrapped as `BertEncoder`.
"""

from __future__ import annotations

import json
from pathlib import Path

from training.models.base import Encoder
from training.models.bert import ENCODER_FILE, PAPER_BACKBONE, BertEncoder, offline_backbone
from training.models.st_format import declared_pooling

__all__ = [
    "PAPER_BACKBONE",
    "BertEncoder",
    "Encoder",
    "build_encoder",
    "encoder_type",
    "load_encoder",
    "offline_backbone",
]


def encoder_type(name_or_path: str | Path) -> str:
    """'ran' or 'bert': which backbone module serves this name or folder."""
    text = str(name_or_path)
    path = Path(text)
    if path.is_dir():
        config = path / "config.json"
        if config.is_file() and json.loads(config.read_text()).get("encoder_type") == "ran":
            return "ran"
        return "bert"
    return "ran" if text.startswith("ran-") else "bert"


def build_encoder(
    name_or_path: str | Path | None = None,
    pooling: str | None = None,
    max_length: int | None = None,
) -> Encoder:
    """Build or load an encoder; `None` means the offline all-MiniLM-L6-v2 backbone.

    `pooling` and `max_length` override what a saved folder recorded; for RAN, `pooling`
    must be None (RAN pools its own window cells). With `pooling` None, a backbone folder
    that declares a sentence-transformers pooling is used that way (MiniLM: mean +
    normalize, 256 tokens); one that declares none gets the paper's `cls`.
    """
    target = str(name_or_path) if name_or_path else offline_backbone()
    if encoder_type(target) == "ran":
        from training.models import ran  # lazy: RAN code loads only when asked for

        return ran.build_ran(target, pooling=pooling, max_length=max_length)
    path = Path(target)
    if (path / ENCODER_FILE).is_file():
        encoder = BertEncoder.load(path)
        if pooling is not None:
            encoder.pooling = _checked_pooling(pooling)
        if max_length is not None:
            encoder.max_seq_length = min(max_length, encoder.max_seq_length)
        return encoder
    declared = declared_pooling(path) if path.is_dir() and pooling is None else None
    if declared is not None:
        # the backbone's own recipe (all-MiniLM-L6-v2: mean + normalize, 256 tokens), as
        # its authors meant it to be used; an explicit pooling or length still wins
        return BertEncoder.from_pretrained(
            target,
            pooling=declared.pooling,
            normalize=declared.normalize,
            max_seq_length=max_length or declared.max_seq_length or 512,
        )
    return BertEncoder.from_pretrained(
        target, pooling=pooling or "cls", max_seq_length=max_length or 512
    )


def load_encoder(directory: str | Path) -> Encoder:
    """Load a folder written by `Encoder.save` (BERT or RAN), exactly as saved."""
    return build_encoder(directory)


def _checked_pooling(pooling: str) -> str:
    from training.models.pooling import POOLINGS

    if pooling not in POOLINGS:
        from issues_sts.errors import TrainingError

        raise TrainingError(
            f"unknown pooling {pooling!r}", hint=f"choose one of {', '.join(POOLINGS)}"
        )
    return pooling
