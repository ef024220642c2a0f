"""The one crawl runner: per repository, resolve it, sync its lists, then its candidates.

Order per repository:
1. `GET /repos/{o}/{r}` (with If-None-Match): renames are followed, a missing repository is
   reported and skipped;
2. the issue list and the repo-wide comment list, as two chains in flight at once;
3. duplicate candidates: batched GraphQL (canonical issue named) or REST timelines;
4. numbers the lists did not return although the duplicate evidence names them (a comment's
   reference, an event's canonical): GET each once (transferred: 301, followed and recorded;
   deleted: 404/410, a tombstone). Known numbers are never asked again, and a gap in the
   numbering that no evidence names costs nothing (deleted spam, transferred issues).
Without GraphQL, a REST timeline is asked only where its answer can change a link: REST
events do not name the canonical, so only an issue closed with GitHub's "Duplicate of #N"
keyword and open again (where an `unmarked_as_duplicate` event may have retracted it) is
worth one.
Fetching runs on at most `max_in_flight` worker threads; every store write happens here, on
the calling thread, one page and its checkpoint per transaction.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

import httpx

from issues_sts.crawl.candidates import (
    Candidate,
    has_duplicate_wording,
    rank_candidates,
    referenced_numbers,
)
from issues_sts.crawl.chains import (
    IDLE,
    Chain,
    GraphQLChain,
    ListChain,
    RefChain,
    RepoContext,
)
from issues_sts.crawl.client import (
    SIGNAL_SLICE,
    BudgetReached,
    GitHubClient,
    Page,
    Scrubber,
    make_http_client,
)
from issues_sts.crawl.config import CrawlConfig, CrawlSummary, RepoSummary
from issues_sts.crawl.feed import CandidateFeed
from issues_sts.crawl.graphql import PageSizer
from issues_sts.crawl.limiter import Limiter
from issues_sts.crawl.plan import Assumptions, Plan, ask_counts, compare, plan_repo
from issues_sts.crawl.progress import RepoProgress
from issues_sts.crawl.threads import Ask, ThreadChain, ThreadFeed, pack
from issues_sts.errors import (
    BadCredentials,
    GitHubError,
    RateLimited,
    RepoNotFound,
    SignalInterrupt,
    Unreachable,
)
from issues_sts.report import SILENT, Reporter
from issues_sts.store import Checkpoint, Store, utcnow

log = logging.getLogger("issues_sts.crawl")
# GitHub's own keyword: a comment line starting "Duplicate of #N" marks the issue a duplicate.
KEYWORD_CLOSE = re.compile(r"^[ \t]*duplicate[ \t]+of[ \t]*\S", re.IGNORECASE | re.MULTILINE)


def keyword_closes(comments: list[dict[str, Any]]) -> set[int]:
    """Issue numbers of REST comments that use the "Duplicate of" keyword."""
    found = set()
    for comment in comments:
        tail = str(comment.get("issue_url", "")).rstrip("/").rsplit("/", 1)[-1]
        if tail.isdigit() and KEYWORD_CLOSE.search(str(comment.get("body") or "")):
            found.add(int(tail))
    return found
CONFIG_FILE = "crawl-config.json"


def pump(chains: Iterable[Chain], client: GitHubClient, width: int) -> None:
    """Run chains with at most `width` steps under way; commit on this thread.

    A chain whose page just landed goes first again, so each resource advances steadily;
    an IDLE chain is asked again after the next commit.
    """
    pool = ThreadPoolExecutor(max_workers=width, thread_name_prefix="crawl")
    try:
        _pump(iter(chains), client, width, pool)
    except BaseException:
        # Ctrl-C, SIGTERM or an error: end the workers' waits at once instead of joining a
        # thread that sleeps through a rate-limit window.
        if client is not None:
            client.cancel()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _pump(source: Iterator[Chain], client: GitHubClient, width: int, pool: ThreadPoolExecutor) -> None:
    ready: deque[Chain] = deque()
    parked: list[Chain] = []
    running: dict[Future[Any], Chain] = {}
    while True:
        while len(running) < width:
            chain = ready.popleft() if ready else next(source, None)
            if chain is None:
                break
            step = chain.next_step()
            if step is IDLE:
                parked.append(chain)
            elif step is not None:
                running[pool.submit(step, client)] = chain  # type: ignore[arg-type]
        if not running:
            if not parked:
                return
            if all(chain.next_step() is IDLE for chain in parked):
                raise RuntimeError("crawl chains wait on each other")  # a bug, never data
            ready.extend(parked)
            parked.clear()
            continue
        # A bounded wait: Ctrl-C delivered to a worker thread reaches us within a slice.
        done, _ = wait(running, timeout=SIGNAL_SLICE, return_when=FIRST_COMPLETED)
        if not done:
            continue
        for future in done:
            chain = running.pop(future)
            chain.commit(future.result())
            ready.appendleft(chain)
        ready.extend(parked)
        parked.clear()


def get_following(client: GitHubClient, path: str, etag: str | None = None) -> tuple[Page, int]:
    """GET a repository, following up to 3 redirects (a renamed or moved repository answers
    301 with where it lives now); the answer and how many hops it took."""
    page = client.get(path, etag=etag, expect=(404,))
    hops = 0
    while page.status in (301, 302, 307, 308) and page.location and hops < 3:
        page, hops = client.get(page.location, expect=(404,)), hops + 1
    return page, hops


class RepoSync:
    """Everything one repository needs, in the order of the module docstring."""

    def __init__(self, cfg: CrawlConfig, store: Store, client: GitHubClient, reporter: Reporter) -> None:
        self.cfg = cfg
        self.store = store
        self.client = client
        self.progress = RepoProgress(reporter)
        # GitHub's GraphQL API needs a token; anonymous crawls use REST timelines only.
        self.graphql_ok = cfg.graphql and cfg.token is not None
        self.keyword_closed: set[int] = set()  # issues of the current repository closed by keyword
        self.open_numbers: set[int] = set()  # its issues that are open now
        self.sizer = PageSizer(slow_seconds=cfg.pacing.slow_query)  # node budget of GraphQL thread batches, shared by all repositories

    def run(self, repo: str, summary: RepoSummary) -> None:
        self.store.upsert_repo(repo)
        current = self.resolve(repo)
        ctx = RepoContext(self.store, repo, f"repos/{current}", summary, self.cfg.per_page, self._on_page)
        feed = CandidateFeed([], self.cfg.graphql_batch, self.cfg.max_candidates, lambda c: self._batch(ctx, c))
        self.keyword_closed.clear()
        self.open_numbers = set()

        def on_comments(items: list[dict[str, Any]]) -> None:
            self.keyword_closed |= keyword_closes(items)
            feed.offer_comments(items)

        # With GraphQL, comments come per issue (threads.py): PRs' comments are never paid for.
        by_threads = self.graphql_ok
        threads = ThreadFeed(lambda asks: self._threads(ctx, asks, on_comments), self.sizer,
                             lambda: all(chain.finished for chain in feed.lists), lambda: self.graphql_ok)

        def on_issues(items: list[dict[str, Any]]) -> None:
            for item in items:
                (self.open_numbers.add if item.get("state") == "open" else self.open_numbers.discard)(int(item["number"]))
            feed.offer_issues(items)
            if by_threads:
                threads.offer_issues(items)

        comments = ListChain(ctx, "comments", "issues/comments", {"sort": "updated", "direction": "asc"},
                             on_items=on_comments)
        feed.lists = [ListChain(ctx, "issues", "issues", {"state": "all", "sort": "updated", "direction": "asc"},
                                on_items=on_issues)]
        if not by_threads:
            feed.lists.append(comments)
        # One more step than requests in flight: a page is committed while the next is fetched.
        width = self.cfg.max_in_flight + 1
        pump([*feed.lists, threads, feed], self.client, width)
        if by_threads and self.graphql_ok:  # threads a resumed crawl had not asked yet
            left = self.thread_todo(repo)
            pump((self._threads(ctx, pack(left, self.sizer.budget), on_comments) for _ in iter(lambda: bool(left), False)),
                 self.client, width)
        if by_threads and not self.graphql_ok:  # GraphQL went away: the REST listing instead
            pump([comments], self.client, width)
        worded, named, self.keyword_closed = self.comment_evidence(repo)
        self.open_numbers = self.store.open_numbers(repo)
        ranked, todo = self.candidates(repo, worded)
        summary.candidates = len(ranked)
        batch = self.cfg.graphql_batch
        pump((self._batch(ctx, todo[i:i + batch]) for i in range(0, len(todo), batch)), self.client, width)
        pump((RefChain(ctx, n) for n in self.named_missing(repo, named)), self.client, width)
        self.store.upsert_repo(repo, status="ok", last_sync=utcnow())

    def resolve(self, repo: str) -> str:
        """The repository's current owner/name (following a rename); RepoNotFound if none."""
        cp = self.store.checkpoint(repo, "repo")
        known = self.store.repo_row(repo) or {}
        etag = cp.etag if cp.done and known.get("current_name") else None
        page, hops = get_following(self.client, f"repos/{repo}", etag)
        if page.status == 304:
            return str(known["current_name"])
        if page.status != 200 or not isinstance(page.data, dict):
            self.store.upsert_repo(repo, status="missing")
            raise RepoNotFound(f"{repo} does not exist or is not visible to this token", status=page.status)
        current = str(page.data.get("full_name") or repo)
        self.store.upsert_repo(repo, repo_id=page.data.get("id"), current_name=current)
        self.store.put_checkpoint(Checkpoint(repo, "repo", etag=page.etag if hops == 0 else None, done=True))
        return current

    def comment_evidence(self, repo: str) -> tuple[set[int], set[int], set[int]]:
        """One pass over the stored comments: issues with duplicate wording, the numbers such
        comments point at, and issues closed with GitHub's "Duplicate of" keyword."""
        worded: set[int] = set()
        named: set[int] = set()
        keyword: set[int] = set()
        for number, body in self.store.comment_bodies(repo):
            if has_duplicate_wording(body):
                worded.add(number)
                named |= referenced_numbers(body, repo)
                if KEYWORD_CLOSE.search(body):
                    keyword.add(number)
        return worded, named, keyword

    def candidates(self, repo: str, worded: set[int]) -> tuple[list[Candidate], list[tuple[int, str | None]]]:
        """All candidates (ranked, bounded), and those whose timeline is not stored for their
        current `updated_at`."""
        ranked = rank_candidates(self.store.issue_evidence(repo), worded, self.cfg.max_candidates)
        stored = self.store.checkpoint_watermarks(repo, "timeline:")
        todo = [(c.number, c.updated_at) for c in ranked
                if stored.get(f"timeline:{c.number}", "\0") != c.updated_at]
        return ranked, todo

    def thread_todo(self, repo: str) -> list[tuple[int, str | None, int]]:
        """Issues with comments whose thread is not stored for their current `updated_at`."""
        stored = self.store.checkpoint_watermarks(repo, "thread:")
        return [(n, updated, count) for n, updated, count in self.store.issue_threads(repo)
                if count > 0 and stored.get(f"thread:{n}", "\0") != updated]

    def _threads(self, ctx: RepoContext, asks: list[Ask], on_comments: Callable[[list[dict[str, Any]]], None]) -> ThreadChain:
        return ThreadChain(ctx, asks, self.sizer, self.cfg.api_url, on_comments, self._graphql_off)

    def _batch(self, ctx: RepoContext, chunk: list[tuple[int, str | None]]) -> Chain:
        return GraphQLChain(ctx, chunk, self._graphql_off, rest_only=not self.graphql_ok,
                            rest_worthy=self.rest_worthy, sizer=self.sizer)

    def rest_worthy(self, number: int) -> bool:
        """Whether a REST timeline (no canonical named) can change this issue's link: only an
        issue closed with the "Duplicate of #N" keyword and open again, where an unmark may
        have retracted the keyword's mark (a closed one's last word stands)."""
        return number in self.keyword_closed and number in self.open_numbers

    def named_missing(self, repo: str, named: set[int]) -> list[int]:
        """Numbers the duplicate evidence names (comment references, events' canonicals in this
        repository) that the lists did not return and the store does not know; at most
        `max_gap_checks`. Unnamed gaps are never probed: they cannot become a link."""
        known = self.store.known_numbers(repo)
        frame = self.store.events_frame()
        same = frame.filter((frame["repo"] == repo) & (frame["canonical_repo"].str.to_lowercase() == repo.lower()))
        wanted = (named | set(same["canonical_number"].drop_nulls().to_list())) - known
        return sorted(n for n in wanted if n > 0)[: self.cfg.max_gap_checks]

    def _graphql_off(self) -> None:
        if self.graphql_ok:
            log.info("GraphQL is unavailable: falling back to REST timelines")
        self.graphql_ok = False

    def _on_page(self, resource: str, items: int, pages_left: int | None) -> None:
        remaining = self.client.limiter.remaining("core")
        budget = "?" if remaining is None else str(remaining)
        if self.cfg.max_requests is not None:  # the user's own budget, when tighter
            budget += f" (--max-requests: {self.cfg.max_requests - self.client.stats.counted} left)"
        self.progress.page(resource, items, pages_left, budget)


def run_crawl(
    cfg: CrawlConfig,
    *,
    reporter: Reporter = SILENT,
    http: httpx.Client | None = None,
    clock: Callable[[], float] = time.time,
    sleep: Callable[[float], None] | None = None,
) -> CrawlSummary:
    """Crawl `cfg.repos` into `cfg.store` and return what was done.

    Resumable (a second call continues where a killed one stopped) and incremental (a call
    after a finished crawl only asks what changed; unchanged lists answer free 304s).
    Raises BadCredentials when the token is rejected; a missing repository is reported in
    the summary and skipped.
    """
    token = cfg.token_value()
    scrub = Scrubber([token])
    store = Store.open(cfg.store, create=True)
    (cfg.store / CONFIG_FILE).write_text(json.dumps(cfg.public_dict(), indent=2) + "\n", encoding="utf-8")
    own_http = http is None
    http = http or make_http_client(cfg.api_url, token, timeout=cfg.timeout)
    limiter = Limiter(cfg.pacing, clock, time.sleep, max_in_flight=cfg.max_in_flight)
    client = GitHubClient(http, api_url=cfg.api_url, limiter=limiter, cfg=cfg.pacing, sleep=sleep,
                          scrub=scrub, max_requests=cfg.max_requests,
                          on_retry=lambda text: reporter.notice(f"retrying: {text}"))
    limiter.sleep = client.pause  # waits at the bucket gate end too when the crawl stops
    summary = CrawlSummary()
    started = clock()
    limiter.on_wait = WaitAnnouncer(reporter, clock, cfg.pacing.announce_after, anonymous=token is None)
    sync = RepoSync(cfg, store, client, reporter)
    try:
        with reporter:
            for repo in cfg.repos:
                if not _sync_one(sync, repo, summary, clock):
                    break
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: every committed page is kept
        summary.stopped = "interrupted" if not isinstance(exc, SignalInterrupt) else "terminated"
        for result in summary.repos:
            if result.status == "pending":
                result.status = "interrupted"
    finally:
        summary.graphql_used = cfg.graphql and sync.graphql_ok
        summary.graphql_shrinks = sync.sizer.shrinks
        _account(summary, client, limiter, clock() - started)
        if summary.ok:
            summary.plan_line = _compare_with_plan(cfg.store, summary)
        store.close()
        if own_http:
            http.close()
    return summary


def _compare_with_plan(store: Path, summary: CrawlSummary) -> str | None:
    """The `crawl --plan` projection against this crawl, once: after the first complete crawl
    the plan is marked compared (re-crawls cost a fraction of it)."""
    plan = Plan.load(store)
    if plan is None or plan.compared:
        return None
    line = compare(plan, summary.requests - summary.graphql_requests, summary.graphql_points, summary.seconds)
    plan.compared = line
    plan.save(store)
    return line


def plan_crawl(cfg: CrawlConfig, *, http: httpx.Client | None = None,
               assumptions: Assumptions = Assumptions()) -> Plan:
    """Ask each repository for its size (one point or one request each, plus `GET /repos`
    to follow renames), project the crawl, save the plan next to the store and return it."""
    token = cfg.token_value()
    own_http = http is None
    http = http or make_http_client(cfg.api_url, token, timeout=cfg.timeout)
    limiter = Limiter(cfg.pacing, time.time, time.sleep, max_in_flight=cfg.max_in_flight)
    client = GitHubClient(http, api_url=cfg.api_url, limiter=limiter, cfg=cfg.pacing, sleep=None,
                          scrub=Scrubber([token]), max_requests=cfg.max_requests)
    graphql = cfg.graphql and token is not None
    plans = []
    try:
        for repo in cfg.repos:
            page, _ = get_following(client, f"repos/{repo}")
            if page.status != 200 or not isinstance(page.data, dict):
                raise RepoNotFound(f"{repo} does not exist or is not visible to this token", status=page.status)
            counts, graphql = ask_counts(client, str(page.data.get("full_name") or repo), graphql=graphql)
            counts.repo = repo
            plans.append(plan_repo(counts, graphql=graphql, a=assumptions))
    finally:
        if own_http:
            http.close()
    plan = Plan(plans, graphql, assumptions, asked_requests=client.stats.counted - client.stats.graphql,
                asked_points=client.stats.graphql)
    Store.open(cfg.store, create=True).close()
    plan.save(cfg.store)
    return plan


class WaitAnnouncer:
    """Says once, as a line, when a rate-limit wait starts and when it will end, with the cure
    when there is one (no token: 60 requests an hour)."""

    def __init__(self, reporter: Reporter, clock: Callable[[], float], at_least: float, *, anonymous: bool) -> None:
        self.reporter = reporter
        self.clock = clock
        self.at_least = at_least
        self.anonymous = anonymous
        self._announced: dict[str, float] = {}

    def __call__(self, bucket: str, seconds: float) -> None:
        until = self.clock() + seconds
        if seconds < self.at_least or abs(self._announced.get(bucket, 0.0) - until) < 5:
            return
        self._announced[bucket] = until
        when = time.strftime("%H:%M:%S UTC", time.gmtime(until))
        cure = "; no token: GitHub allows 60 requests an hour, pass --token or set GITHUB_TOKEN" if self.anonymous else ""
        self.reporter.notice(f"waiting {seconds:.0f} s for the {bucket} rate limit, until {when}{cure}")


def _sync_one(sync: RepoSync, repo: str, summary: CrawlSummary, clock: Callable[[], float]) -> bool:
    """Sync one repository into `summary`; False when the whole run must stop (budget)."""
    result = RepoSummary(repo)
    summary.repos.append(result)
    sync.progress.start(repo)
    before, started = sync.client.stats.counted, clock()
    try:
        sync.run(repo, result)
        result.status = "ok"
    except RepoNotFound as exc:
        result.status, result.message = "missing", exc.one_line()
        log.warning("%s", exc.one_line())
    except BudgetReached as exc:
        result.status, summary.stopped = "stopped", f"{exc}; run the same command again to resume"
    except RateLimited as exc:
        result.status, summary.stopped = "stopped", exc.one_line()
    except (BadCredentials, Unreachable):  # nothing else can work either: stop the whole run
        raise
    except GitHubError as exc:
        result.status, result.message = "failed", exc.one_line()
        log.error("%s: %s", repo, exc.one_line())
    finally:
        result.requests = sync.client.stats.counted - before
        result.seconds = clock() - started
        sync.progress.end(result)
    return summary.stopped is None


def _account(summary: CrawlSummary, client: GitHubClient, limiter: Limiter, seconds: float) -> None:
    summary.requests = client.stats.counted
    summary.graphql_requests = client.stats.graphql
    summary.not_modified = client.stats.not_modified
    summary.sent = client.stats.sent
    summary.retries = client.stats.retries
    summary.waited_seconds = limiter.stats.waited_seconds
    summary.seconds = seconds
