"""What the user sees while crawling: one progress line per repository, a table at the end."""

from __future__ import annotations

import threading

from rich.table import Table

from issues_sts.crawl.config import CrawlSummary, RepoSummary
from issues_sts.report import Reporter


class RepoProgress:
    """One repository's line on a `Reporter`: pages, items, requests left in the budget.

    The line's total grows as `Link rel=last` tells how many pages of each resource remain,
    which is what an ETA works from; it is unknown until every resource has said.
    """

    def __init__(self, reporter: Reporter) -> None:
        self.reporter = reporter
        self._left: dict[str, int | None] = {}
        self._items = 0
        self._pages = 0
        self._active = False
        self._lock = threading.Lock()  # pages arrive from the worker threads

    def start(self, repo: str) -> None:
        self._left, self._items, self._pages, self._active = {}, 0, 0, True
        self.reporter.stage(repo)

    def page(self, resource: str, items: int, pages_left: int | None, budget: str) -> None:
        with self._lock:
            if not self._active:
                return
            self._items += items
            self._pages += 1
            key = "timelines" if resource.startswith(("timeline", "graphql", "refs")) else resource
            self._left[key] = pages_left
            known = [v for v in self._left.values() if v is not None]
            total = self._pages + sum(known) if len(known) == len(self._left) else None
            self.reporter.advance(total=total, note=f"pages {self._items:>8} items  budget {budget}")

    def end(self, summary: RepoSummary) -> None:
        if self._active:
            self.reporter.advance(0, total=self._pages, note=f"pages {self._items:>8} items  {summary.status}")
            self._active = False


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
