"""What the config models share: which CLI option sets a field (and what its `--help` says),
and the command line that repeats a configuration (written into the dataset card)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from pydantic import BaseModel


@dataclass(frozen=True)
class Option:
    """Marks a config field with the CLI option that sets it (`Annotated[int, Option("--seed")]`).
    `always`: the field is written in a repeated command line even at its default. `help`: the
    option's line in `--help`; the command declares the option from the field
    (`cli/options.py`: flag and help from here, default and range from the field), so an
    option is said once."""

    flag: str
    always: bool = False
    help: str = ""


def option_args(config: BaseModel) -> list[str]:
    """The options that set `config` (nested models included, in field order): those marked
    `always`, and every other whose value is not its default. Pairs, such as renamed
    repositories, repeat their option once per pair as `old=new`."""
    args: list[str] = []
    for name, info in type(config).model_fields.items():
        value = getattr(config, name)
        if isinstance(value, BaseModel):
            args += option_args(value)
            continue
        option = next((m for m in info.metadata if isinstance(m, Option)), None)
        if option is None or value is None:
            continue
        if not option.always and value == info.get_default(call_default_factory=True):
            continue
        if isinstance(value, bool):  # a flag: named when on
            args += [option.flag] if value else []
        elif isinstance(value, tuple):
            for item in value:
                args += [option.flag, "=".join(item) if isinstance(item, tuple) else str(item)]
        else:
            args += [option.flag, str(value)]
    return args


def command_line(program: str, config: BaseModel) -> str:
    """`program` followed by the options that set `config`, quoted for a shell."""
    return shlex.join([*shlex.split(program), *option_args(config)])
