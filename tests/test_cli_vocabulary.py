"""One option vocabulary across the commands, checked on the real parser of every command:
`--out` is a folder, a file written is `--json-out` or `--plot` (or the crawl's `--log`),
`--json` is a flag, `--quiet` is everywhere, train and ablate name their two pair limits
alike, and no command's option is called like the program's `--version`. The names retired
for it still work for a release, each with a one-line notice."""

from __future__ import annotations

from typing import Any

import click
import pytest
import typer.main

from issues_sts.cli.aliases import RENAMED, command_of, rewrite
from issues_sts.cli.app import app
from issues_sts.cli.common import QUIET_HELP
from tests.cli_process import run

FILE_OPTIONS = {"--json-out", "--plot", "--log"}  # options naming a file the command writes
RETIRED = {"--dir", "--output", "--version"}  # on a command (the program keeps --version)


def _commands() -> dict[str, Any]:
    """Every leaf command by its name ("links show"). Typer carries its own copy of click, so
    groups and options are told by what they do, not by click's classes."""
    found: dict[str, Any] = {}

    def walk(command: Any, path: list[str]) -> None:
        if hasattr(command, "list_commands"):
            for name in command.list_commands(click.Context(command)):
                sub = command.get_command(click.Context(command), name)
                assert sub is not None
                walk(sub, [*path, name])
        else:
            found[" ".join(path)] = command

    walk(typer.main.get_command(app), [])
    return found


COMMANDS = _commands()


def _options(command: Any) -> dict[str, Any]:
    return {
        name: param
        for param in command.params
        if param.param_type_name == "option"
        for name in param.opts
    }


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_uses_the_shared_names(name: str) -> None:
    options = _options(COMMANDS[name])
    quiet = options.get("--quiet")
    assert quiet is not None and quiet.is_flag and quiet.help == QUIET_HELP, name
    assert not RETIRED & set(options), f"{name}: {RETIRED & set(options)}"
    if "--json" in options:
        assert options["--json"].is_flag, f"{name} --json takes a value"
    if "--out" in options:
        assert "folder" in (options["--out"].help or "").lower(), f"{name} --out is not a folder"
    writes = {o for o in options if o.endswith("-out") or o in ("--plot", "--log")}
    assert writes - {"--out"} <= FILE_OPTIONS, name


@pytest.mark.parametrize("name", ["train", "ablate"])
def test_train_and_ablate_name_their_pair_limits_alike(name: str) -> None:
    options = _options(COMMANDS[name])
    assert {"--max-train-pairs", "--max-eval-pairs"} <= set(options)
    assert "--max-pairs" not in options


# One name per idea (issue 33): a pair limit, a step budget, a repositories file.
ONE_NAME = {"--max-pairs": "--max-eval-pairs", "--steps": "--max-steps"}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_one_name_per_idea_across_commands(name: str) -> None:
    options = _options(COMMANDS[name])
    for old, new in ONE_NAME.items():
        assert old not in options, f"{name} {old}: the other commands call it {new}"
    if "--repos" in options:  # crawl's repositories file; fake-github's count is --repo-count
        assert options["--repos"].type_descriptor.annotation is not int, name


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_flags_show_no_value_in_help(name: str) -> None:
    result = run([*name.split(), "--help"], COLUMNS="200")
    assert result.code == 0
    assert "<bool>" not in result.out, name  # `--quiet <bool>`, though `--quiet true` is refused


def test_train_and_pretrain_ran_default_to_the_same_device() -> None:
    from training.config import PretrainConfig, TrainConfig

    assert _options(COMMANDS["train"])["--device"].default is None
    assert _options(COMMANDS["pretrain-ran"])["--device"].default is None  # was "cpu"
    assert TrainConfig.model_fields["device"].default is None
    assert PretrainConfig.__dataclass_fields__["device"].default is None


def test_every_retired_name_points_at_a_visible_option_of_its_command() -> None:
    for renamed in RENAMED:
        options = _options(COMMANDS[renamed.command])
        new = renamed.new.split()[0]
        old = renamed.old.split()[0]
        assert new in options and not options[new].hidden, renamed
        # the old name is gone, or (diff --json) now a flag that takes no file
        assert old not in options or options[old].is_flag, renamed


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["demo", "--dir", "x", "--quiet"], ["demo", "--out", "x", "--quiet"]),
        (["--debug", "demo", "--dir=x"], ["--debug", "demo", "--out=x"]),
        (["evaluate", "--out", "m.json"], ["evaluate", "--json-out", "m.json"]),
        (["train", "--max-pairs", "8"], ["train", "--max-eval-pairs", "8"]),
        (["ablate", "--max-pairs", "8"], ["ablate", "--max-eval-pairs", "8"]),
        (["build", "--version", "v3"], ["build", "--dataset-version", "v3"]),
        (["evaluate", "--max-pairs", "8"], ["evaluate", "--max-eval-pairs", "8"]),
        (["pretrain-ran", "--steps", "3"], ["pretrain-ran", "--max-steps", "3"]),
        (["fake-github", "--repos", "2"], ["fake-github", "--repo-count", "2"]),
        (["diff", "a", "b", "--json", "c.json"], ["diff", "a", "b", "--json-out", "c.json"]),
        (["diff", "--json", "c.json", "a", "b"], ["diff", "--json-out", "c.json", "a", "b"]),
        (["diff", "a", "b", "--json", "-"], ["diff", "a", "b", "--json"]),
    ],
)
def test_retired_names_are_rewritten_with_one_notice(args: list[str], expected: list[str]) -> None:
    notes: list[str] = []
    assert rewrite(args, notes.append) == expected
    assert len(notes) == 1 and "deprecated" in notes[0] and "next release" in notes[0]


@pytest.mark.parametrize(
    "args",
    [
        ["diff", "a", "b", "--json"],  # the flag, as it is now
        ["diff", "--json", "a", "b"],
        ["crawl", "--out", "x"],  # only evaluate's --out was a file
        ["--version"],
        ["links", "extract", "--out", "x"],
        ["train", "--out", "runs/x", "--max-eval-pairs", "4"],
    ],
)
def test_current_names_are_left_alone(args: list[str]) -> None:
    notes: list[str] = []
    assert rewrite(args, notes.append) == args and notes == []


def test_command_of() -> None:
    assert command_of(["--debug", "links", "show", "a/b#1"]) == ("links show", 3)
    assert command_of(["build", "--store", "s"]) == ("build", 1)
    assert command_of(["--version"]) == ("", 1)


def test_an_old_name_works_from_the_console_script(tmp_path: object) -> None:
    result = run(["build", "--store", "/nonexistent/store", "--version", "v9"])
    assert result.code == 3  # parsed as --dataset-version: the store is the problem
    notes = [line for line in result.err.splitlines() if line.startswith("note:")]
    assert notes == [
        "note: `issues-sts build --version` is deprecated and goes in the next release; use "
        "--dataset-version"
    ]


@pytest.mark.parametrize(
    ("name", "flag"),
    [
        ("build", "--seed"),
        ("build", "--same-repo-share"),
        ("train", "--batch-size"),
        ("train", "--grad-accumulation"),
        ("ablate", "--max-steps"),
        ("pretrain-ran", "--max-length"),
        ("demo", "--batch-size"),
        ("fake-github", "--port"),
        ("links extract", "--min-confidence"),
        ("evaluate", "--max-length"),
        ("crawl", "--per-page"),
    ],
)
def test_ranges_show_in_every_command(name: str, flag: str) -> None:
    option = _options(COMMANDS[name])[flag]
    # shown in --help as [x>=N], and refused by the parser in one line (exit 2)
    assert option._get_number_range_help_str(), f"{name} {flag}"
