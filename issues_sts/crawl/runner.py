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
Each repository's sync is a flow of these phases, and `repos_at_once` flows run together
(`pump.pump_flows`): one repository's round trips overlap with another's pages, so the
crawl waits on GitHub's limits rather than its latency. Fetching runs on at most
`max_in_flight` worker threads, paced by the limiter; every store write happens here, on
the calling thread, one page and its checkpoint per transaction.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from pathlib import Path
from typing import Any

import httpx

from issues_sts.crawl.apiroot import ApiRoot
from issues_sts.crawl.candidates import (
    Candidate,
    has_duplicate_wording,
    rank_candidates,
    referenced_numbers,
    says_duplicate_itself,
)
from issues_sts.crawl.chains import (
    Chain,
    GraphQLChain,
    ListChain,
    RefChain,
    RepoContext,
    ThreadCheck,
)
from issues_sts.crawl.client import (
    BudgetReached,
    GitHubClient,
    Page,
    Scrubber,
    make_http_client,
)
from issues_sts.crawl.config import CrawlConfig, CrawlSummary, RepoSummary
from issues_sts.crawl.feed import CandidateFeed, strong_evidence
from issues_sts.crawl.graphql import PageSizer
from issues_sts.crawl.limiter import Limiter
from issues_sts.crawl.plan import Assumptions, Plan, ask_counts, compare, plan_repo
from issues_sts.crawl.progress import CrawlProgress, Projection, WaitAnnouncer
from issues_sts.crawl.pump import pump_flows
from issues_sts.crawl.threads import Ask, ThreadChain, ThreadFeed, Want, pack, want, want_of
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
from issues_sts.evidence import KEYWORD_LINE
from issues_sts.report import SILENT, Reporter
from issues_sts.store import CRAWL_CONFIG, Checkpoint, Store, utcnow
from issues_sts.store.lock import CrawlLock

log = logging.getLogger("issues_sts.crawl")


def keyword_closes(comments: list[dict[str, Any]]) -> set[int]:
    """Issue numbers of REST comments that use the "Duplicate of" keyword."""
    found = set()
    for comment in comments:
        tail = str(comment.get("issue_url", "")).rstrip("/").rsplit("/", 1)[-1]
        if tail.isdigit() and KEYWORD_LINE.search(str(comment.get("body") or "")):
            found.add(int(tail))
    return found


CONFIG_FILE = CRAWL_CONFIG


def get_following(client: GitHubClient, path: str, etag: str | None = None) -> tuple[Page, int]:
    """GET a repository, following up to 3 redirects (a renamed or moved repository answers
    301 with where it lives now); the answer and how many hops it took."""
    page = client.get(path, etag=etag, expect=(404,))
    hops = 0
    while page.status in (301, 302, 307, 308) and page.location and hops < 3:
        page, hops = client.get(page.location, expect=(404,)), hops + 1
    return page, hops


class RepoState:
    """What one repository's flow learns from its issues and comments on the way."""

    def __init__(self) -> None:
        self.keyword_closed: set[int] = set()  # issues closed with the "Duplicate of" keyword
        self.open_numbers: set[int] = set()  # issues that are open now
        self.closed_duplicates: set[int] = set()  # closed, and GitHub calls them duplicates

    def rest_worthy(self, number: int) -> bool:
        """Whether a REST timeline (no canonical named) can change this issue's link, where
        that is cheap (a few in a hundred issues): an issue closed with the "Duplicate of #N"
        keyword and open again, where an unmark may have retracted the keyword's mark; and a
        closed issue GitHub calls a duplicate (label, `state_reason`), whose timeline says who
        closed it (REST lists name no closer: a triage bot acts for the maintainers) and which
        duplicate labels it carried."""
        return (
            number in self.keyword_closed and number in self.open_numbers
        ) or number in self.closed_duplicates


class ResolveChain:
    """`GET /repos/{o}/{r}` (with If-None-Match), following a rename: where the repository
    lives now; RepoNotFound (raised on commit) when it is gone."""

    def __init__(
        self, store: Store, repo: str, api: ApiRoot | None = None, named_in: str = "repos.yaml"
    ) -> None:
        self.store = store
        self.repo = repo
        self.api = api
        self.named_in = named_in
        self.current: str | None = None
        self.not_modified = False  # the repository answered 304: a free request
        self.cp = store.checkpoint(repo, "repo")
        self.known = store.repo_row(repo) or {}

    def next_step(self) -> Callable[[GitHubClient], tuple[Page, int]] | None:
        if self.current is not None:
            return None
        etag = self.cp.etag if self.cp.done and self.known.get("current_name") else None
        return lambda client: self._resolve(client, etag)

    def _resolve(self, client: GitHubClient, etag: str | None) -> tuple[Page, int]:
        page, hops = get_following(client, f"repos/{self.repo}", etag)
        if page.status not in (200, 304) and self.api is not None:
            self.api.check(client)  # every repository "missing": the URL may be the problem
        return page, hops

    def commit(self, result: tuple[Page, int]) -> None:
        page, hops = result
        if page.status == 304:
            self.current = str(self.known["current_name"])
            self.not_modified = True
            return
        if page.status != 200 or not isinstance(page.data, dict):
            self.store.upsert_repo(self.repo, status="missing")
            raise RepoNotFound(
                f"{self.repo} does not exist or is not visible to this token",
                status=page.status,
                hint=f"check the owner/name {self.named_in}; private repositories need a token "
                "with access",
            )
        self.current = str(page.data.get("full_name") or self.repo)
        self.store.upsert_repo(self.repo, repo_id=page.data.get("id"), current_name=self.current)
        self.store.put_checkpoint(
            Checkpoint(self.repo, "repo", etag=page.etag if hops == 0 else None, done=True)
        )


class RepoSync:
    """Everything a repository needs, in the order of the module docstring, as a flow of
    phases: `pump_flows` runs several repositories' flows at once."""

    def __init__(
        self, cfg: CrawlConfig, store: Store, client: GitHubClient, progress: CrawlProgress
    ) -> None:
        self.cfg = cfg
        self.store = store
        self.client = client
        self.progress = progress
        # GitHub's GraphQL API needs a token; anonymous crawls use REST timelines only.
        self.graphql_ok = cfg.graphql and cfg.token is not None
        self.api = ApiRoot(cfg.api_url)
        self.sizer = PageSizer(
            slow_seconds=cfg.pacing.slow_query
        )  # node budget of GraphQL thread batches, shared by all repositories

    def flow(self, repo: str, summary: RepoSummary) -> Iterator[Iterable[Chain]]:
        """The phases of one repository's sync. Between two, the pump's thread reads the
        store to decide what the next one asks."""
        self.store.upsert_repo(repo)
        resolver = ResolveChain(self.store, repo, self.api, self.cfg.repos_named_in)
        yield [resolver]
        summary.not_modified += resolver.not_modified  # the table's 304s add up to the caption's
        ctx = RepoContext(
            self.store,
            repo,
            f"repos/{resolver.current}",
            summary,
            self.cfg.per_page,
            lambda resource, items, left: self._on_page(repo, resource, items, left),
        )
        # what the store holds depends on the mode: rows of the other mode go first (store.modes)
        self.store.switch_mode(repo, "graphql" if self.graphql_ok else "rest")
        state = RepoState()
        # With GraphQL, comments come per issue (threads.py): PRs' comments are never paid for,
        # and a closed issue's timeline comes with its thread.
        by_threads = self.graphql_ok

        def read_with_thread(raw: dict[str, Any]) -> bool:
            wanted = want_of(raw)
            return self.graphql_ok and wanted is not None and wanted.events

        feed = CandidateFeed(
            [],
            self.cfg.graphql_batch,
            self.cfg.max_candidates,
            lambda c: self._batch(ctx, c, state),
            read_with_thread,
        )

        def on_comments(items: list[dict[str, Any]]) -> None:
            state.keyword_closed |= keyword_closes(items)
            feed.offer_comments(items)

        threads = ThreadFeed(
            lambda asks: self._threads(ctx, asks, on_comments),
            self.sizer,
            lambda: all(chain.finished for chain in feed.lists),
            lambda: self.graphql_ok,
        )

        def on_issues(items: list[dict[str, Any]]) -> None:
            for item in items:
                number = int(item["number"])
                (
                    state.open_numbers.add
                    if item.get("state") == "open"
                    else state.open_numbers.discard
                )(number)
                (
                    state.closed_duplicates.add
                    if item.get("state") == "closed" and strong_evidence(item)
                    else state.closed_duplicates.discard
                )(number)
            feed.offer_issues(items)
            if by_threads:
                threads.offer_issues(items)

        comments = ListChain(
            ctx,
            "comments",
            "issues/comments",
            {"sort": "updated", "direction": "asc"},
            on_items=on_comments,
        )
        feed.lists = [
            ListChain(
                ctx,
                "issues",
                "issues",
                {"state": "all", "sort": "updated", "direction": "asc"},
                on_items=on_issues,
            )
        ]
        if not by_threads:
            feed.lists.append(comments)
        yield [*feed.lists, threads, feed]
        fallback = comments if by_threads else None  # the REST listing, if GraphQL goes away
        # A duplicate mark read in one pass may send the crawl back to the other issue's
        # timeline (chains.other_sides): a next pass reads those, and ends when none are left.
        for _ in range(self.SIDE_PASSES):
            worded, named = yield from self._timelines(ctx, state, summary, on_comments, fallback)
            if not self.graphql_ok or not (
                self.thread_todo(repo) or self.candidates(repo, worded)[1]
            ):
                break
        yield (RefChain(ctx, n) for n in self.named_missing(repo, named))
        gaps = self.store.gaps(repo)
        summary.lost_threads = len(gaps)
        summary.lost_comments = sum(max(0, g.expected - g.got) for g in gaps)
        summary.short_counted = len(self.store.short_threads(repo))
        self.store.upsert_repo(repo, status="lossy" if gaps else "ok", last_sync=utcnow())

    SIDE_PASSES = 3

    def _timelines(
        self,
        ctx: RepoContext,
        state: RepoState,
        summary: RepoSummary,
        on_comments: Callable[[list[dict[str, Any]]], None],
        fallback: ListChain | None,
    ) -> Generator[Iterable[Chain], None, tuple[set[int], set[int]]]:
        """One pass over what the store does not hold for the issues' current `updated_at`:
        threads (and closed issues' timelines), threads short of their count, candidates'
        timelines. Returns the issues with duplicate wording and the numbers they name."""
        repo = ctx.repo
        if self.graphql_ok:
            left = self.thread_todo(repo)  # threads a resumed crawl had not asked yet
            yield (
                self._threads(ctx, pack(left, self.sizer.budget), on_comments)
                for _ in iter(lambda: bool(left), False)
            )
        if fallback is not None and not self.graphql_ok and not fallback.finished:
            yield [fallback]  # GraphQL went away: the REST listing instead
        # the completeness invariant: every thread short of its count (or with a gap) is read
        # again over REST, once per `updated_at`
        yield (ThreadCheck(ctx, n, updated) for n, updated in self.threads_to_check(repo))
        worded, named, state.keyword_closed = self.comment_evidence(repo)
        state.open_numbers = self.store.open_numbers(repo)
        state.closed_duplicates = {
            n
            for n, reason, _, labels in self.store.issue_evidence(repo)
            if n not in state.open_numbers and says_duplicate_itself(json.loads(labels), reason)
        }
        ranked, todo = self.candidates(repo, worded)
        summary.candidates = len(ranked)
        batch = self.cfg.graphql_batch
        yield (self._batch(ctx, todo[i : i + batch], state) for i in range(0, len(todo), batch))
        return worded, named

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
                if KEYWORD_LINE.search(body):
                    keyword.add(number)
        return worded, named, keyword

    def candidates(
        self, repo: str, worded: set[int]
    ) -> tuple[list[Candidate], list[tuple[int, str | None]]]:
        """All candidates (ranked, bounded), and those whose timeline is not stored for their
        current `updated_at`."""
        ranked = rank_candidates(self.store.issue_evidence(repo), worded, self.cfg.max_candidates)
        stored = self.store.checkpoint_watermarks(repo, "timeline:")
        todo = [
            (c.number, c.updated_at)
            for c in ranked
            if stored.get(f"timeline:{c.number}", "\0") != c.updated_at
        ]
        return ranked, todo

    def threads_to_check(self, repo: str) -> list[tuple[int, str | None]]:
        """Threads to read again over REST: those with a gap, those whose stored comments
        fall short of the issue's count (unless already read so at its current `updated_at`:
        GitHub counts deleted and hidden comments it no longer lists), and those with more
        stored than counted (comments deleted since, which a REST listing never says; once per
        `updated_at` too)."""
        updated = {n: u for n, u, _ in self.store.issue_threads(repo)}
        verified = self.store.checkpoint_watermarks(repo, "verified:")
        gaps = {g.number for g in self.store.gaps(repo)}
        short = {n for n, _, _ in self.store.short_threads(repo)}
        long = set(self.store.long_threads(repo))
        return [
            (n, updated.get(n))
            for n in sorted(gaps | short | long)
            if n in gaps or verified.get(f"verified:{n}", "\0") != updated.get(n)
        ]

    def thread_todo(self, repo: str) -> list[Want]:
        """Threads (and closed issues' timelines) not stored for their current `updated_at`
        (a closed issue's timeline also when a mark read on another issue sent the crawl back
        to it: `chains.other_sides`)."""
        stored = self.store.checkpoint_watermarks(repo, "thread:")
        timelines = self.store.checkpoint_watermarks(repo, "timeline:")
        todo = []
        for n, updated, count, state, text, labels, reason in self.store.thread_facts(repo):
            if stored.get(f"thread:{n}", "\0") == updated and (
                state != "closed" or timelines.get(f"timeline:{n}", "\0") == updated
            ):
                continue
            labels_list = json.loads(labels or "[]")
            wanted = want(
                n,
                updated,
                count or 0,
                closed=state == "closed",
                text=text,
                labels=labels_list,
                state_reason=reason,
            )
            if wanted is not None:
                todo.append(wanted)
        return todo

    def _threads(
        self, ctx: RepoContext, asks: list[Ask], on_comments: Callable[[list[dict[str, Any]]], None]
    ) -> ThreadChain:
        return ThreadChain(ctx, asks, self.sizer, self.cfg.api_url, on_comments, self._graphql_off)

    def _batch(
        self, ctx: RepoContext, chunk: list[tuple[int, str | None]], state: RepoState
    ) -> Chain:
        return GraphQLChain(
            ctx,
            chunk,
            self._graphql_off,
            rest_only=not self.graphql_ok,
            rest_worthy=state.rest_worthy,
            sizer=self.sizer,
        )

    def named_missing(self, repo: str, named: set[int]) -> list[int]:
        """Numbers the duplicate evidence names (comment references, events' canonicals in this
        repository) that the lists did not return and the store does not know; at most
        `max_gap_checks`. Unnamed gaps are never probed: they cannot become a link."""
        known = self.store.known_numbers(repo)
        frame = self.store.events_frame()
        same = frame.filter(
            (frame["repo"] == repo) & (frame["canonical_repo"].str.to_lowercase() == repo.lower())
        )
        wanted = (named | set(same["canonical_number"].drop_nulls().to_list())) - known
        return sorted(n for n in wanted if n > 0)[: self.cfg.max_gap_checks]

    def _graphql_off(self) -> None:
        if self.graphql_ok:
            log.info("GraphQL is unavailable: falling back to REST timelines")
        self.graphql_ok = False

    def _on_page(self, repo: str, resource: str, items: int, pages_left: int | None) -> None:
        remaining = self.client.limiter.remaining("core")
        budget = "?" if remaining is None else str(remaining)
        if self.cfg.max_requests is not None:  # the user's own budget, when tighter
            budget += f" (--max-requests: {self.cfg.max_requests - self.client.stats.counted} left)"
        self.progress.page(repo, resource, items, pages_left, budget)


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
    token = cfg.token_value()
    scrub = Scrubber([token])
    store = Store.open(cfg.store, create=True)
    lock = CrawlLock(cfg.store)
    try:
        lock.acquire()  # released in the `finally` below, with the store
        with os_errors(StoreError, f"the crawl store {cfg.store} cannot be written"):
            (cfg.store / CONFIG_FILE).write_text(
                json.dumps(cfg.public_dict(), indent=2) + "\n", encoding="utf-8"
            )
    except StoreError:
        store.close()
        lock.release()
        raise
    own_http = http is None
    http = http or make_http_client(cfg.api_url, token, timeout=cfg.timeout)
    limiter = Limiter(cfg.pacing, clock, time.sleep, max_in_flight=cfg.max_in_flight)
    client = GitHubClient(
        http,
        api_url=cfg.api_url,
        limiter=limiter,
        cfg=cfg.pacing,
        sleep=sleep,
        scrub=scrub,
        max_requests=cfg.max_requests,
        on_retry=lambda text: reporter.notice(f"retrying: {text}"),
    )
    limiter.sleep = client.pause  # waits at the bucket gate end too when the crawl stops
    summary = CrawlSummary()
    started = clock()
    limiter.on_wait = WaitAnnouncer(
        reporter, clock, cfg.pacing.announce_after, anonymous=token is None, state=limiter.state
    )
    plan = Plan.load(cfg.store)
    progress = CrawlProgress(
        reporter,
        len(cfg.repos),
        projection=Projection.of(plan, anonymous=token is None),
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
                on_stop=ends.cut_short,
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
        _account(summary, client, limiter, clock() - started)
        if summary.ok:
            summary.plan_line = _compare_with_plan(cfg.store, summary)
        store.close()
        lock.release()
        if own_http:
            http.close()
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


def plan_crawl(
    cfg: CrawlConfig, *, http: httpx.Client | None = None, assumptions: Assumptions = Assumptions()
) -> Plan:
    """Ask each repository for its size (one point or one request each, plus `GET /repos`
    to follow renames), project the crawl, save the plan next to the store and return it."""
    token = cfg.token_value()
    own_http = http is None
    http = http or make_http_client(cfg.api_url, token, timeout=cfg.timeout)
    limiter = Limiter(cfg.pacing, time.time, time.sleep, max_in_flight=cfg.max_in_flight)
    client = GitHubClient(
        http,
        api_url=cfg.api_url,
        limiter=limiter,
        cfg=cfg.pacing,
        sleep=None,
        scrub=Scrubber([token]),
        max_requests=cfg.max_requests,
    )
    graphql = cfg.graphql and token is not None
    plans = []
    try:
        for repo in cfg.repos:
            page, _ = get_following(client, f"repos/{repo}")
            if page.status != 200 or not isinstance(page.data, dict):
                ApiRoot(cfg.api_url).check(client)
                raise RepoNotFound(
                    f"{repo} does not exist or is not visible to this token",
                    status=page.status,
                    hint=f"check the owner/name {cfg.repos_named_in}; private repositories need "
                    "a token with access",
                )
            counts, graphql = ask_counts(
                client, str(page.data.get("full_name") or repo), graphql=graphql
            )
            counts.repo = repo
            plans.append(plan_repo(counts, graphql=graphql, a=assumptions))
    finally:
        if own_http:
            http.close()
    plan = Plan(
        plans,
        graphql,
        assumptions,
        asked_requests=client.stats.counted - client.stats.graphql,
        asked_points=client.stats.graphql,
    )
    Store.open(cfg.store, create=True).close()
    with os_errors(StoreError, f"the crawl plan cannot be saved in {cfg.store}"):
        plan.save(cfg.store)
    return plan


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

    def cut_short(self, result: RepoSummary, requests: int) -> None:
        """A repository under way when the crawl stopped (Ctrl-C, SIGTERM, a spent budget):
        what it spent so far, for the summary (it said 0 requests and 0.0 s)."""
        result.requests = requests
        result.seconds = self.clock() - self.started.pop(result.repo, self.clock())

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
            self.summary.stopped = stop
            for other in self.summary.repos:  # repositories under way keep what they committed
                if other.status == "pending":
                    other.status = "stopped"
            raise StopCrawl(stop)


def _account(summary: CrawlSummary, client: GitHubClient, limiter: Limiter, seconds: float) -> None:
    summary.requests = client.stats.counted
    summary.graphql_requests = client.stats.graphql
    summary.not_modified = client.stats.not_modified
    summary.sent = client.stats.sent
    summary.retries = client.stats.retries
    summary.waited_seconds = limiter.stats.waited_seconds
    summary.response_seconds = dict(limiter.response_seconds)
    summary.seconds = seconds
