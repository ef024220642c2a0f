"""The reporter a benchmark passes to a runner: bars on a terminal, only notices in a log."""

from __future__ import annotations

import sys

from rich.console import Console

from issues_sts.cli.report import RichReporter


def terminal_reporter() -> RichReporter:
    return RichReporter(Console(stderr=True), bars=sys.stderr.isatty())
