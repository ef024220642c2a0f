"""Configuration as data: the CLI options, their defaults and the card's command line all
come from the config models' fields."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import click
import typer
from pydantic import BaseModel

from issues_sts.cli.app import app
from issues_sts.config import Option
from issues_sts.dataset.build import build_command
from issues_sts.dataset.config import BuildConfig
from issues_sts.links.model import LinkConfig
from issues_sts.links.renames import parse_aliases


def _build_cli() -> click.Command:
    root = typer.main.get_command(app)
    command = root.get_command(click.Context(root), "build")  # type: ignore[attr-defined]
    assert command is not None
    return command


def _marked(model: type[BaseModel]) -> dict[str, tuple[type[BaseModel], str, Option]]:
    """flag -> (model, field, marker) for every field marked with an Option, nested included."""
    found: dict[str, tuple[type[BaseModel], str, Option]] = {}
    for name, info in model.model_fields.items():
        marker = next((m for m in info.metadata if isinstance(m, Option)), None)
        if marker is not None:
            found[marker.flag] = (model, name, marker)
        elif isinstance(info.default, BaseModel):
            found |= _marked(type(info.default))
    return found


def _params_by_flag() -> dict[str, click.Parameter]:
    return {opt: param for param in _build_cli().params for opt in param.opts}


def test_every_marked_field_is_a_build_option_with_the_fields_default() -> None:
    params = _params_by_flag()
    for flag, (model, name, _) in _marked(BuildConfig).items():
        assert flag in params, f"{model.__name__}.{name} names {flag}, which `build` lacks"
        default = model.model_fields[name].get_default(call_default_factory=True)
        shown = params[flag].default
        if name == "repo_aliases":
            assert tuple(shown or ()) == default
        else:
            assert shown == default, (
                f"{flag}: the CLI says {shown!r}, {model.__name__}.{name} {default!r}"
            )


def test_the_cards_command_line_sets_the_same_config() -> None:
    cfg = BuildConfig(
        store=Path("s"),
        out=Path("o"),
        seed=7,
        negatives="hard",
        negative_ratio=0.5,
        same_repo_share=0.25,
        tokenizer="bert-base-uncased",
        split_by="time",
        text_recipe="raw",
        previous="me/ds@v1",
        version="v2",
        links=LinkConfig(min_confidence=0.3, repo_aliases=(("old/a", "new/a"), ("old/b", "new/b"))),
    )
    words = shlex.split(build_command(cfg))
    assert words[:2] == ["issues-sts", "build"]
    params: dict[str, Any] = _build_cli().make_context("build", words[2:]).params
    rebuilt = BuildConfig(
        store=params["store"],
        out=params["out"],
        seed=params["seed"],
        negatives=params["negatives"],
        negative_ratio=params["negative_ratio"],
        same_repo_share=params["same_repo_share"],
        tokenizer=params["tokenizer"],
        split_by=params["split_by"],
        text_recipe=params["text_recipe"],
        previous=params["previous"],
        version=params["version"],
        links=LinkConfig(
            min_confidence=params["min_confidence"], repo_aliases=parse_aliases(params["alias"])
        ),
    )
    assert rebuilt == cfg


def test_defaults_are_left_out_of_the_command_line_unless_always_written() -> None:
    line = build_command(BuildConfig())
    assert line == (
        "issues-sts build --store data/store --out data/dataset --seed 42 --negatives random "
        "--negative-ratio 1.0 --same-repo-share 0.8 --min-confidence 0.5"
    )


def _command(name: str) -> click.Command:
    root = typer.main.get_command(app)
    command = root.get_command(click.Context(root), name)  # type: ignore[attr-defined]
    assert command is not None
    return command


# CLI parameter -> config field, where the names differ
_TRAIN_NAMES = {
    "lr": "learning_rate",
    "max_pairs": "max_eval_pairs",
    "dataset": "data",
    "out": "output",
}


def test_train_and_pretrain_defaults_are_the_config_models() -> None:
    """`train` and `pretrain-ran` keep torch out of `issues-sts --help` by importing their
    configs late, so their defaults are written out; this keeps them equal to the models'."""
    from dataclasses import MISSING, fields

    from training.config import TrainConfig
    from training.losses import LOSS_PRESETS
    from training.pretrain_ran import PretrainConfig

    train_fields = TrainConfig.model_fields
    checked = 0
    for param in _command("train").params:
        field = _TRAIN_NAMES.get(str(param.name), str(param.name))
        if field in train_fields and field not in ("output", "data"):
            default = train_fields[field].get_default(call_default_factory=True)
            shown = (
                LOSS_PRESETS[param.default] if field == "loss" else param.default
            )  # a preset's name
            assert shown == default, field
            checked += 1
    assert checked >= 15
    pretrain_defaults = {
        f.name: f.default for f in fields(PretrainConfig) if f.default is not MISSING
    }
    checked = 0
    for param in _command("pretrain-ran").params:
        field = _TRAIN_NAMES.get(str(param.name), str(param.name))
        if field in pretrain_defaults and field != "splits":
            assert param.default == pretrain_defaults[field], field
            checked += 1
    assert checked >= 8


def test_a_validation_error_is_one_line_naming_the_option_with_the_message_untouched() -> None:
    import pytest
    from pydantic import ValidationError, field_validator

    from issues_sts.cli.common import config_error

    class Inner(BaseModel):
        max_in_flight: int = 1

        @field_validator("max_in_flight")
        @classmethod
        def _check(cls, value: int) -> int:
            if value > 2:
                raise ValueError("max_in_flight above per_page_limit")
            return value

    class Outer(BaseModel):
        inner: Inner = Inner()

    with pytest.raises(ValidationError) as caught:
        Outer.model_validate({"inner": {"max_in_flight": 3}})
    error = config_error(caught.value, "crawl")
    assert error.one_line() == (
        "--max-in-flight: max_in_flight above per_page_limit (see `issues-sts crawl --help`)"
    )


def test_a_field_marked_with_its_option_is_named_by_that_option() -> None:
    """`--lr` sets `learning_rate` and `--dataset-version` sets `version`: the error names the
    option the user typed, also in a nested model (`links.min_confidence`)."""
    import pytest
    from pydantic import ValidationError

    from issues_sts.cli.common import config_error
    from issues_sts.dataset.config import BuildConfig
    from training.config import TrainConfig

    cases = [
        (TrainConfig, {"data": "d", "output": "o", "learning_rate": -1}, "--lr: "),
        (BuildConfig, {"version": "../../etc"}, "--dataset-version: '../../etc' cannot be"),
        (BuildConfig, {"links": {"min_confidence": 2}}, "--min-confidence: "),
    ]
    for model, data, start in cases:
        with pytest.raises(ValidationError) as caught:
            model.model_validate(data)
        assert config_error(caught.value, "x", model).one_line().startswith(start)
