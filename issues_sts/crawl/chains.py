"""Chains of requests, one per resource: each fetches a page, then commits it with its checkpoint.

A chain's `next_step()` returns the request to make (run on a worker thread) or None when
the chain is finished; `commit(result)` runs on the main thread and writes the page and its
checkpoint in one transaction, so a SIGKILL between two pages loses nothing and repeats nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

from issues_sts.crawl import graphql as gql
from issues_sts.crawl.client import GitHubClient, GraphQLUnavailable, Page
from issues_sts.crawl.config import RepoSummary
from issues_sts.crawl.pagination import last_page, with_query
from issues_sts.crawl.rows import comment_rows, issue_rows
from issues_sts.errors import GitHubError
from issues_sts.store import Checkpoint, Store

Step = Callable[[GitHubClient], Any]
IDLE = object()  # "nothing to ask right now, ask me again after the next page lands"


class Chain(Protocol):
    def next_step(self) -> Step | None | object: ...

    def commit(self, result: Any) -> None: ...


@dataclass
class RepoContext:
    """What every chain of one repository shares."""

    store: Store
    repo: str  # the name the store keys rows by (as requested)
    api_path: str  # "repos/{current owner/name}"
    summary: RepoSummary
    per_page: int = 100
    on_page: Callable[[str, int, int | None], None] | None = None  # resource, items, pages left

    def page_done(self, resource: str, items: int, pages_left: int | None) -> None:
        self.summary.pages += 1
        if self.on_page is not None:
            self.on_page(resource, items, pages_left)


def _pages_left(page: Page) -> int | None:
    last = last_page(page.link)
    if last is None:
        return 0 if page.next_url is None else None
    from urllib.parse import parse_qs, urlsplit

    current = parse_qs(urlsplit(page.url).query).get("page", ["1"])[0]
    return max(0, last - int(current)) if current.isdigit() else None


def _since_of(url: str) -> str | None:
    values = parse_qs(urlsplit(url).query).get("since")
    return values[0] if values else None


def overlap_since(stamp: str) -> str:
    """`since` for the items updated at `stamp` or later: one second earlier, so a server whose
    `since` is exclusive still returns the rest of `stamp`'s second (at worst an item or two
    is listed twice, and stored once)."""
    when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    when = when if when.tzinfo else when.replace(tzinfo=timezone.utc)
    return (when.astimezone(timezone.utc) - timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%SZ")


class ListChain:
    """A repository-wide list (issues or comments) synced by `since` passes.

    Sorted by `updated` ascending from the watermark. Each next page is asked as a first page
    from where the last one ended (`since` its newest `updated_at`), not by page number: an
    item updated while the list is read moves to its end, and with numbered pages everything
    behind it would shift up one place, so the first item of the next page would never be read
    (nor by a later crawl, which asks only for what is newer). A page whose items all share
    the second it started from (a bulk edit) gives no new `since`: then Link's rel=next is
    followed. A pass ends on a page without rel=next (or GitHub refuses a deep page with 422):
    if it saw anything newer than its `since`, a new pass starts from the newest `updated_at`
    seen; a pass that sees nothing newer seals the resource, with its ETag when its one page
    held the whole list (a 304 then says that nothing changed; a full page's does not say
    that nothing was added behind it), so the next crawl asks with If-None-Match and gets a
    free 304 when nothing changed.
    """

    def __init__(
        self,
        ctx: RepoContext,
        resource: str,
        path: str,
        params: dict[str, str],
        on_items: Callable[[list[dict[str, Any]]], None] | None = None,
    ) -> None:
        self.ctx = ctx
        self.resource = resource
        self.path = path
        self.params = params
        self.on_items = on_items
        self.cp = ctx.store.checkpoint(ctx.repo, resource)
        self.finished = False

    def next_step(self) -> Step | None:
        if self.finished:
            return None
        cp = self.cp
        if cp.next_url:
            url, etag = cp.next_url, None
        else:
            since = overlap_since(cp.since) if cp.since else None
            url, etag = self._first_page(since), cp.etag if cp.done else None
        return lambda client: client.get(url, etag=etag, expect=(422,))

    def _first_page(self, since: str | None) -> str:
        base = f"{self.ctx.api_path}/{self.path}"
        return with_query(base, **self.params, per_page=self.ctx.per_page, since=since)

    def _next_page(self, page: Page, stamps: list[str]) -> str | None:
        """The page after `page`: the list from its newest item on, or Link's rel=next when
        that would not move forward (every item of the page in the second it started from)."""
        if page.status != 200 or page.next_url is None:
            return None
        if stamps:
            since = overlap_since(max(stamps))
            started = _since_of(page.url)
            if started is None or since > started:
                return self._first_page(since)
        return page.next_url

    def commit(self, page: Page) -> None:
        cp, first = self.cp, self.cp.next_url is None
        if page.status == 304:
            self.ctx.summary.not_modified += 1
            self.finished = True
            return
        if page.status == 422 and first:
            raise GitHubError(
                f"GitHub refused the first page of {self.ctx.repo} {self.resource}", status=422
            )
        items: list[dict[str, Any]] = (
            page.data if page.status == 200 and isinstance(page.data, list) else []
        )
        pass_since = cp.since if first else cp.pass_since
        stamps = [str(i["updated_at"]) for i in items if i.get("updated_at")]
        prior = "" if first else (cp.pass_high or "")
        high = max([*stamps, prior]) or None
        etag = page.etag if first else cp.etag
        nxt = self._next_page(page, stamps)
        if nxt:
            new = Checkpoint(cp.repo, cp.resource, nxt, cp.since, pass_since, high, etag, False)
        elif high is not None and (pass_since is None or high > pass_since):
            new = Checkpoint(cp.repo, cp.resource, None, high, None, None, None, False)
        elif page.status == 422:
            raise GitHubError(
                f"GitHub capped {self.ctx.repo} {self.resource} and no newer items remain",
                status=422,
            )
        else:
            whole = first and len(items) < self.ctx.per_page
            new = Checkpoint(
                cp.repo, cp.resource, None, pass_since, None, None, etag if whole else None, True
            )
            self.finished = True
        if self.resource == "issues":
            self.ctx.store.write_page(
                self.ctx.repo, issues=issue_rows(self.ctx.repo, items), checkpoint=new
            )
            self.ctx.summary.issues += len(items)
        else:
            self.ctx.store.write_page(
                self.ctx.repo, comments=comment_rows(self.ctx.repo, items), checkpoint=new
            )
            self.ctx.summary.comments += len(items)
        self.cp = new
        if self.on_items is not None:
            self.on_items(items)
        self.ctx.page_done(
            self.resource, len(items), _pages_left(page) if page.status == 200 else None
        )


class TimelineChain:
    """REST timeline of one candidate: keeps its marked/unmarked_as_duplicate events."""

    def __init__(self, ctx: RepoContext, number: int, updated_at: str | None) -> None:
        self.ctx = ctx
        self.number = number
        self.updated_at = updated_at
        self.resource = f"timeline:{number}"
        self.cp = ctx.store.checkpoint(ctx.repo, self.resource)
        self.finished = False

    def next_step(self) -> Step | None:
        if self.finished:
            return None
        url = (
            self.cp.next_url
            or f"{self.ctx.api_path}/issues/{self.number}/timeline?per_page={self.ctx.per_page}"
        )
        return lambda client: client.get(url, expect=(301, 404, 410))

    def commit(self, page: Page) -> None:
        rows: list[dict[str, Any]] = []
        if page.status == 200 and isinstance(page.data, list):
            rows = [
                r
                for e in page.data
                if isinstance(e, dict)
                and (r := gql.rest_event_row(self.ctx.repo, self.number, e)) is not None
                and gql.worth_keeping(r)
            ]
        nxt = page.next_url if page.status == 200 else None
        done = nxt is None
        cp = Checkpoint(
            self.ctx.repo, self.resource, nxt, self.updated_at if done else None, done=done
        )
        self.ctx.store.write_page(self.ctx.repo, events=rows, checkpoint=cp)
        self.ctx.summary.events += len(rows)
        self.cp, self.finished = cp, done
        self.ctx.page_done(self.resource, len(rows), None if nxt else 0)


class GraphQLChain:
    """One batched GraphQL query for many candidates (plus follow-ups for long timelines).

    If GraphQL is unavailable (404, refused), the batch falls back to REST timelines, and
    `on_unavailable` tells the runner to stop asking GraphQL for the rest of the crawl. REST
    timelines do not name the canonical, so they are asked only for the candidates
    `rest_worthy` accepts (those whose link a REST event can change).
    """

    def __init__(
        self,
        ctx: RepoContext,
        candidates: list[tuple[int, str | None]],
        on_unavailable: Callable[[], None],
        *,
        rest_only: bool = False,
        rest_worthy: Callable[[int], bool] = lambda number: True,
        sizer: gql.PageSizer | None = None,
    ) -> None:
        self.ctx = ctx
        self.sizer = sizer or gql.PageSizer()
        self.updated = dict(candidates)
        self.todo = [n for n, _ in candidates]
        self.after: dict[int, str] = {}
        self.fallback: list[TimelineChain] | None = None
        self.on_unavailable = on_unavailable
        self.rest_worthy = rest_worthy
        if rest_only:
            self.fallback = self._rest(candidates)

    def _rest(self, candidates: list[tuple[int, str | None]]) -> list[TimelineChain]:
        return [TimelineChain(self.ctx, n, u) for n, u in candidates if self.rest_worthy(n)]

    def next_step(self) -> Step | None:
        if self.fallback is not None:
            while self.fallback:
                step = self.fallback[0].next_step()
                if step is not None:
                    return step
                self.fallback.pop(0)
            return None
        if not self.todo:
            return None
        numbers = self.todo[: max(1, self.sizer.budget // gql.TIMELINE_PAGE)]
        query, variables = gql.build_query(
            self.ctx.api_path.split("/", 1)[1], numbers, after=self.after
        )

        def ask(client: GitHubClient) -> Any:
            try:
                return numbers, client.graphql(query, variables)
            except GraphQLUnavailable as exc:
                return numbers, exc

        return ask

    def commit(self, result: Any) -> None:
        if self.fallback is not None:
            self.fallback[0].commit(result)
            return
        numbers, answer = result
        if not isinstance(answer, GraphQLUnavailable):
            self.ctx.summary.points += gql.points(len(numbers))
        if not isinstance(answer, GraphQLUnavailable) and gql.refused_as_too_heavy(answer):
            self.sizer.shrink()  # the next step asks fewer candidates at once
            return
        if isinstance(answer, GraphQLUnavailable) or gql.fatal_errors(answer):
            self.on_unavailable()
            self.fallback = self._rest([(n, self.updated[n]) for n in self.todo])
            return
        batch = gql.parse_batch(self.ctx.repo, numbers, answer)
        rows = [row for n in numbers for row in batch.events.get(n, [])]
        finished = [n for n in numbers if n not in batch.more]
        checkpoints = [
            Checkpoint(self.ctx.repo, f"timeline:{n}", since=self.updated[n], done=True)
            for n in finished
        ]
        self.ctx.store.write_page(
            self.ctx.repo, events=rows, checkpoints=checkpoints, reread=other_sides(self.ctx, rows)
        )
        self.ctx.summary.events += len(rows)
        rest = [n for n in self.todo if n not in numbers]
        self.todo = list(batch.more) + rest
        self.after = {n: c for n, c in self.after.items() if n in rest} | dict(batch.more)
        self.ctx.page_done("graphql", len(rows), 0)


MARKS = ("marked_as_duplicate", "unmarked_as_duplicate")


def other_sides(ctx: RepoContext, rows: list[dict[str, Any]]) -> list[str]:
    """The timelines to read again for the duplicate marks in `rows`: a mark shows on both
    issues' timelines, but GitHub moves only the duplicate's `updated_at`, so a re-crawl that
    reads the duplicate again would never see the mark on the canonical's (or the reverse).
    Each issue of this repository that a mark names, whose own timeline does not hold that
    mark yet, loses its `timeline:` checkpoint in the same transaction as the page, and the
    runner's next pass reads it as a fresh crawl would. A fresh crawl loses nothing to this:
    an issue not read yet has no checkpoint, and one read already holds the mark."""
    names = {ctx.repo.lower(), ctx.api_path.split("/", 1)[1].lower()}
    sides: set[tuple[int, str]] = set()
    for row in rows:
        if row["event"] not in MARKS:
            continue
        for side_repo, side in (
            (row.get("canonical_repo"), row.get("canonical_number")),
            (row.get("duplicate_repo"), row.get("duplicate_number")),
        ):
            if side is not None and side != row["number"] and str(side_repo).lower() in names:
                sides.add((int(side), str(row["event_key"])))
    if not sides:
        return []
    held = ctx.store.stored_event_keys(ctx.repo, sides)
    held |= {(int(row["number"]), str(row["event_key"])) for row in rows}
    return sorted({f"timeline:{n}" for n, key in sides - held})


class ThreadCheck:
    """One issue's comments over REST (`GET /issues/{n}/comments`, every page), for a thread
    the crawl could not store whole or whose stored comments fall short of the issue's count.
    REST keys every comment by its id, so a listing that completes closes the thread's gap;
    one GitHub no longer answers (deleted or moved meanwhile) leaves it."""

    def __init__(self, ctx: RepoContext, number: int, updated_at: str | None) -> None:
        self.ctx = ctx
        self.number = number
        self.updated_at = updated_at
        self.url: str | None = f"{ctx.api_path}/issues/{number}/comments?per_page={ctx.per_page}"
        self.stored = 0
        self.ids: set[int] = set()  # every comment the thread has now

    @property
    def finished(self) -> bool:
        return self.url is None

    def next_step(self) -> Step | None:
        url = self.url
        if url is None:
            return None
        return lambda client: client.get(url, expect=(404, 410))

    def commit(self, page: Page) -> None:
        repo, store = self.ctx.repo, self.ctx.store
        items: list[dict[str, Any]] = (
            page.data if page.status == 200 and isinstance(page.data, list) else []
        )
        self.stored += len(items)
        self.ids |= {int(c["id"]) for c in items}
        self.url = page.next_url if page.status == 200 else None
        if self.url is not None:
            store.write_page(repo, comments=comment_rows(repo, items))
        elif page.status == 200:  # read whole: comments deleted on GitHub leave the store
            verified = Checkpoint(repo, f"verified:{self.number}", since=self.updated_at, done=True)
            store.write_page(
                repo,
                comments=comment_rows(repo, items),
                checkpoint=verified,
                threads={self.number: self.ids},
            )
        # else: deleted or moved meanwhile; a gap the thread had stays, and says so
        self.ctx.summary.comments += len(items)
        self.ctx.page_done("threads", len(items), 0 if self.url is None else None)


def _repo_of(issue: dict[str, Any]) -> str | None:
    """owner/name of a REST issue object, from `repository_url` or `html_url`."""
    url = str(issue.get("repository_url") or "")
    if "/repos/" in url:
        return url.split("/repos/", 1)[1].strip("/")
    html = str(issue.get("html_url") or "")
    parts = html.split("://", 1)[-1].split("/")
    return f"{parts[1]}/{parts[2]}" if len(parts) >= 4 else None


class RefChain:
    """GET one referenced issue the lists did not return: 301 -> follow and record the
    transfer, 404/410 -> tombstone, 200 -> store it."""

    MAX_HOPS = 3

    def __init__(self, ctx: RepoContext, number: int) -> None:
        self.ctx = ctx
        self.number = number
        self.finished = False

    def next_step(self) -> Step | None:
        if self.finished:
            return None
        first = f"{self.ctx.api_path}/issues/{self.number}"

        def fetch(client: GitHubClient) -> list[Page]:
            pages = [client.get(first, expect=(404, 410))]
            while (
                pages[-1].status in (301, 302, 307, 308)
                and pages[-1].location
                and len(pages) <= self.MAX_HOPS
            ):
                pages.append(client.get(pages[-1].location, expect=(404, 410)))
            return pages

        return fetch

    def commit(self, pages: list[Page]) -> None:
        self.finished = True
        final, store, repo = pages[-1], self.ctx.store, self.ctx.repo
        moved = pages[0].status in (301, 302, 307, 308)
        if final.status in (404, 410):
            store.mark_tombstone(repo, self.number, "deleted" if final.status == 404 else "gone")
            self.ctx.summary.tombstones += 1
        elif final.status == 200 and isinstance(final.data, dict):
            target = _repo_of(final.data)
            if moved and target is not None:
                store.write_page(target, issues=issue_rows(target, [final.data]))
                store.add_redirect(repo, self.number, target, int(final.data["number"]))
                self.ctx.summary.redirects += 1
            else:
                store.write_page(repo, issues=issue_rows(repo, [final.data]))
        self.ctx.page_done("refs", 1, 0)
