"""Shared option defaults and console for every command, so names stay consistent."""

from __future__ import annotations

import dataclasses
import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, get_type_hints

import typer
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined
from rich.console import Console

from issues_sts.config import Option
from issues_sts.errors import ConfigError
from issues_sts.secrets import SCRUB

DATA_DIR = Path("data")
DEFAULT_STORE = DATA_DIR / "store"
DEFAULT_OUT = DATA_DIR / "dataset"
DEFAULT_LINKS = DATA_DIR / "links"  # its own: `build` refuses a folder holding links files
DEFAULT_REPOS = Path("repos.yaml")

# Progress and summaries go to stderr so that `--json` output on stdout stays clean.
console = Console(stderr=True, highlight=False)
out = Console(highlight=False, soft_wrap=True)
# Off a terminal (a scheduler's log, a pipe) rich assumes 80 columns and cuts repository names
# in the summary tables to "lum…"; a log file has room for the whole line.
for _console in (console, out):
    if not _console.is_terminal and "COLUMNS" not in os.environ:
        _console.width = 160


# The shared option vocabulary (cli/aliases.py keeps the retired names working for a release):
# every command takes --quiet with this meaning.
QUIET_HELP = "No progress bars, lines or spinners; results, warnings and errors still print."


def quiet_option() -> Any:
    """The `--quiet` option, declared the same way by every command."""
    return typer.Option(False, "--quiet", help=QUIET_HELP)


def env_token(*names: str) -> str | None:
    """The first non-empty environment variable among `names`, stripped; every shape it was
    given in is known to the process's scrubber from then on."""
    for name in names:
        raw = os.environ.get(name, "")
        if raw.strip():
            SCRUB.add(raw)
            return raw.strip()
    return None


_SECRET_OPTIONS = ("--token",)
# where the command that takes `--token` reads it from instead, once the resume line drops it
_TOKEN_VARIABLE = {"crawl": "GITHUB_TOKEN", "push": "HF_TOKEN"}


def resume_command(prog: str, args: Sequence[str]) -> str:
    """The command line that repeats this run, without any secret: a `--token` given on the
    command line is left out (export GITHUB_TOKEN / HF_TOKEN instead)."""
    kept: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if _secret_flag(arg):
            skip = arg in _SECRET_OPTIONS  # `--token VALUE`: the value goes too
            continue
        kept.append(arg)
    return shlex.join([prog, *kept])


def _secret_flag(arg: str) -> bool:
    """`--token` or `--token=VALUE`."""
    return arg.split("=", 1)[0] in _SECRET_OPTIONS


def dropped_secret_note(args: Sequence[str]) -> str | None:
    """What to do before running `resume_command`'s line when it left a `--token` out: the
    line alone would run without the token (or with another one from the environment)."""
    if not any(_secret_flag(arg) for arg in args):
        return None
    variable = next((_TOKEN_VARIABLE[arg] for arg in args if arg in _TOKEN_VARIABLE), None)
    where = f"export {variable}=... first" if variable else "pass it again"
    return f"--token is left out of this line: {where}"


def config_error(
    exc: ValidationError,
    command: str,
    model: type[Any] | None = None,
    *,
    typed: Mapping[str, str] | None = None,
) -> ConfigError:
    """The one place a config model's validation error becomes a one-line ConfigError that
    names the option as the user typed it (`--min-confidence`, not `min_confidence`; a nested
    model's field, `links.min_confidence`, is its own option too). `typed` names the option
    that set a field on this command line where several can (`repos`: `--repo` or
    `--repos`); with `model`, a field marked with its option (`Option("--lr")`) is named by
    it; otherwise the field's name is spelled with dashes. pydantic's message is passed on
    as it is."""
    first = exc.errors()[0]
    names = [str(part) for part in first["loc"] if isinstance(part, str)]
    field = names[-1:] or ["value"]
    option = (
        (typed or {}).get(field[0])
        or _marked_option(model, names)
        or "--" + field[0].replace("_", "-")
    )
    message = str(first["msg"]).removeprefix("Value error, ")
    return ConfigError(f"{option}: {message}", hint=f"see `issues-sts {command} --help`")


def _marked_option(model: type[Any] | None, names: list[str]) -> str | None:
    """The `Option` flag of the field at `names` (nested models followed), if marked."""
    info = None
    for name in names:
        fields = config_fields(model) if model is not None else {}
        if name not in fields:
            return None
        info = fields[name]
        model = info.annotation if isinstance(info.annotation, type) else None
    marker = next((m for m in info.metadata if isinstance(m, Option)), None) if info else None
    return marker.flag if marker else None


def option_default(model: type[BaseModel] | type[Any], field: str) -> Any:
    """A CLI option's default, read from the config's field (a pydantic model's or a
    dataclass's) so it is said once."""
    if dataclasses.is_dataclass(model):
        found = next(f for f in dataclasses.fields(model) if f.name == field)
        if found.default is not dataclasses.MISSING:
            return found.default
        if not callable(found.default_factory):
            raise TypeError(f"{model.__name__}.{field} has no default")
        return found.default_factory()
    return model.model_fields[field].get_default(call_default_factory=True)


def config_fields(model: type[Any]) -> dict[str, FieldInfo]:
    """A config's fields as pydantic sees them (a dataclass's too: its `Annotated` markers and
    bounds in `metadata`), so options are declared alike from either kind of config; {} for
    anything else."""
    if isinstance(model, type) and issubclass(model, BaseModel):
        return dict(model.model_fields)
    if not (isinstance(model, type) and dataclasses.is_dataclass(model)):
        return {}
    hints = get_type_hints(model, include_extras=True)
    return {
        f.name: FieldInfo.from_annotated_attribute(
            hints[f.name], PydanticUndefined if f.default is dataclasses.MISSING else f.default
        )
        for f in dataclasses.fields(model)
    }


def field_range(model: type[Any], field: str) -> dict[str, Any]:
    """`min`/`max` for `typer.Option` from a config field's bounds (`Field(ge=0, lt=2**32)`),
    so that `--help` shows the range the config enforces and the parser refuses what lies
    outside it. An open bound is closed on integers (gt=1 is min 2); on floats the parser
    cannot say it, and the config's own check does."""
    bounds: dict[str, Any] = {}
    is_int = _field_type(model, field) is int
    for item in config_fields(model)[field].metadata:
        for key, name, step in (
            ("ge", "min", 0),
            ("gt", "min", 1),
            ("le", "max", 0),
            ("lt", "max", -1),
        ):
            value = getattr(item, key, None)
            if value is not None and (step == 0 or is_int):
                bounds[name] = value + step
    return bounds


def _field_type(model: type[Any], field: str) -> Any:
    """The field's type without `| None`."""
    annotation = config_fields(model)[field].annotation
    args = [a for a in getattr(annotation, "__args__", ()) if a is not type(None)]
    return args[0] if len(args) == 1 else annotation


def activation_line() -> str | None:
    """`source .venv/bin/activate` for the virtual environment running us (None outside one),
    so printed next steps work in a fresh shell."""
    if sys.prefix == sys.base_prefix:
        return None
    venv = Path(sys.prefix)
    try:
        shown = venv.relative_to(Path.cwd())
    except ValueError:
        shown = venv
    return f"source {shlex.quote(str(shown / 'bin' / 'activate'))}"
