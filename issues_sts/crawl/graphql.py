"""Batched GraphQL queries for the duplicate evidence that lives in timelines.

One query asks for many issues at once through aliases (`i123: issue(number: 123) {...}`),
each with `stateReason(enableDuplicate: true)` and its timeline items of the kinds that bear
on duplicates (`EVENT_TYPES`): who closed it and why, reopens, the label history, and
`MarkedAsDuplicateEvent`s, the only place that names the canonical issue (and, on the
canonical's own timeline, the duplicate). Pure functions: building queries and turning
answers into event rows.

Two traps of GitHub's schema: `Issue.stateReason` reports a duplicate close as NOT_PLANNED
unless asked with `enableDuplicate: true`, and `ClosedEvent.stateReason`, which takes no such
argument, always does (the REST list's `state_reason` says "duplicate" for the last close). A
`Bot` actor's GraphQL login lacks the `[bot]` its REST login has.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from issues_sts.evidence import is_duplicate_label

_REF = (
    "__typename ... on Issue { number repository { nameWithOwner } } "
    "... on PullRequest { number repository { nameWithOwner } }"
)
ACTOR = "actor { __typename login }"
_MARK_FIELDS = f"id createdAt {ACTOR} canonical {{ {_REF} }} duplicate {{ {_REF} }}"
# The timeline items that bear on duplicates, and what the crawl asks of each.
EVENT_TYPES = (
    "CLOSED_EVENT",
    "REOPENED_EVENT",
    "LABELED_EVENT",
    "UNLABELED_EVENT",
    "MARKED_AS_DUPLICATE_EVENT",
    "UNMARKED_AS_DUPLICATE_EVENT",
)
EVENT_FRAGMENTS = (
    f"... on ClosedEvent {{ id createdAt {ACTOR} stateReason }} "
    f"... on ReopenedEvent {{ id createdAt {ACTOR} }} "
    f"... on LabeledEvent {{ id createdAt {ACTOR} label {{ name }} }} "
    f"... on UnlabeledEvent {{ id createdAt {ACTOR} label {{ name }} }} "
    f"... on MarkedAsDuplicateEvent {{ {_MARK_FIELDS} }} "
    f"... on UnmarkedAsDuplicateEvent {{ {_MARK_FIELDS} }}"
)


# The event fields once per query, as a named fragment each alias spreads: a batch of a hundred
# issues is then a few kilobytes instead of a hundred copies of them (GitHub parses, and the
# crawl uploads, every byte). The fragment holds no connection, so a query's node count, which
# GitHub's limits read from its connections' `first`, is the same either way.
EVENTS = "DuplicateEvidence"
EVENTS_FRAGMENT = f"fragment {EVENTS} on IssueTimelineItems {{ {EVENT_FRAGMENTS} }}"


def _items(first: int, after: str | None) -> str:
    cursor = f", after: {json.dumps(after)}" if after else ""
    return (
        f"timelineItems(itemTypes: [{', '.join(EVENT_TYPES)}], "
        f"first: {int(first)}{cursor}) {{ nodes {{ __typename ...{EVENTS} }} "
        "pageInfo { hasNextPage endCursor } }"
    )


RESOURCE_LIMITS = "RESOURCE_LIMITS_EXCEEDED"
TIMELINE_PAGE = 25  # duplicate events asked per issue and query (more continue with a cursor)


def points(aliases: int) -> int:
    """GitHub's cost of a query asking `aliases` issues for one connection each."""
    return max(1, round(aliases / 100))


@dataclass
class PageSizer:
    """The node budget of one GraphQL batch: halved on a refusal or a slow answer, regrown by
    10 % per fast answer (GitHub's limits on a query's resources are not published)."""

    budget: int = 2000
    floor: int = 100
    ceiling: int = 5000
    slow_seconds: float = 5.0  # half of GitHub's 10 s query timeout
    shrinks: int = 0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def shrink(self) -> None:
        with self._lock:
            self.budget = max(self.floor, self.budget // 2)
            self.shrinks += 1

    def answered(self, seconds: float) -> None:
        with self._lock:
            if seconds > self.slow_seconds:
                self.budget = max(self.floor, self.budget // 2)
                self.shrinks += 1
            else:
                self.budget = min(self.ceiling, int(self.budget * 1.1) + 1)


def refused_as_too_heavy(answer: dict[str, Any]) -> bool:
    return any(
        isinstance(e, dict) and e.get("type") == RESOURCE_LIMITS for e in answer.get("errors") or []
    )


EVENT_NAMES = {
    "ClosedEvent": "closed",
    "ReopenedEvent": "reopened",
    "LabeledEvent": "labeled",
    "UnlabeledEvent": "unlabeled",
    "MarkedAsDuplicateEvent": "marked_as_duplicate",
    "UnmarkedAsDuplicateEvent": "unmarked_as_duplicate",
}


def alias(number: int) -> str:
    return f"i{number}"


def build_query(
    repo: str,
    numbers: Sequence[int],
    *,
    first: int = TIMELINE_PAGE,
    after: dict[int, str] | None = None,
) -> tuple[str, dict[str, Any]]:
    """One query (and its variables) for `numbers` of the repository `repo` (owner/name)."""
    after = after or {}
    parts = []
    for number in numbers:
        items = _items(first, after.get(number))
        parts.append(
            f"{alias(number)}: issue(number: {int(number)}) {{ number stateReason(enableDuplicate: "
            f"true) {items} }}"
        )
    query = (
        "query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { "
        + " ".join(parts)
        + " } rateLimit { cost remaining resetAt } } "
        + EVENTS_FRAGMENT
    )
    owner, name = repo.split("/", 1)
    return query, {"owner": owner, "name": name}


def _ref(node: Any) -> tuple[str | None, int | None]:
    if not isinstance(node, dict) or "number" not in node:
        return None, None
    repo = (node.get("repository") or {}).get("nameWithOwner")
    return repo, int(node["number"])


def actor_of(actor: Any) -> tuple[str | None, str | None]:
    """(REST login, type) of a GraphQL `Actor`: a `Bot`'s login gets REST's `[bot]`."""
    if not isinstance(actor, dict) or not actor.get("login"):
        return None, None
    login, kind = str(actor["login"]), str(actor.get("__typename") or "User")
    if kind == "Bot" and not login.endswith("[bot]"):
        login += "[bot]"
    return login, kind


def event_row(repo: str, number: int, node: dict[str, Any]) -> dict[str, Any] | None:
    """One `events` table row from a GraphQL timeline node (None for other item types)."""
    event = EVENT_NAMES.get(str(node.get("__typename")))
    if event is None or not node.get("id"):
        return None
    canonical_repo, canonical_number = _ref(node.get("canonical"))
    duplicate_repo, duplicate_number = _ref(node.get("duplicate"))
    actor, actor_type = actor_of(node.get("actor"))
    reason = node.get("stateReason")
    return {
        "repo": repo,
        "number": number,
        "event_key": str(node["id"]),
        "event": event,
        "actor": actor,
        "actor_type": actor_type,
        "created_at": node.get("createdAt"),
        "canonical_repo": canonical_repo,
        "canonical_number": canonical_number,
        "duplicate_repo": duplicate_repo,
        "duplicate_number": duplicate_number,
        "label": (node.get("label") or {}).get("name"),
        "state_reason": str(reason).lower() if reason else None,
        "source": "graphql",
        "raw": json.dumps(node, sort_keys=True, separators=(",", ":")),
    }


@dataclass
class BatchResult:
    """What one answer says about each asked issue."""

    events: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    more: dict[int, str] = field(default_factory=dict)  # number -> cursor of the next items page
    missing: list[int] = field(
        default_factory=list
    )  # not resolvable as an issue (transferred, deleted, PR)


def parse_batch(repo: str, numbers: Sequence[int], answer: dict[str, Any]) -> BatchResult:
    """Split a batched answer by issue. An issue whose alias is null or absent is `missing`
    (GitHub reports NOT_FOUND for transferred/deleted issues and for PR numbers)."""
    result = BatchResult()
    repository = (answer.get("data") or {}).get("repository") or {}
    for number in numbers:
        node = repository.get(alias(number))
        if not isinstance(node, dict):
            result.missing.append(number)
            continue
        items = node.get("timelineItems") or {}
        rows = [
            row
            for n in items.get("nodes") or []
            if (row := event_row(repo, number, n)) is not None and worth_keeping(row)
        ]
        result.events[number] = rows
        info = items.get("pageInfo") or {}
        if info.get("hasNextPage") and info.get("endCursor"):
            result.more[number] = str(info["endCursor"])
    return result


def fatal_errors(answer: dict[str, Any]) -> list[str]:
    """Errors other than per-issue NOT_FOUND: a query GitHub did not run at all."""
    messages = []
    for error in answer.get("errors") or []:
        if isinstance(error, dict) and error.get("type") != "NOT_FOUND":
            messages.append(str(error.get("message", error)))
    return (
        messages
        if answer.get("data") is None or not (answer.get("data") or {}).get("repository")
        else []
    )


REST_EVENTS = frozenset(EVENT_NAMES.values())


def rest_event_row(repo: str, number: int, event: dict[str, Any]) -> dict[str, Any] | None:
    """One `events` row from a REST timeline event (REST does not name the canonical).
    The key is the node id, as GraphQL's, so both sources describe the same event once."""
    name = event.get("event")
    if name not in REST_EVENTS:
        return None
    key = event.get("node_id") or event.get("id")
    if key is None:
        return None
    found = event.get("actor")
    actor: dict[str, Any] = found if isinstance(found, dict) else {}
    return {
        "repo": repo,
        "number": number,
        "event_key": str(key),
        "event": name,
        "actor": actor.get("login"),
        "actor_type": actor.get("type"),
        "created_at": event.get("created_at"),
        "canonical_repo": None,
        "canonical_number": None,
        "duplicate_repo": None,
        "duplicate_number": None,
        "label": (event.get("label") or {}).get("name"),
        "state_reason": event.get("state_reason"),
        "source": "rest",
        "raw": json.dumps(event, sort_keys=True, separators=(",", ":")),
    }


def worth_keeping(row: dict[str, Any]) -> bool:
    """Which events the store keeps: the duplicate events, closes and reopens, and the history
    of labels that say "duplicate" (a repository's other labels come and go by the thousand)."""
    if row["event"] in ("labeled", "unlabeled"):
        return bool(row.get("label")) and bool(is_duplicate_label(row["label"]))
    return True
