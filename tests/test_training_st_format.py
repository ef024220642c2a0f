"""Saved encoders load in sentence-transformers and give the project's own embeddings; an
untrained backbone is pooled the way its own folder says."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sentence_transformers import SentenceTransformer

from tests.test_training_support import make_pairs_folder, tiny_encoder, tokenizer
from training.config import TrainConfig
from training.evaluation import embed
from training.models import build_encoder, load_encoder
from training.models.bert import offline_backbone
from training.models.ran import RanEncoder
from training.models.ran_config import preset
from training.models.st_format import declared_pooling
from training.trainer import train

TEXTS = [
    "cargo build fails on windows after the update",
    "  panic in the borrow checker with an async trait  ",
    "x",
    "nightly " * 60,  # longer than the tiny models' limit: truncation must agree too
]


def st_embeddings(folder: Path, *, trust: bool) -> tuple[np.ndarray, SentenceTransformer]:
    model = SentenceTransformer(str(folder), device="cpu", trust_remote_code=trust)
    return model.encode(TEXTS, batch_size=3, convert_to_numpy=True), model


def test_a_trained_tiny_bert_is_a_sentence_transformers_model(tmp_path: Path) -> None:
    data = make_pairs_folder(tmp_path / "pairs", {"train": 16, "valid": 8})
    config = TrainConfig(
        data=str(data),
        output=tmp_path / "run",
        max_length=24,
        batch_size=4,
        max_steps=3,
        warmup_steps=1,
        learning_rate=1e-3,
        progress=False,
    )
    result = train(config, tiny_encoder("cls"))
    ours = embed(load_encoder(result.model_dir), TEXTS, batch_size=2)
    # standard modules only: no custom code to trust
    theirs, model = st_embeddings(result.model_dir, trust=False)
    assert model.max_seq_length == 24
    assert np.abs(ours - theirs).max() < 1e-5
    modules = json.loads((result.model_dir / "modules.json").read_text())
    assert [m["type"].rsplit(".", 1)[-1] for m in modules] == ["Transformer", "Pooling"]
    pooling = json.loads((result.model_dir / "1_Pooling" / "config.json").read_text())
    assert pooling["pooling_mode_cls_token"] and not pooling["pooling_mode_mean_tokens"]
    # the model card that a push publishes: data, objective with its weights, metrics
    card = (result.model_dir / "README.md").read_text()
    assert "library_name: sentence-transformers" in card and str(data) in card
    assert "a BertEncoder given to train()" in card and "base_model" not in card
    assert (
        "1.0 * cosine(tau 0.05) + 1.0 * in-batch negatives(tau 0.05) + 1.0 * angle(tau 1.0)" in card
    )
    assert f"Best valid Spearman x100: {result.best_metric:.2f}" in card and "| spearman |" in card


@pytest.mark.parametrize("pooling", ["avg", "max", "last", "cls-avg", "first-last-avg"])
def test_every_pooling_round_trips_through_sentence_transformers(
    pooling: str, tmp_path: Path
) -> None:
    encoder = tiny_encoder(pooling)
    encoder.max_seq_length = 20
    encoder.save(tmp_path / "m")
    # cls-avg and first-last-avg have no sentence-transformers equivalent: our module is used
    theirs, model = st_embeddings(tmp_path / "m", trust=True)
    assert model.max_seq_length == 20
    assert np.abs(embed(encoder, TEXTS, batch_size=2) - theirs).max() < 1e-5


def test_a_trained_tiny_ran_is_a_sentence_transformers_model(tmp_path: Path) -> None:
    encoder = RanEncoder(preset("ran-tiny", max_seq_length=48), tokenizer())
    data = make_pairs_folder(tmp_path / "pairs", {"train": 16})
    config = TrainConfig(
        data=str(data),
        output=tmp_path / "run",
        max_length=48,
        batch_size=4,
        max_steps=2,
        warmup_steps=1,
        learning_rate=1e-3,
        valid_split=None,
        progress=False,
    )
    result = train(config, encoder)
    ours = embed(load_encoder(result.model_dir), TEXTS, batch_size=2)
    theirs, model = st_embeddings(result.model_dir, trust=True)
    assert model.max_seq_length == 48
    assert np.abs(ours - theirs).max() < 1e-5


def test_the_backbone_is_pooled_as_its_own_folder_declares() -> None:
    declared = declared_pooling(offline_backbone())
    assert declared is not None and (
        declared.pooling,
        declared.normalize,
        declared.max_seq_length,
    ) == ("avg", True, 256)
    encoder = build_encoder(None)  # what `evaluate` with no --model, and the demo's "before", use
    assert (encoder.pooling, encoder.normalize, encoder.max_seq_length) == ("avg", True, 256)
    reference = SentenceTransformer(offline_backbone(), device="cpu").encode(
        TEXTS[:3], convert_to_numpy=True
    )
    assert np.abs(embed(encoder, TEXTS[:3]) - reference).max() < 1e-5
    # an explicit choice still wins, and a folder without sentence-transformers files gets cls
    assert build_encoder(None, pooling="cls", max_length=64).pooling == "cls"
    assert declared_pooling(Path(__file__).parent) is None
