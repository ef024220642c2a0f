"""Dense embeddings of issue texts with training's encoders.

The same rules as the pair task's `evaluate`: `load_encoder` resolves a run folder to its
best (else last) checkpoint and builds the encoder through `training.models.build_encoder`
(None: the untrained offline backbone; `pooling` and `max_length` override what a saved
folder recorded), and `encode_texts` runs `training.evaluation.embed` batch by batch,
longest texts first, so a caller can show progress. Rows come back L2-normalised, so a dot
product is the cosine the pair task scores with.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from training.api import resolve_model
from training.config import EVAL_BATCH_SIZE
from training.evaluation import embed
from training.models import Encoder, build_encoder

# called with the number of texts just embedded (one call per batch)
Progress = Callable[[int], None]


def load_encoder(
    model: str | Path | None, pooling: str | None = None, max_length: int | None = None
) -> Encoder:
    """The encoder `evaluate --model M` would score with (None: the untrained backbone)."""
    return build_encoder(str(resolve_model(model)) if model else None, pooling, max_length)


def encode_texts(
    encoder: Encoder,
    texts: Sequence[str],
    *,
    batch_size: int = EVAL_BATCH_SIZE,
    max_length: int | None = None,
    progress: Progress | None = None,
) -> np.ndarray:
    """float32 rows, one per text in input order, each of L2 norm 1 (a zero vector stays 0)."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, not {batch_size}")
    # longest first across all texts, as `embed` orders one call: less padding per batch
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    vectors = np.zeros((len(texts), encoder.embedding_dim), dtype=np.float32)
    for start in range(0, len(order), batch_size):
        rows = order[start : start + batch_size]
        batch = embed(encoder, [texts[i] for i in rows], len(rows), max_length)
        vectors[rows] = batch.astype(np.float32)
        if progress is not None:
            progress(len(rows))
    return normalise(vectors)


def normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm; an all-zero row is left zero rather than NaN."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.where(norms == 0, 1, norms)).astype(np.float32)
