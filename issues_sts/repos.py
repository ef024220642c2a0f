"""`repos.yaml`: the list of repositories to crawl, validated with line numbers."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError

from issues_sts.errors import ConfigError

# GitHub's rules: owners are alphanumerics and hyphens, never a leading one (max 39 chars);
# repository names are alphanumerics, '.', '-', '_' (max 100 chars). A new account may not end
# in a hyphen or hold two in a row, but accounts made before that rule still do and own real
# repositories (mjl-/mox, a row of the conv-40 annotation round), so the check is the old one.
_OWNER = r"[A-Za-z0-9][A-Za-z0-9-]{0,38}"
_NAME = r"[A-Za-z0-9._-]{1,100}"
REPO_PATTERN = re.compile(rf"^{_OWNER}/{_NAME}$")


def _check_full_name(value: str) -> str:
    value = value.strip()
    if not REPO_PATTERN.match(value) or value.split("/")[1] in {".", ".."}:
        raise ValueError(f"{value!r} is not an owner/name repository")
    return value


RepoName = Annotated[str, AfterValidator(_check_full_name)]


class RepoList(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    repos: tuple[RepoName, ...]


def parse_repo_name(value: str) -> str:
    """Validate one `owner/name` given on the command line."""
    try:
        return _check_full_name(value)
    except ValueError as exc:
        raise ConfigError(str(exc), hint="use the form owner/name, e.g. rust-lang/rust") from None


def load_repos(path: Path) -> tuple[str, ...]:
    """Read and validate a repos file; every problem is one line naming the file and line."""
    if not path.exists():
        raise ConfigError(f"{path} does not exist", hint="pass --repos FILE or --repo owner/name")
    if path.is_dir():
        raise ConfigError(f"{path} is a folder, not a repos file", hint="pass --repos FILE")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigError(
            f"{path} is not UTF-8 text", hint="save it as UTF-8 YAML: `repos:` then `- owner/name`"
        ) from None
    except OSError as exc:
        raise ConfigError(
            f"{path} cannot be read ({exc.strerror})", hint="pass --repos FILE"
        ) from None
    try:
        root = yaml.compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise ConfigError(f"{where}: {problem}", hint="fix the YAML syntax") from None
    items = _sequence_items(root, path)
    seen: dict[str, int] = {}
    for value, line in items:
        try:
            name = _check_full_name(value)
        except ValueError as exc:
            raise ConfigError(f"{path}:{line}: {exc}", hint="use the form owner/name") from None
        key = name.lower()  # GitHub names are case-insensitive
        if key in seen:
            raise ConfigError(
                f"{path}:{line}: {name} is listed twice (first on line {seen[key]})",
                hint="remove the duplicate entry",
            )
        seen[key] = line
    try:
        return RepoList(repos=tuple(v for v, _ in items)).repos
    except ValidationError as exc:  # pragma: no cover - the loop above already checked
        raise ConfigError(f"{path}: {exc.errors()[0]['msg']}") from None


def _sequence_items(root: yaml.Node | None, path: Path) -> list[tuple[str, int]]:
    """The scalar entries of `repos:` (or a bare list) with their 1-based line numbers."""
    hint = "the file must hold `repos:` followed by `- owner/name` lines"
    node = root
    if isinstance(root, yaml.MappingNode):
        seen: set[str] = set()
        for key, _ in root.value:
            if not isinstance(key, yaml.ScalarNode):
                continue
            if key.value in seen:  # YAML keeps the last silently: the first list would be lost
                raise ConfigError(
                    f"{path}:{key.start_mark.line + 1}: the key {key.value!r} appears twice",
                    hint="merge the lists under one `repos:`",
                )
            seen.add(key.value)
        keys = {k.value: v for k, v in root.value if isinstance(k, yaml.ScalarNode)}
        unknown = sorted(set(keys) - {"repos"})
        if unknown:
            line = next(k.start_mark.line + 1 for k, _ in root.value if k.value == unknown[0])
            raise ConfigError(f"{path}:{line}: unknown key {unknown[0]!r}", hint=hint)
        node = keys.get("repos")
    if not isinstance(node, yaml.SequenceNode):
        line = node.start_mark.line + 1 if node is not None else 1
        raise ConfigError(f"{path}:{line}: expected a list of repositories", hint=hint)
    items: list[tuple[str, int]] = []
    for child in node.value:
        line = child.start_mark.line + 1
        if not isinstance(child, yaml.ScalarNode) or not child.value.strip():
            raise ConfigError(
                f"{path}:{line}: expected owner/name, got a non-text entry", hint=hint
            )
        items.append((child.value, line))
    if not items:
        raise ConfigError(f"{path}: no repositories listed", hint=hint)
    return items
