"""Issue threads over GraphQL: the comments of issues, never of pull requests, ~100 issues a point.

The REST issue list tells, for every item, whether it is a pull request, whether it is closed
and how many comments it has. The repo-wide REST comment listing would then cost one request
per 100 comments, pull requests' (mostly bot) comments included, which the dataset discards.
Here instead one query asks up to 100 issues at once through aliases, each for exactly as many
comments as it has (`i12: issue(number: 12) { comments(first: 7) {...} }`): GitHub charges one
request per alias, so a batch costs one point, and an open issue without comments costs
nothing. A thread longer than 100 comments continues with its cursor in the next query.

A closed issue is asked for its timeline instead, in one connection and at the same price:
its comments together with the events that bear on duplicates (`graphql.EVENT_TYPES`: who
closed it and why, reopens, the label history, `MarkedAsDuplicateEvent`). Modern repositories
keep their duplicate evidence there: a label removed after a relabelling, a bot that closed the
issue (REST list pages carry no `closed_by`), a close with only a label whose target is in the
event. Closes and reopens are kept for threads that point at another issue or that GitHub
calls a duplicate; duplicate labels' history and duplicate events always.

Ids: GraphQL's `databaseId` is a 32-bit Int, and GitHub's comment ids passed 2^31 in early
2024; for such a comment it answers null (with an error). The crawl asks `fullDatabaseId` (a
BigInt, sent as a string) and keys comments by it, as REST does. A comment that comes without
an id, or a comments connection shorter than its `totalCount`, is a `Gap` in the store, which
the runner then asks REST for, issue by issue.

Heavy batches are refused with RESOURCE_LIMITS_EXCEEDED (or would run past GitHub's 10 s):
`PageSizer` halves the node budget of a batch on such an answer or a slow one, and grows it
back slowly while answers come back fast.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from issues_sts.crawl.candidates import mentions_issue, says_duplicate_itself
from issues_sts.crawl.chains import IDLE, RepoContext, Step, other_sides
from issues_sts.crawl.client import GitHubClient, GraphQLUnavailable
from issues_sts.crawl.graphql import (
    EVENT_TYPES,
    EVENTS,
    EVENTS_FRAGMENT,
    PageSizer,
    event_row,
    points,
    refused_as_too_heavy,
    worth_keeping,
)
from issues_sts.crawl.rows import comment_rows
from issues_sts.store import Checkpoint, Gap

MAX_ALIASES = 100  # one request each: 100 aliases are one point
MAX_FIRST = 100  # GitHub's largest page of a connection
ACTOR = "author { __typename login }"
COMMENT_FIELDS = f"id fullDatabaseId body createdAt updatedAt url authorAssociation {ACTOR}"
# a comment's fields once per query, spread by every alias (as `graphql.EVENTS` is)
COMMENT = "CommentFields"
COMMENT_FRAGMENT = f"fragment {COMMENT} on IssueComment {{ {COMMENT_FIELDS} }}"


EVENT_ALLOWANCE = 10  # timeline items asked beyond a closed issue's comments (more continue)
_CLOSES = ("closed", "reopened")


@dataclass(frozen=True)
class Want:
    """An issue whose thread the crawl asks for, as the issue list described it."""

    number: int
    updated_at: str | None
    count: int  # comments the list counted
    events: bool = False  # closed: ask its timeline (comments and duplicate evidence)
    carries: bool = False  # its title, body or labels already point at a duplicate's evidence


def want(
    number: int,
    updated_at: str | None,
    count: int,
    *,
    closed: bool,
    text: str | None = None,
    labels: Any = (),
    state_reason: str | None = None,
) -> Want | None:
    """What to ask of one issue; None for an open issue without comments, or a closed one
    without comments that neither names an issue nor is called a duplicate (nothing to read)."""
    carries = mentions_issue(text) or says_duplicate_itself(labels or (), state_reason)
    if count == 0 and not (closed and carries):
        return None
    return Want(number, updated_at, count, closed, carries)


def want_of(raw: dict[str, Any]) -> Want | None:
    """`want` for a REST issue-list item (pull requests: None)."""
    if raw.get("pull_request") is not None:
        return None
    return want(
        int(raw["number"]),
        raw.get("updated_at"),
        int(raw.get("comments") or 0),
        closed=raw.get("state") == "closed",
        text=f"{raw.get('title') or ''}\n{raw.get('body') or ''}",
        labels=raw.get("labels") or (),
        state_reason=raw.get("state_reason"),
    )


@dataclass(frozen=True)
class Ask:
    number: int
    updated_at: str | None
    first: int
    after: str | None = None
    events: bool = False
    carries: bool = False


def build_query(repo: str, asks: list[Ask]) -> tuple[str, dict[str, Any]]:
    """One query (and its variables) asking each issue of `asks` for its next comments (and,
    for a closed issue, its timeline's duplicate evidence in the same connection)."""
    parts = []
    for ask in asks:
        cursor = f", after: {json.dumps(ask.after)}" if ask.after else ""
        if ask.events:
            kinds = ", ".join(("ISSUE_COMMENT", *EVENT_TYPES))
            parts.append(
                f"i{ask.number}: issue(number: {int(ask.number)}) {{ timelineItems(itemTypes: "
                f"[{kinds}], first: {int(ask.first)}{cursor}) {{ nodes {{ __typename "
                f"...{COMMENT} ...{EVENTS} }} pageInfo {{ hasNextPage endCursor }} }} }}"
            )
            continue
        parts.append(
            f"i{ask.number}: issue(number: {int(ask.number)}) {{ comments(first: "
            f"{int(ask.first)}{cursor}) {{ totalCount nodes {{ ...{COMMENT} }} pageInfo {{ "
            "hasNextPage endCursor } } }"
        )
    # GitHub refuses a fragment the query defines and does not use
    fragments = [COMMENT_FRAGMENT] + ([EVENTS_FRAGMENT] if any(a.events for a in asks) else [])
    query = (
        "query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { "
        + " ".join(parts)
        + " } } "
        + " ".join(fragments)
    )
    owner, name = repo.split("/", 1)
    return query, {"owner": owner, "name": name}


def rest_login(actor: Any) -> dict[str, Any] | None:
    """A GraphQL `Actor` as a REST user: a `Bot`'s login gets the `[bot]` that REST shows
    ("dependabot" in GraphQL is "dependabot[bot]" in REST and in every comment's text)."""
    if not isinstance(actor, dict) or not actor.get("login"):
        return None
    login = str(actor["login"])
    if actor.get("__typename") == "Bot":
        return {"login": login if login.endswith("[bot]") else f"{login}[bot]", "type": "Bot"}
    return {"login": login, "type": str(actor.get("__typename") or "User")}


def node_id_of(node: dict[str, Any]) -> int | None:
    """The REST id of a GraphQL object: `fullDatabaseId` (a BigInt string), else a 32-bit
    `databaseId` from a server that has no `fullDatabaseId` yet; None when neither came."""
    for key in ("fullDatabaseId", "databaseId"):
        value = node.get(key)
        if value is not None and str(value).lstrip("-").isdigit():
            return int(value)
    return None


def rest_comment(api_path_url: str, number: int, node: dict[str, Any]) -> dict[str, Any]:
    """A GraphQL IssueComment in the shape of a REST issue comment (what the store keeps)."""
    return {
        "id": node_id_of(node),
        "node_id": node.get("id"),
        "html_url": node.get("url"),
        "issue_url": f"{api_path_url}/issues/{number}",
        "body": node.get("body") or "",
        "user": rest_login(node.get("author")),
        "author_association": node.get("authorAssociation"),
        "created_at": node.get("createdAt"),
        "updated_at": node.get("updatedAt"),
    }


def pack(pending: list[Want], budget: int) -> list[Ask]:
    """Take from `pending` the asks of one batch: at most MAX_ALIASES issues and `budget`
    timeline items (an issue alone may exceed it up to MAX_FIRST)."""
    asks: list[Ask] = []
    nodes = 0
    while pending and len(asks) < MAX_ALIASES:
        w = pending[0]
        first = max(1, min(MAX_FIRST, w.count + (EVENT_ALLOWANCE if w.events else 0)))
        if asks and nodes + first > budget:
            break
        pending.pop(0)
        asks.append(Ask(w.number, w.updated_at, first, None, w.events, w.carries))
        nodes += first
    return asks


@dataclass
class _Reading:
    """One thread read over several answers: what it held so far."""

    stored: int = 0
    without_id: int = 0
    ids: set[int] = field(default_factory=set)  # every comment id read: the thread as it is now
    events: list[dict[str, Any]] = field(default_factory=list)
    points_elsewhere: bool = False  # a comment names another issue


class ThreadChain:
    """The threads of one batch of issues, to their last comment; commits per answer."""

    def __init__(
        self,
        ctx: RepoContext,
        asks: list[Ask],
        sizer: PageSizer,
        api_url: str,
        on_comments: Callable[[list[dict[str, Any]]], None],
        on_unavailable: Callable[[], None],
    ) -> None:
        self.ctx = ctx
        self.queue = [asks]  # a refused batch is split in two and both halves queued
        self.sizer = sizer
        self.url = f"{api_url.rstrip('/')}/{ctx.api_path}"
        self.on_comments = on_comments
        self.on_unavailable = on_unavailable
        self.unavailable = False
        self.readings: dict[int, _Reading] = {}  # threads under way (long ones continue)

    def _read(
        self, ask: Ask, connection: dict[str, Any], reading: _Reading
    ) -> list[dict[str, Any]]:
        """The comments of one answer (events go to `reading`, kept until the thread ends)."""
        kept: list[dict[str, Any]] = []
        for item in connection.get("nodes") or []:
            if not isinstance(item, dict):
                continue
            if ask.events and item.get("__typename") != "IssueComment":
                row = event_row(self.ctx.repo, ask.number, item)
                if row is not None and worth_keeping(row):
                    reading.events.append(row)
                continue
            comment = rest_comment(self.url, ask.number, item)
            if comment["id"] is None:
                reading.without_id += 1
                continue
            kept.append(comment)
            reading.ids.add(int(comment["id"]))
            reading.points_elsewhere = reading.points_elsewhere or mentions_issue(comment["body"])
        reading.stored += len(kept)
        return kept

    def _finished(self, ask: Ask) -> list[Checkpoint]:
        """A thread read to its end: its checkpoint, and its timeline's when it was asked."""
        resources = ["thread", "timeline"] if ask.events else ["thread"]
        return [
            Checkpoint(self.ctx.repo, f"{r}:{ask.number}", since=ask.updated_at, done=True)
            for r in resources
        ]

    @property
    def finished(self) -> bool:
        return not self.queue or self.unavailable

    def next_step(self) -> Step | None:
        if self.finished:
            return None
        asks = self.queue[0]
        query, variables = build_query(self.ctx.api_path.split("/", 1)[1], asks)

        def ask(client: GitHubClient) -> Any:
            try:  # the answer's own time: waits at the bucket gate say nothing about its weight
                return asks, client.graphql(query, variables), client.last_seconds()
            except GraphQLUnavailable as exc:
                return asks, exc, 0.0

        return ask

    def commit(self, result: Any) -> None:
        asks, answer, seconds = result
        self.queue.pop(0)
        if isinstance(answer, GraphQLUnavailable):
            self.unavailable = True
            self.on_unavailable()
            return
        self.ctx.summary.points += points(len(asks))
        self.ctx.summary.thread_points += points(len(asks))
        if refused_as_too_heavy(answer):
            self.sizer.shrink()
            if len(asks) > 1:
                half = len(asks) // 2
                self.queue[:0] = [asks[:half], asks[half:]]
            else:  # one long thread: ask fewer of its comments at a time
                ask = asks[0]
                self.queue.insert(0, [replace(ask, first=max(1, ask.first // 2))])
            return
        self.sizer.answered(seconds)
        repository = (answer.get("data") or {}).get("repository")
        if not isinstance(repository, dict):
            self.unavailable = True
            self.on_unavailable()
            return
        comments: list[dict[str, Any]] = []
        events: list[dict[str, Any]] = []
        done: list[Checkpoint] = []
        more: list[Ask] = []
        gaps: list[Gap] = []
        whole: dict[int, set[int]] = {}  # the comment ids of each thread read whole
        for ask in asks:
            node = repository.get(f"i{ask.number}")
            key = "timelineItems" if ask.events else "comments"
            connection = node.get(key) if isinstance(node, dict) else None
            if not isinstance(connection, dict):  # transferred or deleted meanwhile
                done += self._finished(ask)
                continue
            reading = self.readings.setdefault(ask.number, _Reading())
            comments += self._read(ask, connection, reading)
            info = connection.get("pageInfo") or {}
            if info.get("hasNextPage") and info.get("endCursor"):
                more.append(replace(ask, first=MAX_FIRST, after=str(info["endCursor"])))
                continue
            done += self._finished(ask)
            del self.readings[ask.number]
            keep_closes = (
                ask.carries
                or reading.points_elsewhere
                # its own duplicate events and labels (a mark of another issue as a duplicate
                # of this one, shown here too, does not make this one's close matter)
                or any(
                    e["event"] not in _CLOSES and e["duplicate_number"] in (None, ask.number)
                    for e in reading.events
                )
            )
            events += [e for e in reading.events if keep_closes or e["event"] not in _CLOSES]
            counted = int(connection.get("totalCount") or 0)  # comments only (not timelines)
            if reading.without_id or reading.stored < counted:
                reason = "comments without an id" if reading.without_id else "fewer than counted"
                expected = max(counted, reading.stored + reading.without_id)
                gaps.append(Gap(self.ctx.repo, ask.number, expected, reading.stored, reason))
            else:
                whole[ask.number] = reading.ids
        self.ctx.store.write_page(
            self.ctx.repo,
            comments=comment_rows(self.ctx.repo, comments),
            events=events,
            checkpoints=done,
            gaps=gaps,
            threads=whole,
            reread=other_sides(self.ctx, events),
        )
        self.ctx.summary.comments += len(comments)
        self.ctx.summary.events += len(events)
        self.ctx.summary.gaps += len(gaps)
        if more:
            self.queue.append(more)
        self.on_comments(comments)
        self.ctx.page_done("threads", len(comments), None)


class ThreadFeed:
    """Hands out thread batches while the issue list pages (IDLE while too few are waiting),
    then what is left; the runner's final pass over the store catches what a resumed crawl
    did not see."""

    def __init__(
        self,
        make_chain: Callable[[list[Ask]], ThreadChain],
        sizer: PageSizer,
        lists_done: Callable[[], bool],
        available: Callable[[], bool] = lambda: True,
    ) -> None:
        self.make_chain = make_chain
        self.sizer = sizer
        self.lists_done = lists_done
        self.available = (
            available  # False once GraphQL answered 404: the runner lists comments instead
        )
        self.pending: list[Want] = []
        self.current: ThreadChain | None = None

    def offer_issues(self, items: list[dict[str, Any]]) -> None:
        self.pending += [w for raw in items if (w := want_of(raw)) is not None]

    def next_step(self) -> Step | None | object:
        while True:
            if self.current is not None:
                step = self.current.next_step()
                if step is not None:
                    return step
                self.current = None
            if not self.available():
                self.pending.clear()
                return None
            if not self.pending:
                return None if self.lists_done() else IDLE
            full = (
                len(self.pending) >= MAX_ALIASES
                or sum(min(MAX_FIRST, w.count) for w in self.pending) >= self.sizer.budget
            )
            if not full and not self.lists_done():
                return IDLE
            self.current = self.make_chain(pack(self.pending, self.sizer.budget))

    def commit(self, result: Any) -> None:
        assert self.current is not None
        self.current.commit(result)
