"""The one crawl runner: every repository's sync flow (`sync.py`), several at once.

`repos_at_once` flows run together (`pump.pump_flows`): one repository's round trips overlap
with another's pages, so the crawl waits on GitHub's limits rather than its latency. Fetching
runs on at most `max_in_flight` worker threads, paced by the limiter; every store write happens
on the calling thread, one page and its checkpoint per transaction. The runner holds the
crawl's lock, saves the effective configuration next to the store, records how each
repository ended, and stops the whole run where nothing else can work.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import httpx

from issues_sts.crawl.announce import WaitAnnouncer
from issues_sts.crawl.chains import Chain
from issues_sts.crawl.client import BudgetReached, GitHubClient, open_client
from issues_sts.crawl.config import CrawlConfig, CrawlSummary, RepoSummary
from issues_sts.crawl.plan import Plan, compare
from issues_sts.crawl.progress import CrawlProgress, Projection
from issues_sts.crawl.pump import pump_flows
from issues_sts.crawl.sync import RepoSync
from issues_sts.errors import (
    BadCredentials,
    GitHubError,
    RateLimited,
    RepoNotFound,
    SignalInterrupt,
    StoreError,
    Unreachable,
    os_errors,
)
from issues_sts.report import SILENT, Reporter
from issues_sts.store import CRAWL_CONFIG, Store
from issues_sts.store.lock import CrawlLock

log = logging.getLogger("issues_sts.crawl")

CONFIG_FILE = CRAWL_CONFIG


def run_crawl(
    cfg: CrawlConfig,
    *,
    reporter: Reporter = SILENT,
    http: httpx.Client | None = None,
    clock: Callable[[], float] = time.time,
    sleep: Callable[[float], None] | None = None,
    progress_every: float = 30.0,
) -> CrawlSummary:
    """Crawl `cfg.repos` into `cfg.store` and return what was done.

    Resumable (a second call continues where a killed one stopped) and incremental (a call
    after a finished crawl only asks what changed; unchanged lists answer free 304s).
    Raises BadCredentials when the token is rejected; a missing repository is reported in
    the summary and skipped. The progress line is refreshed at least every
    `progress_every` seconds.
    """
    store, lock = _open_store(cfg)
    try:
        with open_client(
            cfg,
            http=http,
            clock=clock,
            sleep=sleep,
            on_retry=lambda text: reporter.notice(f"retrying: {text}"),
        ) as client:
            return _crawl(cfg, store, client, reporter, clock, progress_every)
    finally:
        store.close()
        lock.release()


def _open_store(cfg: CrawlConfig) -> tuple[Store, CrawlLock]:
    """The store, under the crawl's lock, with the effective configuration saved next to it."""
    store = Store.open(cfg.store, create=True)
    lock = CrawlLock(cfg.store)
    try:
        lock.acquire()  # released by the caller, with the store
        with os_errors(StoreError, f"the crawl store {cfg.store} cannot be written"):
            (cfg.store / CONFIG_FILE).write_text(
                json.dumps(cfg.public_dict(), indent=2) + "\n", encoding="utf-8"
            )
    except StoreError:
        store.close()
        lock.release()
        raise
    return store, lock


def _crawl(
    cfg: CrawlConfig,
    store: Store,
    client: GitHubClient,
    reporter: Reporter,
    clock: Callable[[], float],
    progress_every: float,
) -> CrawlSummary:
    """Every repository's flow through the pump; the summary, however the run ended."""
    summary = CrawlSummary()
    started = clock()
    anonymous = cfg.token is None
    limiter = client.limiter
    limiter.on_wait = WaitAnnouncer(
        reporter, clock, cfg.pacing.announce_after, anonymous=anonymous, state=limiter.state
    )
    plan = Plan.load(cfg.store)
    progress = CrawlProgress(
        reporter,
        len(cfg.repos),
        projection=Projection.of(plan, anonymous=anonymous),
        spent=lambda: client.stats.counted - client.stats.graphql + summary.graphql_points,
        every=progress_every,
        no_eta=_no_eta(plan),
    )
    sync = RepoSync(cfg, store, client, progress)
    try:
        with reporter, progress:
            ends = RepoEnds(sync, summary, clock)
            # One more step than requests in flight: a page is committed while the next is fetched.
            pump_flows(
                ends.flows(largest_first(cfg.repos, plan)),
                client,
                cfg.max_in_flight + 1,
                flows_at_once=cfg.repos_at_once,
                on_end=ends.end,
                on_spent=ends.spent,
            )
    except StopCrawl:
        pass
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: every committed page is kept
        summary.stopped = "interrupted" if not isinstance(exc, SignalInterrupt) else "terminated"
        for result in summary.repos:
            if result.status == "pending":
                result.status = "interrupted"
    finally:
        order = {repo: i for i, repo in enumerate(cfg.repos)}
        summary.repos.sort(
            key=lambda r: order.get(r.repo, len(order))
        )  # as asked, whatever ran first
        summary.graphql_used = cfg.graphql and sync.graphql_ok
        summary.graphql_shrinks = sync.sizer.shrinks
        _account(summary, client, clock() - started)
        if summary.ok:
            summary.plan_line = _compare_with_plan(cfg.store, summary)
    return summary


def _no_eta(plan: Plan | None) -> str:
    if plan is None:
        return "ETA unknown (`issues-sts crawl --plan` sizes a first crawl)"
    return "no ETA: a re-crawl asks only what changed"


def _compare_with_plan(store: Path, summary: CrawlSummary) -> str | None:
    """The `crawl --plan` projection against this crawl, once: after the first complete crawl
    the plan is marked compared (re-crawls cost a fraction of it)."""
    plan = Plan.load(store)
    if plan is None or plan.compared:
        return None
    line = compare(
        plan, summary.requests - summary.graphql_requests, summary.graphql_points, summary.seconds
    )
    plan.compared = line
    plan.save(store)
    return line


def largest_first(repos: Iterable[str], plan: Plan | None) -> list[str]:
    """The repositories in the order their flows open: the largest first when a `crawl --plan`
    knows their sizes, so the crawl does not end on one big repository paging alone."""
    sizes = {p.repo: p.items for p in plan.repos} if plan is not None else {}
    return sorted(repos, key=lambda repo: -sizes.get(repo, 0))


class StopCrawl(Exception):
    """The whole run stops (a budget is spent, a bucket stays closed); `summary.stopped` says
    why."""


class RepoEnds:
    """Opens each repository's flow with its summary row, and records how it ended."""

    def __init__(self, sync: RepoSync, summary: CrawlSummary, clock: Callable[[], float]) -> None:
        self.sync = sync
        self.summary = summary
        self.clock = clock
        self.started: dict[str, float] = {}

    def flows(
        self, repos: Iterable[str]
    ) -> Iterator[tuple[RepoSummary, Iterator[Iterable[Chain]]]]:
        for repo in repos:
            result = RepoSummary(repo)
            self.summary.repos.append(result)
            self.sync.progress.start(repo)
            self.started[repo] = self.clock()
            yield result, self.sync.flow(repo, result)

    def spent(self, result: RepoSummary, requests: int) -> None:
        """A repository's requests when `end` could not know them all: one under way when the
        crawl stopped (Ctrl-C, SIGTERM, a spent budget; it said 0 requests and 0.0 s), or one
        whose other requests were still out when it ended."""
        result.requests = requests
        if result.repo in self.started:  # still under way: its time so far
            result.seconds = self.clock() - self.started.pop(result.repo)

    def end(self, result: RepoSummary, exc: BaseException | None, requests: int) -> None:
        """A missing or failing repository is reported and the others go on; a spent budget,
        a closed bucket, a rejected token or an unreachable server stop the whole run."""
        result.requests = requests
        result.seconds = self.clock() - self.started.pop(result.repo, self.clock())
        stop: str | None = None
        if exc is None:
            result.status = "lossy" if result.lost_threads else "ok"
            if result.lost_threads:
                result.message = (
                    f"{result.lost_comments:,} comments of {result.lost_threads:,} threads "
                    "could not be stored"
                )
                log.error("%s: %s", result.repo, result.message)
        elif isinstance(exc, RepoNotFound):
            result.status, result.message = "missing", exc.one_line()
            log.warning("%s", exc.one_line())
        elif isinstance(exc, BudgetReached):
            result.status, stop = "stopped", f"{exc}; run the same command again to resume"
        elif isinstance(exc, RateLimited):
            result.status, stop = "stopped", exc.one_line()
        elif isinstance(exc, (BadCredentials, Unreachable)) or not isinstance(exc, GitHubError):
            raise exc  # nothing else can work either (or a bug): stop the whole run
        else:
            result.status, result.message = "failed", exc.one_line()
            # the store says so too (`status`, the build's completeness check), not `pending`
            self.sync.store.upsert_repo(result.repo, status="failed")
            log.error("%s: %s", result.repo, exc.one_line())
        self.sync.progress.end(result)
        if stop is not None:
            self._stop_all(stop)

    def _stop_all(self, stop: str) -> None:
        self.summary.stopped = stop
        for other in self.summary.repos:  # repositories under way keep what they committed
            if other.status == "pending":
                other.status = "stopped"
        raise StopCrawl(stop)


def _account(summary: CrawlSummary, client: GitHubClient, seconds: float) -> None:
    stats, limiter = client.stats, client.limiter
    summary.requests = stats.counted
    summary.graphql_requests = stats.graphql
    summary.not_modified = stats.not_modified
    summary.sent = stats.sent
    summary.retries = stats.retries
    summary.waited_seconds = limiter.stats.waited_seconds
    summary.response_seconds = dict(limiter.response_seconds)
    summary.seconds = seconds
