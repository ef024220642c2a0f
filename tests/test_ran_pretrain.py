"""MLM pretraining of RAN: masking rules, text sources, a short run whose loss falls."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
import torch

from issues_sts.cli.app import app, main, run
from issues_sts.crawl.rows import issue_rows
from issues_sts.errors import ConfigError, DatasetError
from issues_sts.store import Store
from training.models import build_encoder
from training.models.ran import RanEncoder
from training.pretrain_ran import (
    PretrainConfig,
    load_texts,
    mask_tokens,
    pretrain,
)
from training.schedule import linear_schedule

CLS, SEP, PAD, MASK = 101, 102, 0, 103

CORPUS = [
    "cargo build fails with linker error on windows when using lto",
    "rustc panics on nested closures in async functions",
    "clippy suggests wrong lint for manual range contains",
    "rustdoc search index is missing trait methods",
    "incremental compilation crashes after renaming a module",
    "the borrow checker rejects valid code with two phase borrows",
    "cargo test hangs when a doctest spawns a thread",
    "rust analyzer shows false unresolved import errors",
]


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_masking_never_picks_special_tokens_and_gives_every_text_a_target() -> None:
    ids = torch.tensor([[CLS, 7, 8, 9, 10, SEP, PAD, PAD], [CLS, 11, SEP, PAD, PAD, PAD, PAD, PAD]])
    mask = (ids != PAD).long()
    generator = torch.Generator().manual_seed(0)
    for _ in range(20):
        masked, labels = mask_tokens(ids, mask, [CLS, SEP, PAD], MASK, 30522, 0.15, generator)
        chosen = labels != -100
        assert not chosen[torch.isin(ids, torch.tensor([CLS, SEP, PAD]))].any()
        assert chosen.any(dim=1).all()
        assert torch.equal(labels[chosen], ids[chosen])
        assert torch.equal(masked[~chosen], ids[~chosen])


def test_masking_rate_and_80_10_10_split() -> None:
    ids = torch.randint(1000, 2000, (64, 256))
    generator = torch.Generator().manual_seed(1)
    masked, labels = mask_tokens(
        ids, torch.ones_like(ids), [CLS, SEP, PAD], MASK, 30522, 0.15, generator
    )
    chosen = labels != -100
    assert 0.13 < chosen.float().mean() < 0.17
    as_mask = (masked[chosen] == MASK).float().mean()
    kept = (masked[chosen] == ids[chosen]).float().mean()
    assert 0.77 < as_mask < 0.83 and 0.07 < kept < 0.13


def test_learning_rate_warms_up_then_decays_to_zero() -> None:
    factors = [linear_schedule(4, 10)(step) for step in range(11)]
    assert factors[:4] == [0.25, 0.5, 0.75, 1.0]
    assert factors[4] == 1.0 and factors[-1] == 0.0
    assert all(a >= b for a, b in zip(factors[4:], factors[5:], strict=False))


def test_pretraining_lowers_the_mlm_loss_and_saves_a_loadable_encoder(tmp_path: Path) -> None:
    config = PretrainConfig(
        data=tmp_path, output=tmp_path / "ran-mlm", model="ran-tiny", batch_size=8,
        steps=60, learning_rate=3e-3, warmup_steps=5, max_length=32, seed=0,
    )  # fmt: skip
    result = pretrain(config, texts=CORPUS, progress=False)
    assert result.last_loss < result.first_loss - 1.0, (result.first_loss, result.last_loss)
    encoder = build_encoder(tmp_path / "ran-mlm")
    assert isinstance(encoder, RanEncoder) and encoder.max_seq_length == 32
    log = json.loads((tmp_path / "ran-mlm" / "pretrain_log.json").read_text())
    assert log["steps"] == 60 and (tmp_path / "ran-mlm" / "mlm_head.safetensors").is_file()
    features = encoder.tokenize(CORPUS[:2])
    assert torch.isfinite(encoder(features)["sentence_embedding"]).all()


def test_texts_from_a_built_dataset_folder_use_the_train_split_only(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    rows = {"text1": ["a", "b", "a"], "text2": ["c", "a", "d"], "label": [1, 0, 1]}
    pl.DataFrame(rows).write_parquet(tmp_path / "data" / "train-00000-of-00001.parquet")
    pl.DataFrame({"text1": ["secret test"], "text2": ["x"], "label": [1]}).write_parquet(
        tmp_path / "data" / "test-00000-of-00001.parquet"
    )
    assert load_texts(tmp_path, ("train",)) == ["a", "b", "c", "d"]
    assert load_texts(tmp_path, ("train", "test"), limit=3) == ["a", "b", "secret test"]


def test_texts_from_a_crawl_store_skip_pull_requests_and_redact_tokens(tmp_path: Path) -> None:
    store = Store.open(tmp_path, create=True)
    token = "ghp_" + "a" * 36
    issues = [
        {"number": 1, "id": 1, "title": "Crash", "body": f"my token {token}", "state": "open",
         "user": {"login": "u"}, "labels": [], "updated_at": "2024-01-01T00:00:00Z"},
        {"number": 2, "id": 2, "title": "A PR", "body": "", "state": "open", "user": {"login": "u"},
         "labels": [], "updated_at": "2024-01-01T00:00:00Z", "pull_request": {"url": "x"}},
    ]  # fmt: skip
    store.write_page("o/r", issues=issue_rows("o/r", issues))
    texts = load_texts(tmp_path, ("train",))
    assert len(texts) == 1 and texts[0].startswith("Crash\n\nmy token ")
    assert token not in texts[0]


def test_a_folder_that_holds_no_texts_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="neither a crawl store nor a built dataset"):
        load_texts(tmp_path, ("train",))


def test_command_line_runs_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "data").mkdir()
    frame = pl.DataFrame({"text1": CORPUS[:4], "text2": CORPUS[4:], "label": [1, 0, 1, 0]})
    frame.write_parquet(tmp_path / "data" / "train-00000-of-00001.parquet")
    out = tmp_path / "out"
    assert run(app, ["pretrain-ran", "--dataset", str(tmp_path), "--out", str(out),
                     "--model", "ran-tiny", "--max-steps", "3", "--batch-size", "2",
                     "--max-length", "16", "--warmup-steps", "1"],
               "issues-sts") == 0  # fmt: skip
    assert RanEncoder.load(out).max_seq_length == 16
    assert "MLM loss" in capsys.readouterr().err
    with pytest.raises(SystemExit) as failed:  # `python -m issues_sts` runs the same command
        main(
            [
                "pretrain-ran",
                "--dataset",
                str(tmp_path / "missing"),
                "--out",
                str(out),
                "--model",
                "ran-tiny",
            ]
        )
    assert failed.value.code == 6  # a missing dataset: 6 in every command (was 8)
    assert "neither a crawl store" in capsys.readouterr().err


def test_long_texts_are_cut_into_segments_not_truncated() -> None:
    from training.pretrain_ran import split_segments

    assert split_segments(list(range(25)), 10) == [list(range(10)), list(range(10, 20))]
    assert split_segments(list(range(28)), 10) == [
        list(range(10)),
        list(range(10, 20)),
        list(range(20, 28)),
    ]
    assert split_segments([], 10) == [[]]  # an empty text still gives [CLS] [SEP]
    assert split_segments([1, 2], 10) == [[1, 2]]  # a short text is kept whole


def test_segment_stream_reads_a_long_text_whole() -> None:
    from training.models.ran import load_tokenizer
    from training.pretrain_ran import segment_stream

    tokenizer = load_tokenizer(None)
    stream = segment_stream(["word " * 50], tokenizer, max_length=16, seed=0)
    segments = [next(stream) for _ in range(4)]  # 50 tokens -> 14 + 14 + 14 + 8
    assert sorted(len(s) for s in segments) == [10, 16, 16, 16]
    assert all(s[0] == tokenizer.cls_token_id and s[-1] == tokenizer.sep_token_id for s in segments)
    assert sum(len(s) - 2 for s in segments) == 50


def test_set_overrides_are_typed_and_apply_to_presets_only(tmp_path: Path) -> None:
    from training.pretrain_ran import build_model, parse_settings

    overrides = parse_settings(["window_size=32", "dropout=0.0", "token_pooling=mean"])
    assert overrides == {"window_size": 32, "dropout": 0.0, "token_pooling": "mean"}
    for bad in (["window=3"], ["window_size=big"], ["window_size"]):
        with pytest.raises(ConfigError):  # a usage error, exit 2 (was 8)
            parse_settings(bad)
    config = PretrainConfig(data=tmp_path, output=tmp_path, model="ran-tiny", overrides=overrides)
    assert build_model(config).encoder.config.window_size == 32
    RanEncoder.from_preset("ran-tiny").save(tmp_path / "saved")
    with pytest.raises(ConfigError, match="fresh RAN only"):
        build_model(
            PretrainConfig(
                data=tmp_path, output=tmp_path, model=str(tmp_path / "saved"), overrides=overrides
            )
        )


@pytest.mark.parametrize(
    "bad", [{"learning_rate": -1.0}, {"learning_rate": 0.0}, {"warmup_steps": -1}]
)
def test_a_pretraining_option_out_of_range_is_refused_before_the_optimizer(
    tmp_path: Path, bad: dict[str, float]
) -> None:
    with pytest.raises(ConfigError, match="--lr must be > 0") as info:
        PretrainConfig(data=tmp_path, output=tmp_path, **bad)  # type: ignore[arg-type]
    assert info.value.exit_code == 2  # a bad option value, told in one line (not a bug's 1)
