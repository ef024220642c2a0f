"""The reporter the CLI passes to runners: one rich progress line per stage on stderr."""

from __future__ import annotations

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


class RichReporter:
    """`issues_sts.report.Reporter` drawn with rich. With `bars=False` (--quiet) only notices
    and the summary are printed. Entering twice (the demo runs a crawl, then a build) is
    fine: the bars start with the outer `with` and stop with it."""

    def __init__(self, console: Console, *, bars: bool = True) -> None:
        self.console = console
        self.bars = bars
        self.progress = Progress(
            TextColumn("[bold]{task.description:<28}"),
            BarColumn(bar_width=24),
            TextColumn("{task.completed:>6.0f}/{task.fields[shown_total]}"),
            TextColumn("{task.fields[note]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
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

    def advance(self, steps: int = 1, *, total: int | None = None, note: str | None = None) -> None:
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


def _shown(total: int | None) -> str:
    return "?" if total is None else str(total)
