"""Options stated once (cli/options.py): each option a command declares from a config field
says that field's help, default and range in `--help`, and the config is built from it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined
from typer.testing import CliRunner

from issues_sts.cli.app import app
from issues_sts.cli.common import config_fields, field_range
from issues_sts.cli.options import config_from, config_option, option_marker
from issues_sts.config import Option
from issues_sts.crawl.config import CrawlConfig
from issues_sts.dataset.config import BuildConfig
from issues_sts.demo import DemoConfig
from issues_sts.errors import ConfigError
from issues_sts.retrieval.indexer import IndexConfig
from training.config import TrainConfig

# the commands whose options are declared from a config's fields
COMMANDS = [
    ("build", BuildConfig),
    ("crawl", CrawlConfig),
    ("train", TrainConfig),
    ("index", IndexConfig),
    ("demo", DemoConfig),
]
# options whose default is the command's own: train's objective options default to "as
# --loss's preset says", and the dataset and run folder are required of a TrainConfig
OWN_DEFAULTS = {
    "--dataset",
    "--out",
    *("--w-cos", "--w-ibn", "--w-angle", "--cos-tau", "--ibn-tau", "--angle-tau"),
    "--identical-detection",
}


def _marked(model: type[Any]) -> Iterator[tuple[type[Any], str, FieldInfo, Option]]:
    """Every field of `model` (a pydantic model or a dataclass; nested models' included)
    marked with an Option."""
    for name, info in config_fields(model).items():
        if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel):
            yield from _marked(info.annotation)
        elif (marker := option_marker(info)) is not None:
            yield model, name, info, marker


def _help_lines(command: str) -> dict[str, str]:
    """Each option's text in `command --help` (its lines joined), by its flag."""
    result = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    texts: dict[str, str] = {}
    flag = None
    for line in result.output.splitlines():
        if m := re.match(r"│ (--[\w-]+)", line):
            flag = m.group(1)
            texts[flag] = ""
        elif not line.startswith("│ "):
            flag = None
        if flag is not None:
            texts[flag] += " " + line.strip("│ ")
    return {flag: " ".join(text.split()) for flag, text in texts.items()}


def _shown(value: Any, flag: str) -> str | None:
    """What `[default: ...]` shows for a field's default (None: nothing is shown); a flag on
    by default is shown by its name."""
    if value is None or value is PydanticUndefined or value is False or value == ():
        return None
    return flag.removeprefix("--") if value is True else str(value)


def _range(bounds: dict[str, Any]) -> str | None:
    """How `--help` shows a range (click's own words)."""
    low, high = bounds.get("min"), bounds.get("max")
    if low is not None and high is not None:
        return f"[{low}<=x<={high}]"
    if low is not None:
        return f"[x>={low}]"
    return f"[x<={high}]" if high is not None else None


@pytest.mark.parametrize(("command", "model"), COMMANDS)
def test_help_states_each_fields_help_default_and_range(command: str, model: type[Any]) -> None:
    lines = _help_lines(command)
    marked = list(_marked(model))
    assert marked, f"{model.__name__} marks no field"
    for owner, name, info, marker in marked:
        line = lines[marker.flag]  # the command declares every marked option
        if marker.help:
            assert " ".join(marker.help.replace("`", "").split()) in line, marker.flag
        shown = _shown(info.get_default(call_default_factory=True), marker.flag)
        if shown is not None and marker.flag not in OWN_DEFAULTS:
            assert f"[default: {shown}]" in line, marker.flag
        if shown_range := _range(field_range(owner, name)):
            assert shown_range in line, marker.flag


def test_a_range_from_the_field_is_refused_by_the_parser() -> None:
    result = CliRunner().invoke(app, ["build", "--seed", "-1"])
    assert result.exit_code == 2
    assert "greater than or equal to 0" in " ".join(result.output.replace("│", "").split())


def test_config_from_fills_nested_models_and_names_the_option_it_refuses() -> None:
    cfg = config_from(
        BuildConfig, "build", {"seed": 7, "min_confidence": 0.25, "quiet": True, "store": "s"}
    )
    assert (cfg.seed, cfg.links.min_confidence, cfg.store) == (7, 0.25, Path("s"))
    with pytest.raises(ConfigError, match=r"^--negatives: Input should be 'random' or 'hard'"):
        config_from(BuildConfig, "build", {"negatives": "some"})


def test_an_unmarked_field_has_no_option() -> None:
    with pytest.raises(TypeError, match="no Option marker"):
        config_option(BuildConfig, "long_threshold")


def test_a_dataclass_config_is_built_and_refused_by_its_markers() -> None:
    params = {"store": "s", "out": "i", "batch_size": 8, "quiet": True}
    cfg = config_from(IndexConfig, "index", params)
    assert (cfg.store, cfg.out, cfg.batch_size, cfg.chunk_rows) == (Path("s"), Path("i"), 8, 256)
    with pytest.raises(ConfigError, match=r"^--batch-size: Input should be greater than or equal"):
        config_from(IndexConfig, "index", {**params, "batch_size": 0})
    lines = _help_lines("index")
    assert "[default: data/store]" in lines["--store"]
    assert "[default: data/index]" in lines["--out"]
