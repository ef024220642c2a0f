"""Option names retired for the shared vocabulary, still accepted for one release.

The vocabulary (README, "The commands"): `--out` is always a folder; a file written is
`--json-out FILE` or `--plot FILE`; `--json` is a flag that prints JSON on stdout; `--quiet`
everywhere; train, ablate and evaluate limit `--max-train-pairs` and `--max-eval-pairs`; a
step budget is `--max-steps` (train, ablate, pretrain-ran); the dataset's version is `build
--dataset-version`, apart from the program's `--version`; `--repos` is a repositories file
(crawl), a number of them is `fake-github --repo-count`.

An old name is rewritten to its new one before the command line is parsed, with a one-line
notice on stderr; `--help` shows only the new names.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

# Options of the program itself, before the command; none takes a value.
ROOT_FLAGS = ("--debug", "--version", "--help")


@dataclass(frozen=True)
class Renamed:
    command: str  # "demo", "links extract", ...
    old: str
    new: str


RENAMED: tuple[Renamed, ...] = (
    Renamed("demo", "--dir", "--out"),
    Renamed("evaluate", "--out", "--json-out"),
    Renamed("train", "--max-pairs", "--max-eval-pairs"),
    Renamed("ablate", "--max-pairs", "--max-eval-pairs"),
    Renamed("build", "--version", "--dataset-version"),
    Renamed("evaluate", "--max-pairs", "--max-eval-pairs"),
    Renamed("pretrain-ran", "--steps", "--max-steps"),
    Renamed("fake-github", "--repos", "--repo-count"),
    Renamed("diff", "--json FILE", "--json-out FILE"),  # `--json -` is now the flag `--json`
)
GROUPS = ("links",)  # commands whose first argument names a subcommand


def command_of(args: Sequence[str]) -> tuple[str, int]:
    """The command's name ("links show") and the index of its first own argument."""
    i = 0
    while i < len(args) and args[i] in ROOT_FLAGS:
        i += 1
    if i >= len(args):
        return "", i
    if args[i] in GROUPS and i + 1 < len(args) and not args[i + 1].startswith("-"):
        return f"{args[i]} {args[i + 1]}", i + 2
    return args[i], i + 1


def rewrite(args: Sequence[str], notice: Callable[[str], None]) -> list[str]:
    """`args` with retired option names replaced by their new ones, each use announced."""
    command, start = command_of(args)
    head, rest = list(args[:start]), list(args[start:])
    if command == "diff":
        rest = _diff_json(rest, notice)
    for renamed in RENAMED:
        if renamed.command != command or " " in renamed.old:
            continue
        for i, arg in enumerate(rest):
            if arg == "--":
                break
            if arg == renamed.old or arg.startswith(renamed.old + "="):
                rest[i] = renamed.new + arg[len(renamed.old) :]
                notice(_notice(command, renamed.old, renamed.new))
    return head + rest


def _diff_json(rest: list[str], notice: Callable[[str], None]) -> list[str]:
    """diff's `--json FILE` (a path, '-' for stdout) became `--json-out FILE` and the flag
    `--json`: a value after `--json` is the old form when the command line holds, with it,
    one positional more than OLD and NEW."""
    if "--json" not in rest:
        return rest
    i = rest.index("--json")
    value = rest[i + 1] if i + 1 < len(rest) else None
    positionals = [a for j, a in enumerate(rest) if j != i and not a.startswith("-")]
    if value == "-":
        notice(_notice("diff", "--json -", "--json"))
        return rest[:i] + ["--json"] + rest[i + 2 :]
    if value is not None and not value.startswith("-") and len(positionals) == 3:
        notice(_notice("diff", "--json FILE", "--json-out FILE"))
        return rest[:i] + ["--json-out", value] + rest[i + 2 :]
    return rest


def _notice(command: str, old: str, new: str) -> str:
    return (
        f"note: `issues-sts {command} {old}` is deprecated and goes in the next release; use {new}"
    )
