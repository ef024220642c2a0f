"""Options stated once: a command's option for a config field is declared from the field (its
flag and help from the field's `Option` marker, its default and range from the field), and
the command builds its config from its parameters, which are named after the fields.

    seed: int = config_option(BuildConfig, "seed"),
    ...
    cfg = config_from(BuildConfig, "build", ctx.params)

The parameter's Python type stays in the signature (typer reads it, mypy checks the body); a
`Literal` field is a plain `str` there, and the config's validation refuses other values
with the option's name (exit 2), as before typer saw it."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, TypeGuard, TypeVar

import typer
from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from issues_sts.cli.common import config_error, config_fields, field_range
from issues_sts.config import Option

Config = TypeVar("Config")


def config_option(model: type[Any], field: str, **overrides: Any) -> Any:
    """The `typer.Option` that sets `model`'s `field` (a pydantic model's or a dataclass's; a
    nested model's as `links.min_confidence`): flag and help from its `Option` marker
    (`--x/--no-x` for a flag on by default), default from the field (a tuple's as a list: a
    repeatable option; a required field's option is required unless `default` is given),
    `min`/`max` from its bounds. `overrides` go to `typer.Option` as they are (a `callback`,
    or a CLI-only default)."""
    owner, name = _owner(model, field)
    info = config_fields(owner)[name]
    marker = option_marker(info)
    if marker is None:
        raise TypeError(f"{owner.__name__}.{name} carries no Option marker")
    default = info.get_default(call_default_factory=True)
    if default is PydanticUndefined:
        default = ...
    settings: dict[str, Any] = {
        "help": marker.help,
        **field_range(owner, name),
        **overrides,
    }
    flags = marker.flag
    if default is True:  # a flag on by default is only of use turned off: --x/--no-x
        flags = f"{flags}/--no-{flags.removeprefix('--')}"
    default = settings.pop("default", list(default) if isinstance(default, tuple) else default)
    return typer.Option(default, flags, **settings)


def config_from(
    model: type[Config],
    command: str,
    params: Mapping[str, Any],
    *,
    typed: Mapping[str, str] | None = None,
) -> Config:
    """`model` (a pydantic model or a dataclass) from a command's parameters named after its
    fields (a nested model's fields too, unless the nested model itself is given); other
    parameters are not the config's. Validation checks a `Literal` field's choices; a value
    the config refuses is a one-line ConfigError naming the option (exit 2)."""
    try:
        return TypeAdapter(model).validate_python(_config_fields(model, params))
    except ValidationError as exc:
        raise config_error(exc, command, model, typed=typed) from None


def option_marker(info: FieldInfo) -> Option | None:
    """The field's `Option` marker, if it has one."""
    return next((m for m in info.metadata if isinstance(m, Option)), None)


def _config_fields(model: type[Any], params: Mapping[str, Any]) -> dict[str, Any]:
    if _is_model(model):
        return _fields_of(model, params)
    names = {f.name for f in dataclasses.fields(model)}
    return {name: value for name, value in params.items() if name in names}


def _fields_of(model: type[BaseModel], params: Mapping[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        nested = info.annotation
        if name in params:
            found[name] = params[name]
        elif _is_model(nested) and (inner := _fields_of(nested, params)):
            found[name] = inner
    return found


def _owner(model: type[Any], field: str) -> tuple[type[Any], str]:
    """The model that holds a dotted field's last name, and that name."""
    *path, name = field.split(".")
    for step in path:
        annotation = config_fields(model)[step].annotation
        assert _is_model(annotation), field
        model = annotation
    return model, name


def _is_model(annotation: Any) -> TypeGuard[type[BaseModel]]:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)
