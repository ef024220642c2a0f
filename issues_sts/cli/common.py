"""Shared option defaults and console for every command, so names stay consistent."""

from __future__ import annotations

import os
from pathlib import Path

from rich.console import Console

DATA_DIR = Path("data")
DEFAULT_STORE = DATA_DIR / "store"
DEFAULT_OUT = DATA_DIR / "dataset"
DEFAULT_REPOS = Path("repos.yaml")

# Progress and summaries go to stderr so that `--json` output on stdout stays clean.
console = Console(stderr=True, highlight=False)
out = Console(highlight=False, soft_wrap=True)


def env_token(*names: str) -> str | None:
    """The first non-empty environment variable among `names`."""
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None
