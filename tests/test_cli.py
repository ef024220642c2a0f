"""The CLI as a user meets it: --version, --help with examples everywhere, one-line errors
with exit codes, and tracebacks only with --debug."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest
import typer.main

from issues_sts import __version__
from issues_sts.cli.app import app

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "issues_sts.cli.app", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
        env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"},
    )


def _leaf_commands() -> list[list[str]]:
    root = typer.main.get_command(app)
    leaves: list[list[str]] = []

    def walk(command: object, path: list[str]) -> None:
        if hasattr(command, "list_commands"):
            for name in command.list_commands(click.Context(command)):  # type: ignore[attr-defined]
                walk(command.get_command(click.Context(command), name), [*path, name])  # type: ignore[attr-defined]
        else:
            leaves.append(path)

    walk(root, [])
    return leaves


def test_version() -> None:
    result = _run("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"issues-sts {__version__}"


@pytest.mark.parametrize("path", _leaf_commands(), ids=lambda p: " ".join(p))
def test_every_command_has_help_with_examples(path: list[str]) -> None:
    command = typer.main.get_command(app)
    for name in path:
        command = command.get_command(click.Context(command), name)  # type: ignore[attr-defined]
    assert "Examples" in (command.help or ""), (
        f"`issues-sts {' '.join(path)} --help` shows no examples"
    )


def test_user_mistake_is_one_line_and_debug_shows_the_traceback(tmp_path: Path) -> None:
    plain = _run("build", "--store", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out"))
    assert plain.returncode == 3
    lines = plain.stderr.strip().splitlines()
    assert (
        len(lines) == 1
        and lines[0].startswith("error: no crawl store")
        and "issues-sts crawl" in lines[0]
    )
    debug = _run(
        "--debug", "build", "--store", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out")
    )
    assert debug.returncode != 0 and "Traceback" in debug.stderr


def test_usage_error_exits_2() -> None:
    result = _run("crawl", "--no-such-option")
    assert result.returncode == 2 and "No such option" in result.stderr
