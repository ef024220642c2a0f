"""Issue threads over GraphQL: the comments of issues, never of pull requests, ~100 issues a point.

The REST issue list tells, for every item, whether it is a pull request and how many comments
it has. The repo-wide REST comment listing would then cost one request per 100 comments,
pull requests' (mostly bot) comments included, which the dataset discards. Here instead one
query asks up to 100 issues at once through aliases, each for exactly as many comments as it
has (`i12: issue(number: 12) { comments(first: 7) {...} }`): GitHub charges one request per
alias, so a batch costs one point, and issues without comments cost nothing. A thread longer
than 100 comments continues with its cursor in the next query of the same batch.

Heavy batches are refused with RESOURCE_LIMITS_EXCEEDED (or would run past GitHub's 10 s):
`PageSizer` halves the node budget of a batch on such an answer or a slow one, and grows it
back slowly while answers come back fast.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from issues_sts.crawl.chains import IDLE, RepoContext, Step
from issues_sts.crawl.client import GitHubClient, GraphQLUnavailable
from issues_sts.crawl.graphql import PageSizer, points, refused_as_too_heavy
from issues_sts.store import Checkpoint

MAX_ALIASES = 100  # one request each: 100 aliases are one point
MAX_FIRST = 100  # GitHub's largest page of a connection
COMMENT_FIELDS = "id databaseId body createdAt updatedAt url authorAssociation author { login }"


@dataclass(frozen=True)
class Ask:
    number: int
    updated_at: str | None
    first: int
    after: str | None = None


def build_query(repo: str, asks: list[Ask]) -> tuple[str, dict[str, Any]]:
    """One query (and its variables) asking each issue of `asks` for its next comments."""
    parts = []
    for ask in asks:
        cursor = f", after: {json.dumps(ask.after)}" if ask.after else ""
        parts.append(
            f"i{ask.number}: issue(number: {int(ask.number)}) {{ comments(first: "
            f"{int(ask.first)}{cursor}) {{ nodes {{ {COMMENT_FIELDS} }} pageInfo {{ hasNextPage "
            "endCursor } } }"
        )
    query = (
        "query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { "
        + " ".join(parts)
        + " } }"
    )
    owner, name = repo.split("/", 1)
    return query, {"owner": owner, "name": name}


def rest_comment(api_path_url: str, number: int, node: dict[str, Any]) -> dict[str, Any]:
    """A GraphQL IssueComment in the shape of a REST issue comment (what the store keeps)."""
    author = node.get("author") or {}
    return {
        "id": node.get("databaseId"),
        "node_id": node.get("id"),
        "html_url": node.get("url"),
        "issue_url": f"{api_path_url}/issues/{number}",
        "body": node.get("body") or "",
        "user": {"login": author.get("login")} if author else None,
        "author_association": node.get("authorAssociation"),
        "created_at": node.get("createdAt"),
        "updated_at": node.get("updatedAt"),
    }


def pack(pending: list[tuple[int, str | None, int]], budget: int) -> list[Ask]:
    """Take from `pending` (number, updated_at, comment count) the asks of one batch: at most
    MAX_ALIASES issues and `budget` comments (an issue alone may exceed it up to MAX_FIRST)."""
    asks: list[Ask] = []
    nodes = 0
    while pending and len(asks) < MAX_ALIASES:
        number, updated, count = pending[0]
        first = max(1, min(MAX_FIRST, count))
        if asks and nodes + first > budget:
            break
        pending.pop(0)
        asks.append(Ask(number, updated, first))
        nodes += first
    return asks


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
                self.queue.insert(
                    0, [Ask(ask.number, ask.updated_at, max(1, ask.first // 2), ask.after)]
                )
            return
        self.sizer.answered(seconds)
        repository = (answer.get("data") or {}).get("repository")
        if not isinstance(repository, dict):
            self.unavailable = True
            self.on_unavailable()
            return
        comments: list[dict[str, Any]] = []
        done: list[Checkpoint] = []
        more: list[Ask] = []
        for ask in asks:
            node = repository.get(f"i{ask.number}")
            connection = (node or {}).get("comments") if isinstance(node, dict) else None
            if not isinstance(
                connection, dict
            ):  # transferred or deleted meanwhile: nothing to keep
                done.append(
                    Checkpoint(
                        self.ctx.repo, f"thread:{ask.number}", since=ask.updated_at, done=True
                    )
                )
                continue
            comments += [
                rest_comment(self.url, ask.number, c)
                for c in connection.get("nodes") or []
                if isinstance(c, dict) and c.get("databaseId") is not None
            ]
            info = connection.get("pageInfo") or {}
            if info.get("hasNextPage") and info.get("endCursor"):
                more.append(Ask(ask.number, ask.updated_at, MAX_FIRST, str(info["endCursor"])))
            else:
                done.append(
                    Checkpoint(
                        self.ctx.repo, f"thread:{ask.number}", since=ask.updated_at, done=True
                    )
                )
        self.ctx.store.write_page(self.ctx.repo, comments=comments, checkpoints=done)
        self.ctx.summary.comments += len(comments)
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
        self.pending: list[tuple[int, str | None, int]] = []
        self.current: ThreadChain | None = None

    def offer_issues(self, items: list[dict[str, Any]]) -> None:
        for raw in items:
            if raw.get("pull_request") is None and int(raw.get("comments") or 0) > 0:
                self.pending.append(
                    (int(raw["number"]), raw.get("updated_at"), int(raw["comments"]))
                )

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
                or sum(min(MAX_FIRST, c) for *_, c in self.pending) >= self.sizer.budget
            )
            if not full and not self.lists_done():
                return IDLE
            self.current = self.make_chain(pack(self.pending, self.sizer.budget))

    def commit(self, result: Any) -> None:
        assert self.current is not None
        self.current.commit(result)
