"""What the user sees while crawling: a progress line (repositories done and left, what the
crawl has spent against its plan, an ETA) and a table at the end (the line when a rate-limit
wait starts is `announce.py`'s).

The line goes to the `Reporter` (a bar in a terminal, a line at a steady pace in a log) and,
as a `progress` event with the same numbers, to the `issues_sts.crawl` logger (`--log`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

from rich.table import Table

from issues_sts.crawl.config import CrawlSummary, RepoSummary
from issues_sts.crawl.plan import Plan
from issues_sts.report import Reporter

log = logging.getLogger("issues_sts.crawl")


@dataclass(frozen=True)
class Projection:
    """What a `crawl --plan` expects this crawl to spend: requests plus points, and hours."""

    cost: int
    hours: float

    @classmethod
    def of(cls, plan: Plan | None, *, anonymous: bool) -> Projection | None:
        """None without a plan, or once a complete crawl followed it (a re-crawl is
        incremental and costs a fraction of a first crawl: no honest ETA)."""
        if plan is None or plan.compared:
            return None
        if anonymous:
            requests = plan.anonymous_requests()
            return cls(requests, requests / 60)
        total = plan.total()
        return cls(total.rest_requests + total.graphql_points, total.hours(plan.assumptions))


def eta_seconds(projection: Projection, spent: int, elapsed: float) -> float:
    """Seconds left: extrapolated from this run's pace once it has spent something for a
    minute, else the plan's own hours for what is left."""
    done = min(spent / max(projection.cost, 1), 0.99)
    if spent > 0 and elapsed >= 60:
        return elapsed * (1 - done) / done
    return projection.hours * 3600 * (1 - done)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class CrawlProgress:
    """The crawl's line on a `Reporter`: repositories done and left, pages and items so far,
    the repositories under way, what was spent of the plan and when the crawl should end.

    Several repositories are synced at once (`repos_at_once`), so one line counts them all
    rather than a line per repository that pages of another would advance. A repository's start
    and end are milestones (a line in a log whatever the pace); between them `beat` refreshes
    the line every `every` seconds, also while every request waits for a rate limit.
    """

    def __init__(
        self,
        reporter: Reporter,
        repos: int,
        *,
        projection: Projection | None = None,
        spent: Callable[[], int] = lambda: 0,
        every: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
        no_eta: str = "ETA unknown (`issues-sts crawl --plan` sizes a first crawl)",
    ) -> None:
        self.reporter = reporter
        self.no_eta = no_eta
        self.repos = repos
        self.projection = projection
        self.spent = spent
        self.every = every
        self.clock = clock
        self.started = clock()
        self._under_way: list[str] = []
        self._done = 0
        self._items = 0
        self._pages = 0
        self._budget = "?"
        self._staged = False
        self._logged = float("-inf")  # when the JSON log last got a progress event
        self._lock = threading.Lock()  # pages arrive from the worker threads
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None

    # -- the heartbeat: a fresh line while nothing else moves ------------------------------
    def __enter__(self) -> CrawlProgress:
        self._beat = threading.Thread(target=self._beating, name="crawl-progress", daemon=True)
        self._beat.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._beat is not None:
            self._beat.join(timeout=5)

    def _beating(self) -> None:
        while not self._stop.wait(self.every):
            self.beat()

    def beat(self) -> None:
        with self._lock:
            if self._staged:
                self._show(0, "", milestone=False)

    # -- what the runner reports ------------------------------------------------------------
    def start(self, repo: str) -> None:
        with self._lock:
            if not self._staged:
                self.reporter.stage("crawl (repositories)", total=self.repos)
                self._staged = True
            self._under_way.append(repo)
            self._show(0, f"started {repo}", milestone=True)

    def page(
        self, repo: str, resource: str, items: int, pages_left: int | None, budget: str
    ) -> None:
        with self._lock:
            self._items += items
            self._pages += 1
            self._budget = budget
            self._show(0, "", milestone=False)

    def end(self, summary: RepoSummary) -> None:
        with self._lock:
            if summary.repo in self._under_way:
                self._under_way.remove(summary.repo)
            self._done += 1
            self._show(1, f"{summary.repo}: {summary.status}", milestone=True)

    # -- the line -----------------------------------------------------------------------------
    def _show(self, steps: int, event: str, *, milestone: bool) -> None:
        numbers = self.numbers()
        self.reporter.advance(steps, note=self._note(numbers, event), milestone=milestone)
        # the JSON log keeps the same pace as a line on stderr (a little slack, as there):
        # a heartbeat during a long rate-limit wait reaches `--log` too
        now = self.clock()
        if milestone or steps or now - self._logged >= 0.95 * self.every:
            self._logged = now
            log.info(
                "progress: %s", event or "under way", extra={"event": "progress", "data": numbers}
            )

    def numbers(self) -> dict[str, object]:
        """The line's numbers, as the `progress` event of the JSON log carries them."""
        elapsed = self.clock() - self.started
        numbers: dict[str, object] = {
            "repos_done": self._done,
            "repos_left": self.repos - self._done,
            "repos_not_started": self.repos - self._done - len(self._under_way),
            "under_way": list(self._under_way),
            "pages": self._pages,
            "items": self._items,
            "elapsed_seconds": round(elapsed, 1),
            "budget": self._budget,
        }
        if self.projection is not None:
            spent = self.spent()
            left = eta_seconds(self.projection, spent, elapsed) if self._done < self.repos else 0
            numbers |= {"spent": spent, "planned": self.projection.cost, "eta_seconds": round(left)}
        return numbers

    def _note(self, n: dict[str, object], event: str) -> str:
        under_way = self._under_way
        shown = ", ".join(under_way[:3]) + (" ..." if len(under_way) > 3 else "")
        parts = [event] if event else []
        # what a narrow terminal must not cut comes first: the ETA and the budget
        if self.projection is not None:
            eta = float(n["eta_seconds"])  # type: ignore[arg-type]
            until = time.strftime("%H:%M UTC", time.gmtime(time.time() + eta))
            parts += [
                f"ETA {_duration(eta)} ({until})",
                f"budget {n['budget']}",
                f"{n['spent']:,} of ~{n['planned']:,} planned requests+points",
            ]
        else:
            parts += [self.no_eta, f"budget {n['budget']}"]
        parts += [
            # the repository just started is under way, not left to start
            f"{n['repos_not_started']} not started",
            f"{n['pages']:,} pages {n['items']:,} items",
            f"under way: {shown or '-'}",
        ]
        return "; ".join(parts)


def summary_data(summary: CrawlSummary) -> dict[str, object]:
    """The summary as the `summary` event of the JSON log carries it."""
    return asdict(summary) | {"graphql_points": summary.graphql_points, "ok": summary.ok}


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
