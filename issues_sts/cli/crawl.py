"""`issues-sts crawl` (being built; see the issue tracker)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this module's commands to `app`."""
