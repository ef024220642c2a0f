"""Pooling masks, the BERT encoder's save/load round trip and the encoder registry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from issues_sts.errors import TrainingError
from tests.test_training_support import tiny_encoder, tokenizer
from training.models import build_encoder, encoder_type, load_encoder
from training.models.pooling import POOLINGS, masked_max, masked_mean, pool

TEXTS = [
    "cargo build fails",
    "a much longer issue text: the borrow checker rejects this async closure again",
]


@pytest.mark.parametrize("strategy", [p for p in POOLINGS if p != "first-last-avg"])
def test_pool_ignores_whatever_sits_in_padding(strategy: str) -> None:
    tokens = torch.randn(2, 5, 3)
    mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])
    noisy = tokens.clone()
    noisy[0, 3:] = 1e6
    assert torch.equal(pool(strategy, tokens, mask), pool(strategy, noisy, mask))


def test_pool_values() -> None:
    tokens = torch.arange(12, dtype=torch.float32).reshape(1, 4, 3)
    mask = torch.tensor([[1, 1, 1, 0]])
    assert pool("cls", tokens, mask).tolist() == [[0, 1, 2]]
    assert pool("avg", tokens, mask).tolist() == [[3, 4, 5]]
    assert pool("max", tokens, mask).tolist() == [[6, 7, 8]]
    assert pool("last", tokens, mask).tolist() == [[6, 7, 8]]
    assert pool("cls-avg", tokens, mask).tolist() == [[1.5, 2.5, 3.5]]
    left_padded = torch.tensor([[0, 1, 1, 1]])
    assert pool("last", tokens, left_padded).tolist() == [[9, 10, 11]]
    layers = (tokens * 0, tokens, tokens * 3)  # embeddings, first block, last block
    assert pool("first-last-avg", tokens, mask, layers).tolist() == [[6, 8, 10]]
    with pytest.raises(ValueError):
        pool("nope", tokens, mask)


@pytest.mark.parametrize("strategy", POOLINGS)
def test_padding_never_changes_an_encoders_embedding(strategy: str) -> None:
    encoder = tiny_encoder(strategy).eval()
    with torch.no_grad():
        alone = encoder(encoder.tokenize(TEXTS[:1]))["sentence_embedding"][0]
        batched = encoder.tokenize(TEXTS)
        assert (
            batched["attention_mask"][0].sum() < batched["attention_mask"].shape[1]
        )  # really padded
        in_batch = encoder(batched)["sentence_embedding"][0]
    assert torch.allclose(alone, in_batch, atol=1e-5)


def test_save_load_round_trip(tmp_path: Path) -> None:
    encoder = tiny_encoder("cls-avg").eval()
    encoder.save(tmp_path / "model")
    files = {p.name for p in (tmp_path / "model").iterdir()}
    assert {"model.safetensors", "config.json", "encoder.json", "tokenizer.json"} <= files
    assert json.loads((tmp_path / "model" / "encoder.json").read_text())["encoder_type"] == "bert"
    loaded = load_encoder(tmp_path / "model").eval()
    assert loaded.pooling == "cls-avg" and loaded.max_seq_length == encoder.max_seq_length
    features = encoder.tokenize(TEXTS)
    with torch.no_grad():
        assert torch.equal(
            encoder(features)["sentence_embedding"], loaded(features)["sentence_embedding"]
        )


def test_registry_dispatch_and_overrides(tmp_path: Path) -> None:
    tiny_encoder().save(tmp_path / "bert")
    (tmp_path / "ran").mkdir()
    (tmp_path / "ran" / "config.json").write_text(json.dumps({"encoder_type": "ran"}))
    assert encoder_type(tmp_path / "bert") == "bert"
    assert encoder_type(tmp_path / "ran") == "ran"
    assert encoder_type("ran-tiny") == "ran"
    assert encoder_type("bert-base-uncased") == "bert"
    rebuilt = build_encoder(tmp_path / "bert", pooling="max", max_length=16)
    assert rebuilt.pooling == "max" and rebuilt.max_seq_length == 16
    assert rebuilt.tokenize(["word " * 100])["input_ids"].shape[1] == 16


def test_tokenize_truncates_at_the_models_limit() -> None:
    encoder = tiny_encoder()
    assert (
        encoder.tokenize(["word " * 500], max_length=4096)["input_ids"].shape[1]
        == encoder.max_seq_length
    )
    assert len(tokenizer()) == encoder.backbone.config.vocab_size


def test_bad_names_are_one_line_training_errors(tmp_path: Path) -> None:
    with pytest.raises(TrainingError, match="cannot load model"):
        build_encoder(tmp_path / "missing-model")
    tiny_encoder().save(tmp_path / "bert")
    with pytest.raises(TrainingError, match="unknown pooling"):
        build_encoder(tmp_path / "bert", pooling="mean-of-everything")


def test_gradient_checkpointing_keeps_gradients_and_dropout_is_settable() -> None:
    def grads(checkpointing: bool) -> list[torch.Tensor]:
        encoder = tiny_encoder("avg").train()
        for module in encoder.modules():
            if isinstance(module, torch.nn.Dropout):
                module.p = 0.0  # deterministic, so both runs see the same function
        if checkpointing:
            encoder.gradient_checkpointing_enable()
        encoder(encoder.tokenize(TEXTS))["sentence_embedding"].sum().backward()
        return [p.grad.clone() for p in encoder.parameters() if p.grad is not None]

    plain, checkpointed = grads(False), grads(True)
    assert len(plain) == len(checkpointed) > 0
    assert all(torch.allclose(a, b, atol=1e-6) for a, b in zip(plain, checkpointed, strict=True))
    encoder = tiny_encoder()
    encoder.set_attention_dropout(0.0)
    attention = [
        m
        for n, m in encoder.backbone.named_modules()
        if ".attention.self" in f".{n}" and isinstance(m, torch.nn.Dropout)
    ]
    assert attention and all(m.p == 0.0 for m in attention)


def test_masked_pooling_ignores_padding_and_gives_zeros_for_an_empty_mask() -> None:
    """One masked_mean/masked_max for BERT pooling and RAN: padding never wins the max, and a
    row without any real token pools to zeros (not the dtype's lowest value)."""
    tokens = torch.tensor(
        [[[1.0, -2.0], [3.0, -4.0], [99.0, 99.0]], [[5.0, 6.0], [7.0, 8.0], [9.0, 10.0]]]
    )
    mask = torch.tensor([[1, 1, 0], [0, 0, 0]])
    assert masked_max(tokens, mask).tolist() == [[3.0, -2.0], [0.0, 0.0]]
    assert masked_mean(tokens, mask).tolist() == [[2.0, -3.0], [0.0, 0.0]]
    half = masked_max(tokens.to(torch.bfloat16), mask.bool())
    assert half.dtype == torch.bfloat16 and half.float().tolist() == [[3.0, -2.0], [0.0, 0.0]]
