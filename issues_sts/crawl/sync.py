"""One repository's sync, as a flow of phases.

Order per repository:
1. `GET /repos/{o}/{r}` (with If-None-Match): renames are followed, a missing repository is
   reported and skipped (`resolve.py`);
2. the issue list and the repo-wide comment list, as two chains in flight at once (with
   GraphQL: the issue list and the issues' threads);
3. duplicate candidates: batched GraphQL (canonical issue named) or REST timelines;
4. numbers the lists did not return although the duplicate evidence names them (a comment's
   reference, an event's canonical): GET each once (transferred: 301, followed and recorded;
   deleted: 404/410, a tombstone). Known numbers are never asked again, and a gap in the
   numbering that no evidence names costs nothing (deleted spam, transferred issues);
5. a repository the duplicate wording links to that may be this one under an earlier name
   (its name under another owner, "quicktype/quicktype#N" in glideapps/quicktype; another name
   under its owner, "pixijs/pixi.js#N" in pixijs/pixijs): `GET /repos/{o}/{r}` once per store;
   if GitHub redirects it here, it is this repository's old name, stored as a rename.
Without GraphQL, a REST timeline is asked only where its answer can change a link: REST
events do not name the canonical, so only an issue closed with GitHub's "Duplicate of #N"
keyword and open again (where an `unmarked_as_duplicate` event may have retracted it) is
worth one.
Between two phases the pump's thread reads the store (`todo.py`) to decide what the next one
asks; the runner (`runner.py`) runs several repositories' flows at once.
"""

from __future__ import annotations

import logging
from collections.abc import Generator, Iterable, Iterator
from functools import partial
from typing import Any

from issues_sts.crawl import todo
from issues_sts.crawl.apiroot import ApiRoot
from issues_sts.crawl.candidates import Candidate, keyword_closes
from issues_sts.crawl.chains import (
    Chain,
    GraphQLChain,
    ListChain,
    RefChain,
    RepoContext,
    ThreadCheck,
)
from issues_sts.crawl.client import GitHubClient
from issues_sts.crawl.config import CrawlConfig, RepoSummary
from issues_sts.crawl.feed import CandidateFeed, strong_evidence
from issues_sts.crawl.graphql import PageSizer
from issues_sts.crawl.progress import CrawlProgress
from issues_sts.crawl.resolve import OldNameChain, ResolveChain
from issues_sts.crawl.threads import Ask, ThreadChain, ThreadFeed, pack, want_of
from issues_sts.store import Store, utcnow

log = logging.getLogger("issues_sts.crawl")

Passes = Generator[Iterable[Chain], None, tuple[set[int], set[int]]]


class RepoState:
    """What one repository's flow learns from its issues and comments on the way."""

    def __init__(self) -> None:
        self.keyword_closed: set[int] = set()  # issues closed with the "Duplicate of" keyword
        self.open_numbers: set[int] = set()  # issues that are open now
        self.closed_duplicates: set[int] = set()  # closed, and GitHub calls them duplicates

    def note_issue(self, item: dict[str, Any]) -> None:
        """An issue as a list page returns it now: open or not, a closed duplicate or not."""
        number = int(item["number"])
        if item.get("state") == "open":
            self.open_numbers.add(number)
        else:
            self.open_numbers.discard(number)
        if item.get("state") == "closed" and strong_evidence(item):
            self.closed_duplicates.add(number)
        else:
            self.closed_duplicates.discard(number)

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


class RepoSync:
    """Everything a repository needs, in the order of the module docstring, as a flow of
    phases: `pump_flows` runs several repositories' flows at once. What the flows share: the
    client, GraphQL's availability (gone for one repository, gone for all) and the node budget
    of GraphQL thread batches."""

    # A duplicate mark read in one timeline pass may send the crawl back to the other issue's
    # timeline (chains.other_sides): a next pass reads those, and ends when none are left.
    SIDE_PASSES = 3

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
        self.sizer = PageSizer(slow_seconds=cfg.pacing.slow_query)

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
            partial(self._on_page, repo),
        )
        # what the store holds depends on the mode: rows of the other mode go first (store.modes)
        self.store.switch_mode(repo, "graphql" if self.graphql_ok else "rest")
        lists = RepoLists(self, ctx, resolver.current or repo)
        yield lists.chains()
        named = yield from self._side_passes(lists)
        limit = self.cfg.max_gap_checks
        yield (RefChain(ctx, n) for n in todo.named_missing(self.store, repo, named, limit))
        # 5. names the duplicate wording links to that may be this repository's old ones (its
        # name under another owner, another name under its owner): GitHub's redirect decides
        olds = todo.old_names_to_ask(self.store, repo, lists.maybe_old, limit)
        yield (OldNameChain(self.store, repo, old, lists.current) for old in olds)
        self._settle(repo, summary)

    def _side_passes(self, lists: RepoLists) -> Generator[Iterable[Chain], None, set[int]]:
        """Timeline passes until no mark sends the crawl back (GraphQL only; at most
        `SIDE_PASSES`); the numbers the duplicate wording names."""
        repo = lists.ctx.repo
        for _ in range(self.SIDE_PASSES):
            worded, named = yield from self._timelines(lists)
            if not self.graphql_ok or not (
                todo.thread_todo(self.store, repo) or self._candidates(repo, worded)[1]
            ):
                break
        return named

    def _timelines(self, lists: RepoLists) -> Passes:
        """One pass over what the store does not hold for the issues' current `updated_at`:
        threads (and closed issues' timelines), threads short of their count, candidates'
        timelines. Returns the issues with duplicate wording and the numbers they name."""
        ctx, state = lists.ctx, lists.state
        if self.graphql_ok:
            left = todo.thread_todo(self.store, ctx.repo)  # threads a resumed crawl had not asked
            yield (
                lists.thread_chain(pack(left, self.sizer.budget))
                for _ in iter(lambda: bool(left), False)
            )
        fallback = lists.fallback
        if fallback is not None and not self.graphql_ok and not fallback.finished:
            yield [fallback]  # GraphQL went away: the REST listing instead
        # the completeness invariant: every thread short of its count (or with a gap) is read
        # again over REST, once per `updated_at`
        yield (ThreadCheck(ctx, n, u) for n, u in todo.threads_to_check(self.store, ctx.repo))
        found = todo.comment_evidence(self.store, ctx.repo, lists.current)
        worded, named, state.keyword_closed = found.worded, found.named, found.keyword
        lists.maybe_old = found.maybe_old
        state.open_numbers = self.store.open_numbers(ctx.repo)
        state.closed_duplicates = todo.closed_duplicates(self.store, ctx.repo, state.open_numbers)
        ranked, asks = self._candidates(ctx.repo, worded)
        ctx.summary.candidates = len(ranked)
        batch = self.cfg.graphql_batch
        yield (lists.batch_chain(asks[i : i + batch]) for i in range(0, len(asks), batch))
        return worded, named

    def _candidates(
        self, repo: str, worded: set[int]
    ) -> tuple[list[Candidate], list[tuple[int, str | None]]]:
        return todo.candidates(self.store, repo, worded, self.cfg.max_candidates)

    def _settle(self, repo: str, summary: RepoSummary) -> None:
        """The repository's losses, in its summary row and in the store's status."""
        gaps = self.store.gaps(repo)
        summary.lost_threads = len(gaps)
        summary.lost_comments = sum(max(0, g.expected - g.got) for g in gaps)
        summary.short_counted = len(self.store.short_threads(repo))
        self.store.upsert_repo(repo, status="lossy" if gaps else "ok", last_sync=utcnow())

    def graphql_available(self) -> bool:
        return self.graphql_ok

    def graphql_off(self) -> None:
        if self.graphql_ok:
            log.info("GraphQL is unavailable: falling back to REST timelines")
        self.graphql_ok = False

    def _on_page(self, repo: str, resource: str, items: int, pages_left: int | None) -> None:
        remaining = self.client.limiter.remaining("core")
        budget = "?" if remaining is None else str(remaining)
        if self.cfg.max_requests is not None:  # the user's own budget, when tighter
            budget += f" (--max-requests: {self.cfg.max_requests - self.client.stats.counted} left)"
        self.progress.page(repo, resource, items, pages_left, budget)


class RepoLists:
    """One repository's list phase and what it learns on the way: the issue list (and, without
    GraphQL, the repo-wide comment list) feeds the candidate batches and, with GraphQL, the
    thread batches; each page also updates the repository's `RepoState`."""

    def __init__(self, sync: RepoSync, ctx: RepoContext, current: str) -> None:
        self.sync = sync
        self.ctx = ctx
        self.current = current  # where the repository lives now (`GET /repos` followed)
        self.state = RepoState()
        self.maybe_old: set[str] = set()  # names the wording links to that may be its old ones
        # With GraphQL, comments come per issue (threads.py): PRs' comments are never paid for,
        # and a closed issue's timeline comes with its thread.
        self.by_threads = sync.graphql_ok
        cfg = sync.cfg
        self.feed = CandidateFeed(
            [], cfg.graphql_batch, cfg.max_candidates, self.batch_chain, self.read_with_thread
        )
        self.threads = ThreadFeed(
            self.thread_chain, sync.sizer, self.lists_done, sync.graphql_available
        )
        self.comments = ListChain(
            ctx,
            "comments",
            "issues/comments",
            {"sort": "updated", "direction": "asc"},
            on_items=self.on_comments,
        )
        self.feed.lists = [
            ListChain(
                ctx,
                "issues",
                "issues",
                {"state": "all", "sort": "updated", "direction": "asc"},
                on_items=self.on_issues,
            )
        ]
        if not self.by_threads:
            self.feed.lists.append(self.comments)

    def chains(self) -> list[Chain]:
        """The list phase: the lists, the thread batches and the candidate batches at once."""
        return [*self.feed.lists, self.threads, self.feed]

    @property
    def fallback(self) -> ListChain | None:
        """The REST comment listing, if GraphQL goes away (with GraphQL, it was not listed)."""
        return self.comments if self.by_threads else None

    def on_issues(self, items: list[dict[str, Any]]) -> None:
        for item in items:
            self.state.note_issue(item)
        self.feed.offer_issues(items)
        if self.by_threads:
            self.threads.offer_issues(items)

    def on_comments(self, items: list[dict[str, Any]]) -> None:
        self.state.keyword_closed |= keyword_closes(items)
        self.feed.offer_comments(items)

    def read_with_thread(self, raw: dict[str, Any]) -> bool:
        """Whether an issue's timeline comes with its thread (so the feed leaves it out)."""
        wanted = want_of(raw)
        return self.sync.graphql_ok and wanted is not None and wanted.events

    def lists_done(self) -> bool:
        return all(chain.finished for chain in self.feed.lists)

    def thread_chain(self, asks: list[Ask]) -> ThreadChain:
        sync = self.sync
        return ThreadChain(
            self.ctx, asks, sync.sizer, sync.cfg.api_url, self.on_comments, sync.graphql_off
        )

    def batch_chain(self, chunk: list[tuple[int, str | None]]) -> Chain:
        return GraphQLChain(
            self.ctx,
            chunk,
            self.sync.graphql_off,
            rest_only=not self.sync.graphql_ok,
            rest_worthy=self.state.rest_worthy,
            sizer=self.sync.sizer,
        )
