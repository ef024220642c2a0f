"""Every command the README shows must exist with the options it shows, so the README can't rot.

The commands themselves run in other tests (demo end to end, crawl, build, push, training);
here each README line is parsed and checked against the real CLI's parser.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest
import typer.main

from issues_sts.cli.app import app as issues_app

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _command_lines() -> list[str]:
    lines: list[str] = []
    for block in re.findall(r"```bash\n(.*?)```", README, flags=re.S):
        for raw in block.splitlines():
            line = raw.split("  #")[0].strip()
            if line.startswith(("issues-sts ", "python -m issues_sts")):
                lines.append(line)
    return lines


def _resolve(line: str) -> tuple[click.Command, list[str]]:
    words = shlex.split(line.replace("[--private]", "--private"))
    # `python -m issues_sts ...` is an alias of `issues-sts ...` (issues_sts/__main__.py)
    words = words[1:] if words[0] == "issues-sts" else words[3:]
    command: click.Command = typer.main.get_command(issues_app)
    while hasattr(command, "get_command") and words and not words[0].startswith("-"):
        sub = command.get_command(click.Context(command), words[0])  # type: ignore[attr-defined]
        assert sub is not None, f"README names an unknown command: {line}"
        command, words = sub, words[1:]
    return command, words


def test_readme_first_screen_has_exactly_the_two_commands() -> None:
    first_block = re.search(r"```bash\n(.*?)```", README, flags=re.S)
    assert first_block is not None
    commands = [ln for ln in first_block.group(1).splitlines() if ln.strip()]
    assert [c.split()[:2] for c in commands] == [["make", "demo"], ["make", "test"]]
    makefile = (ROOT / "Makefile").read_text()
    assert "issues-sts demo" in makefile and "pytest" in makefile
    assert "make test" in (ROOT / ".ci" / "run").read_text()


@pytest.mark.parametrize("line", _command_lines())
def test_readme_command_exists_with_its_options(line: str) -> None:
    command, words = _resolve(line)
    known = {
        opt
        for param in command.params
        for opt in getattr(param, "opts", []) + getattr(param, "secondary_opts", [])
    }
    for word in words:
        if word.startswith("--"):
            assert word.split("=")[0] in known, f"{word} is not an option of: {line}"


def test_readme_shows_every_top_level_command() -> None:
    group = typer.main.get_command(issues_app)
    for name in group.list_commands(click.Context(group)):  # type: ignore[attr-defined]
        assert f"issues-sts {name}" in README, f"the README never shows `issues-sts {name}`"
