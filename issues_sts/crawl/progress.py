"""What the user sees while crawling: one progress line per repository, a table at the end."""

from __future__ import annotations

import threading

from rich.table import Table

from issues_sts.crawl.config import CrawlSummary, RepoSummary
from issues_sts.report import Reporter


class CrawlProgress:
    """The crawl's line on a `Reporter`: repositories done of all, pages and items so far, the
    repositories under way and the requests left in the budget.

    Several repositories are synced at once (`repos_at_once`), so one line counts them all
    rather than a line per repository that pages of another would advance.
    """

    def __init__(self, reporter: Reporter, repos: int) -> None:
        self.reporter = reporter
        self.repos = repos
        self._under_way: list[str] = []
        self._items = 0
        self._pages = 0
        self._staged = False
        self._lock = threading.Lock()  # pages arrive from the worker threads

    def start(self, repo: str) -> None:
        with self._lock:
            if not self._staged:
                self.reporter.stage("crawl (repositories)", total=self.repos)
                self._staged = True
            self._under_way.append(repo)
            self.reporter.advance(0, note=self._note())

    def page(
        self, repo: str, resource: str, items: int, pages_left: int | None, budget: str
    ) -> None:
        with self._lock:
            self._items += items
            self._pages += 1
            self.reporter.advance(0, note=self._note(f"budget {budget}"))

    def end(self, summary: RepoSummary) -> None:
        with self._lock:
            if summary.repo in self._under_way:
                self._under_way.remove(summary.repo)
            self.reporter.advance(1, note=self._note(f"{summary.repo}: {summary.status}"))

    def _note(self, tail: str = "") -> str:
        shown = ", ".join(self._under_way[:3]) + (" ..." if len(self._under_way) > 3 else "")
        return f"{self._pages} pages {self._items} items; under way: {shown or '-'}" + (
            f"; {tail}" if tail else ""
        )


def summary_table(summary: CrawlSummary) -> Table:
    """The table printed at the end of `issues-sts crawl`."""
    table = Table(title="crawl summary", show_lines=False)
    for column in (
        "repository",
        "status",
        "pages",
        "issues+PRs",
        "comments",
        "events",
        "candidates",
        "304s",
        "redirects",
        "tombstones",
        "seconds",
    ):
        table.add_column(column, justify="left" if column in ("repository", "status") else "right")
    for r in summary.repos:  # messages are printed below the table, where they do not wrap
        table.add_row(
            r.repo,
            r.status,
            str(r.pages),
            str(r.issues),
            str(r.comments),
            str(r.events),
            str(r.candidates),
            str(r.not_modified),
            str(r.redirects),
            str(r.tombstones),
            f"{r.seconds:.1f}",
        )
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
