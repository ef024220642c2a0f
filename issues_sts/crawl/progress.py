"""What the user sees while crawling: one progress line per repository, a table at the end."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from issues_sts.crawl.config import CrawlSummary, RepoSummary


class Reporter:
    """Per-repository progress: pages, items, requests left in the budget, ETA.

    The total of a task grows as `Link rel=last` tells how many pages remain, which is what
    the ETA column works from. With `enabled=False` nothing is drawn (tests, --quiet).
    """

    def __init__(self, console: Console, *, enabled: bool = True) -> None:
        self.enabled = enabled
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(bar_width=24),
            TextColumn("{task.completed:>6.0f} pages  {task.fields[items]:>8} items"),
            TextColumn("budget {task.fields[budget]}"),
            TextColumn("{task.fields[note]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
            disable=not enabled,
            transient=False,
        )
        self._task: TaskID | None = None
        self._left: dict[str, int | None] = {}
        self._items = 0

    def __enter__(self) -> Reporter:
        self.progress.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.stop()

    def start_repo(self, repo: str) -> None:
        self._left, self._items = {}, 0
        self._task = self.progress.add_task(repo, total=None, items=0, budget="?", note="")

    def page(self, resource: str, items: int, pages_left: int | None, budget: str) -> None:
        if self._task is None:
            return
        self._items += items
        key = "timelines" if resource.startswith(("timeline", "graphql", "refs")) else resource
        self._left[key] = pages_left
        done = self.progress.tasks[self._task].completed + 1 if self.enabled else 0
        known = [v for v in self._left.values() if v is not None]
        total = done + sum(known) if len(known) == len(self._left) else None
        self.progress.update(self._task, advance=1, total=total, items=self._items, budget=budget, note="")

    def notice(self, text: str) -> None:
        """A line that must be seen even without a terminal or with --quiet: waits and retries."""
        self.progress.console.print(text, markup=False, highlight=False, soft_wrap=True)

    def note(self, text: str) -> None:
        if self._task is not None:
            self.progress.update(self._task, note=text)

    def end_repo(self, summary: RepoSummary) -> None:
        if self._task is not None:
            done = self.progress.tasks[self._task].completed if self.enabled else 0
            self.progress.update(self._task, total=done, note=summary.status)
            self._task = None


def summary_table(summary: CrawlSummary) -> Table:
    """The table printed at the end of `issues-sts crawl`."""
    table = Table(title="crawl summary", show_lines=False)
    for column in ("repository", "status", "pages", "issues+PRs", "comments", "events",
                   "candidates", "304s", "redirects", "tombstones", "seconds"):
        table.add_column(column, justify="left" if column in ("repository", "status") else "right")
    for r in summary.repos:  # messages are printed below the table, where they do not wrap
        table.add_row(r.repo, r.status, str(r.pages), str(r.issues), str(r.comments), str(r.events),
                      str(r.candidates), str(r.not_modified), str(r.redirects), str(r.tombstones),
                      f"{r.seconds:.1f}")
    table.caption = (
        f"{summary.requests} requests counted ({summary.graphql_requests} GraphQL, "
        f"{summary.graphql_points} points), {summary.not_modified} free 304s, {summary.retries} "
        f"retries, {summary.waited_seconds:.1f} s waiting for rate limits, {summary.seconds:.1f} s "
        "in all"
        + (f"; stopped: {summary.stopped}" if summary.stopped else "")
        + (f"; {summary.pages} pages committed" if summary.interrupted else "")
        + (f"\n{summary.plan_line}" if summary.plan_line else "")
    )
    return table
