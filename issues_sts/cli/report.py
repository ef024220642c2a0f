"""The reporters the CLI passes to runners, on stderr: rich bars in a terminal, plain lines at
a steady pace anywhere else (`> log 2>&1`, nohup, a scheduler), where rich would draw nothing
until the end."""

from __future__ import annotations

import time
from collections.abc import Callable
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Column

from issues_sts.report import Reporter, SilentReporter

# A line at least this often in a log while work moves (the crawl's --progress-every).
PROGRESS_EVERY = 30.0


def make_reporter(console: Console, *, quiet: bool, every: float = PROGRESS_EVERY) -> Reporter:
    """Bars when `console` is a terminal, lines otherwise; `quiet`: notices and summary only."""
    if console.is_terminal:
        return RichReporter(console, bars=not quiet)
    return LineReporter(console, quiet=quiet, every=every)


class RichReporter:
    """`issues_sts.report.Reporter` drawn with rich. With `bars=False` (--quiet) only notices
    and the summary are printed. Entering twice (the demo runs a crawl, then a build) is
    fine: the bars start with the outer `with` and stop with it."""

    def __init__(self, console: Console, *, bars: bool = True) -> None:
        self.console = console
        self.bars = bars
        wide = console.width >= 120
        self.progress = Progress(
            TextColumn("[bold]{task.description}", table_column=Column(no_wrap=True)),
            BarColumn(bar_width=24 if wide else 10),
            TextColumn("{task.completed:>4.0f}/{task.fields[shown_total]}"),
            *([TimeElapsedColumn()] if wide else []),
            TimeRemainingColumn(),
            # last and folded, never cut: a crawl's note carries its ETA and budget, which a
            # terminal of 80 columns must still show (on a second line if need be)
            TextColumn(
                "{task.fields[note]}", table_column=Column(ratio=1, overflow="fold", no_wrap=False)
            ),
            console=console,
            disable=not bars,
            transient=False,
        )
        self._task: TaskID | None = None
        self._depth = 0

    def __enter__(self) -> RichReporter:
        if self._depth == 0:
            for task in list(self.progress.task_ids):  # drawn already by the previous run
                self.progress.remove_task(task)
            self._task = None
            self.progress.start()
        self._depth += 1
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._depth -= 1
        if self._depth == 0:
            self.progress.stop()

    def stage(self, name: str, total: int | None = None) -> None:
        self._task = self.progress.add_task(name, total=total, note="", shown_total=_shown(total))

    def advance(
        self,
        steps: int = 1,
        *,
        total: int | None = None,
        note: str | None = None,
        milestone: bool = False,
    ) -> None:
        if self._task is None:
            return
        if total is not None:
            self.progress.update(self._task, total=total, shown_total=_shown(total))
        if note is not None:
            self.progress.update(self._task, note=note)
        self.progress.advance(self._task, steps)

    def notice(self, text: str) -> None:
        self.progress.console.print(text, markup=False, highlight=False, soft_wrap=True)

    def summary(self, *renderables: object) -> None:
        for renderable in renderables:
            self.console.print(renderable)


class LineReporter(SilentReporter):
    """The same verbs as plain timestamped lines, each flushed as it is written: a stage's
    start, every milestone, and otherwise at most one progress line per `every` seconds (the
    crawl's heartbeat keeps one coming while it waits). `quiet`: notices and summary only.
    Nothing to start or stop around a run: the silent reporter's context is its own."""

    def __init__(
        self,
        console: Console,
        *,
        quiet: bool = False,
        every: float = PROGRESS_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.console = console
        self.quiet = quiet
        self.every = every
        self.clock = clock
        self._stage = ""
        self._total: int | None = None
        self._done = 0
        self._last_line = float("-inf")

    def stage(self, name: str, total: int | None = None) -> None:
        self._stage, self._total, self._done = name, total, 0
        if not self.quiet:
            self._line(name + (f" ({total:,})" if total is not None else ""))

    def advance(
        self,
        steps: int = 1,
        *,
        total: int | None = None,
        note: str | None = None,
        milestone: bool = False,
    ) -> None:
        self._done += steps
        if total is not None:
            self._total = total
        # a little slack: a heartbeat every `every` s must not miss its turn by a millisecond
        due = self.clock() - self._last_line >= 0.95 * self.every
        if self.quiet or not (milestone or due):
            return
        count = f"{self._done}/{_shown(self._total)}"
        self._line(f"{self._stage} {count}" + (f": {note}" if note else ""))

    def notice(self, text: str) -> None:
        self._line(text)

    def summary(self, *renderables: object) -> None:
        for renderable in renderables:
            self.console.print(renderable)

    def _line(self, text: str) -> None:
        self._last_line = self.clock()
        stamp = time.strftime("%H:%M:%S")
        self.console.print(f"[{stamp}] {text}", markup=False, highlight=False, soft_wrap=True)


def _shown(total: int | None) -> str:
    return "?" if total is None else str(total)
