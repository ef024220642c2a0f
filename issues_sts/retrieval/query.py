"""One `similar` question end to end: open the index, check the model asked for is the
index's, embed a text that is not in it with that model, answer."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from issues_sts.retrieval.layout import IndexSpec, mismatch_error
from issues_sts.retrieval.similar import Answer, Method, Question, similar
from issues_sts.retrieval.vectors import VectorIndex


def ask(
    index_dir: Path,
    repo: str,
    number: int | None,
    text: str | None,
    k: int,
    method: Method,
    model: str | None = None,
) -> Answer:
    """`similar` on the index at `index_dir`; `model`, when given, must be the index's."""
    from issues_sts.retrieval.indexer import model_name

    index = VectorIndex.open(index_dir)
    if model is not None and model_name(model) != index.spec.model:
        raise mismatch_error(
            index_dir, f"--model {model_name(model)!r}, but the index holds {index.spec.model!r}"
        )
    vector = embed_question(index_dir, index.spec, text, model) if text is not None else None
    return similar(index, Question(repo, number, text, vector), k, method)


def embed_question(index_dir: Path, spec: IndexSpec, text: str, model: str | None) -> np.ndarray:
    """`text` embedded as the index's rows were (same model, pooling, length, recipe); a
    model whose weights changed since is refused."""
    from issues_sts.dataset import issue_text
    from issues_sts.retrieval.encode import encode_texts, load_encoder
    from issues_sts.retrieval.indexer import spec_of
    from training.models.pooling import POOLINGS

    name = model if model is not None else _recorded_model(spec)
    pooling = spec.pooling if spec.pooling in POOLINGS else None
    encoder = load_encoder(name, pooling, spec.max_length)
    why = spec.difference(spec_of(encoder, name, spec.recipe, spec.max_length))
    if why:
        raise mismatch_error(index_dir, why)
    title, _, body = text.partition("\n")
    return encode_texts(
        encoder,
        [issue_text(title, body, spec.recipe)],  # type: ignore[arg-type]
        batch_size=1,
        max_length=spec.max_length,
    )[0]


def _recorded_model(spec: IndexSpec) -> str | None:
    """The model the manifest names, as `load_encoder` takes it (None: the offline backbone)."""
    return None if spec.model.startswith("offline backbone") else spec.model
