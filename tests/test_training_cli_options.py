"""The training commands' options, read from the real parsers: the names `--help` lists
(those of the release before `cli/train.py` took its defaults from `training/config.py`), and
every config field marked with an `Option` reaching that field from the command line, through
the one place a `TrainConfig` is built."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import pytest
import torch
import typer
import typer.main

from issues_sts.cli.app import app
from issues_sts.cli.train import _objective, _train_config
from issues_sts.config import Option
from issues_sts.errors import ConfigError
from training.config import LossConfig, TrainConfig

OPTIONS = {
    "train": [
        "--dataset", "--out", "--model", "--pooling", "--max-length", "--batch-size", "--epochs",
        "--max-steps", "--stop-after-steps", "--lr", "--warmup-steps", "--weight-decay",
        "--grad-accumulation", "--precision", "--gradient-checkpointing", "--attention-dropout",
        "--seed", "--valid-split", "--eval-steps", "--save-steps", "--max-train-pairs",
        "--max-eval-pairs", "--loss", "--w-cos", "--w-ibn", "--w-angle", "--cos-tau",
        "--ibn-tau", "--angle-tau", "--identical-detection", "--no-identical-detection",
        "--gather-negatives", "--no-gather-negatives", "--resume", "--no-resume", "--device",
        "--progress-every", "--quiet",
    ],
    "evaluate": [
        "--dataset", "--model", "--split", "--pooling", "--max-length", "--batch-size",
        "--max-eval-pairs", "--plot", "--json-out", "--json", "--quiet", "--task", "--method",
    ],
    "ablate": [
        "--dataset", "--out", "--model", "--variants", "--split", "--pooling", "--max-length",
        "--batch-size", "--epochs", "--max-steps", "--lr", "--warmup-steps", "--seed",
        "--precision", "--max-train-pairs", "--max-eval-pairs", "--valid-split", "--quiet",
    ],
    "pretrain-ran": [
        "--dataset", "--store", "--out", "--model", "--splits", "--max-length", "--batch-size",
        "--max-steps", "--lr", "--warmup-steps", "--max-texts", "--init-embeddings-from", "--seed",
        "--device", "--set", "--quiet",
    ],
}  # fmt: skip

# A value other than the default for each option a config field is marked with: the command
# line's words, and the field's value they must give.
NOT_DEFAULT: dict[str, tuple[list[str], Any]] = {
    "--dataset": (["--dataset", "some/pairs"], "some/pairs"),
    "--out": (["--out", "runs/elsewhere"], Path("runs/elsewhere")),
    "--model": (["--model", "ran-tiny"], "ran-tiny"),
    "--pooling": (["--pooling", "max"], "max"),
    "--max-length": (["--max-length", "128"], 128),
    "--valid-split": (["--valid-split", "dev"], "dev"),
    "--batch-size": (["--batch-size", "4"], 4),
    "--grad-accumulation": (["--grad-accumulation", "3"], 3),
    "--epochs": (["--epochs", "2"], 2),
    "--max-steps": (["--max-steps", "7"], 7),
    "--stop-after-steps": (["--stop-after-steps", "5"], 5),
    "--lr": (["--lr", "3e-5"], 3e-5),
    "--warmup-steps": (["--warmup-steps", "9"], 9),
    "--weight-decay": (["--weight-decay", "0.01"], 0.01),
    "--precision": (["--precision", "bf16"], "bf16"),
    "--gradient-checkpointing": (["--gradient-checkpointing"], True),
    "--attention-dropout": (["--attention-dropout", "0.2"], 0.2),
    "--seed": (["--seed", "7"], 7),
    "--eval-steps": (["--eval-steps", "11"], 11),
    "--save-steps": (["--save-steps", "13"], 13),
    "--max-train-pairs": (["--max-train-pairs", "64"], 64),
    "--max-eval-pairs": (["--max-eval-pairs", "32"], 32),
    "--resume": (["--no-resume"], False),
    "--device": (["--device", "cpu"], "cpu"),
    "--progress-every": (["--progress-every", "5"], 5.0),
    "--w-cos": (["--w-cos", "0.5"], 0.5),
    "--w-ibn": (["--w-ibn", "2"], 2.0),
    "--w-angle": (["--w-angle", "0.02"], 0.02),
    "--cos-tau": (["--cos-tau", "0.1"], 0.1),
    "--ibn-tau": (["--ibn-tau", "0.2"], 0.2),
    "--angle-tau": (["--angle-tau", "0.5"], 0.5),
    "--identical-detection": (["--no-identical-detection"], False),
    "--gather-negatives": (["--no-gather-negatives"], False),
}


def _command(name: str) -> Any:
    root = typer.main.get_command(app)
    return root.get_command(click.Context(root), name)  # type: ignore[attr-defined]


def _parsed(name: str, args: list[str]) -> dict[str, Any]:
    """The parameters the command's own parser makes of `args` (nothing runs)."""
    return dict(_command(name).make_context(name, list(args)).params)  # click eats its list


def _train(args: list[str]) -> TrainConfig:
    params = _parsed("train", args)
    return _train_config("train", {**params, "loss": _objective(params)})


def _marked(model: type[Any]) -> dict[str, str]:
    """flag -> field, for the fields of `model` that carry an Option marker."""
    return {
        marker.flag: name
        for name, info in model.model_fields.items()
        for marker in info.metadata
        if isinstance(marker, Option)
    }


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_the_commands_list_the_options_they_always_had(name: str) -> None:
    shown = [o for p in _command(name).params for o in [*p.opts, *p.secondary_opts]]
    assert shown == OPTIONS[name]


def test_every_marked_field_is_an_option_of_train() -> None:
    flags = set(OPTIONS["train"])
    marked = {**_marked(TrainConfig), **_marked(LossConfig)}
    assert set(marked) <= flags
    assert set(marked) == set(NOT_DEFAULT)  # each marked option is exercised below


def test_the_defaults_make_the_config_models_defaults() -> None:
    built = _train([])
    expected = TrainConfig(data="data/dataset", output=Path("runs/angle"))
    assert built == expected


@pytest.mark.parametrize("flag", sorted(NOT_DEFAULT))
def test_each_option_sets_its_field(flag: str) -> None:
    args, value = NOT_DEFAULT[flag]
    built = _train(args)
    train_fields, loss_fields = _marked(TrainConfig), _marked(LossConfig)
    if flag in train_fields:
        assert getattr(built, train_fields[flag]) == value
    else:
        assert getattr(built.loss, loss_fields[flag]) == value
    default = _train([])
    changed = {k for k in TrainConfig.model_fields if getattr(built, k) != getattr(default, k)}
    assert len(changed) == 1, changed  # that field only


def test_ablate_builds_its_base_in_the_same_place() -> None:
    words = [w for flag in OPTIONS["ablate"] if flag in NOT_DEFAULT for w in NOT_DEFAULT[flag][0]]
    base = _train_config("ablate", _parsed("ablate", words))
    for flag, field in _marked(TrainConfig).items():
        if flag in OPTIONS["ablate"]:
            assert getattr(base, field) == NOT_DEFAULT[flag][1], flag
    assert base.loss == LossConfig() and base.resume is True  # what ablate does not take


def test_quiet_and_an_empty_valid_split_are_read_as_before() -> None:
    built = _train(["--quiet", "--valid-split", ""])
    assert built.progress is False and built.valid_split is None


def test_a_preset_is_overridden_only_where_told() -> None:
    built = _train(["--loss", "angle-emb-0.6.1", "--w-angle", "0.5"])
    assert (built.loss.w_cos, built.loss.w_angle, built.loss.identical_detection) == (
        0.0,
        0.5,
        False,
    )
    with pytest.raises(ConfigError, match="unknown --loss 'nope'"):
        _train(["--loss", "nope"])
    # the range of LossConfig's field, checked by the parser (one line, exit 2, in `app.run`)
    with pytest.raises(typer.BadParameter, match="greater than or equal to 0"):
        _train(["--w-cos", "-1"])


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA: --device cuda works")
def test_device_cuda_without_cuda_is_a_usage_error() -> None:
    from training.distributed import setup

    with pytest.raises(ConfigError, match="no CUDA device") as info:
        setup("cuda")
    assert info.value.exit_code == 2
