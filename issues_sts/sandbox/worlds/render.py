"""Drafts of generated issues and their rendering into raw GitHub REST objects."""

from __future__ import annotations

import calendar
import functools
import random
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from issues_sts.sandbox.corpus import Json, RepoData
from issues_sts.sandbox.worlds import vocab as V
from issues_sts.sandbox.worlds.text import Topic

API = "https://api.github.com"
WEB = "https://github.com"


def stamp(text: str) -> float:
    return float(calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%SZ")))


def iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def node_id(prefix: str, number: int) -> str:
    return f"{prefix}_kwDO{number:011X}"


@dataclass(frozen=True)
class Person:
    login: str
    user_id: int
    association: str  # author_association in this repository
    kind: str = "User"

    @staticmethod
    def make(rng: random.Random, association: str) -> Person:
        parts = [rng.choice(V.SYLLABLES) for _ in range(rng.randrange(2, 4))]
        login = "".join(parts) + (str(rng.randrange(10, 99)) if rng.random() < 0.4 else "")
        if rng.random() < 0.2:
            login = login[: len(login) // 2] + "-" + login[len(login) // 2 :]
        return Person(login, rng.randrange(1_000, 90_000_000), association)

    @functools.cached_property
    def _json(self) -> Json:
        return {
            "login": self.login,
            "id": self.user_id,
            "node_id": node_id("U", self.user_id),
            "type": self.kind,
            "site_admin": False,
            "url": f"{API}/users/{self.login}",
            "html_url": f"{WEB}/{self.login}",
        }

    def json(self) -> Json:
        """The REST `user` object (shared between the objects this person appears in)."""
        return self._json


@dataclass
class Draft:
    """An issue or PR being generated, before numbers and ids are final."""

    number: int
    topic: Topic
    title: str
    body: str | None
    author: Person
    created: float
    is_pr: bool = False
    labels: list[str] = field(default_factory=list)
    comments: list[tuple[float, Person, str]] = field(default_factory=list)
    events: list[tuple[float, str, Person, Any]] = field(default_factory=list)
    closed: tuple[float, Person, str | None] | None = None
    merged: bool = False

    def comment(self, t: float, who: Person, body: str) -> None:
        self.comments.append((t, who, body))

    def mark(self, t: float, who: Person, canonical: tuple[str, int]) -> None:
        self.events.append((t, "marked_as_duplicate", who, canonical))

    def unmark(self, t: float, who: Person, canonical: tuple[str, int]) -> None:
        self.events.append((t, "unmarked_as_duplicate", who, canonical))

    def close(self, t: float, who: Person, reason: str | None, merged: bool = False) -> None:
        self.closed = (t, who, reason)
        self.merged = merged

    def last_activity(self) -> float:
        times = [self.created, *(c[0] for c in self.comments), *(e[0] for e in self.events)]
        return max(times)


class Ids(Protocol):
    """Where a world's ids come from, by the time an object was created (GitHub's sequences
    grow with time: `eras.GitHubIds`)."""

    def issue(self, t: float) -> int: ...

    def comment(self, t: float) -> int: ...

    def event(self, t: float) -> int: ...


def render_repo(
    drafts: dict[int, Draft],
    repo: RepoData,
    repo_index: int,
    next_comment_id: list[int],
    next_event: list[int] | None = None,
    ids: Ids | None = None,
) -> None:
    """Fill `repo` with REST objects; comment ids follow creation time across the repository.
    `next_event` carries the event counter across calls that render one repository in parts
    (without it, the historical numbering: each draft's events start `repo_index * 1_000_000`
    after the previous draft's). `ids`: issue, comment and event ids by creation time instead
    of the small counters."""
    pending: list[tuple[float, int, Person, str]] = []
    counter = next_event if next_event is not None else [0]
    step = 0 if next_event is not None else repo_index * 1_000_000
    for number in sorted(drafts):
        draft = drafts[number]
        issue_id = (
            ids.issue(draft.created)
            if ids is not None
            else 1_500_000_000 + repo_index * 10_000_000 + number * 17
        )
        repo.issues.append(_issue(draft, repo.full_name, issue_id))
        pending.extend((t, number, who, body) for t, who, body in draft.comments)
        events, counter[0] = _events(draft, repo, counter[0] + step, ids)
        if events:
            repo.timeline[number] = events
    pending.sort(key=lambda c: (c[0], c[1]))
    for t, number, who, body in pending:
        next_comment_id[0] += 1
        comment_id = ids.comment(t) if ids is not None else next_comment_id[0]
        repo.comments.append(_comment(repo.full_name, number, comment_id, t, who, body))
    count_comments(repo)


def count_comments(repo: RepoData) -> None:
    """Set every issue's `comments` count from the repository's comments, and reindex."""
    counts: dict[int, int] = {}
    for comment in repo.comments:
        num = int(comment["issue_url"].rsplit("/", 1)[1])
        counts[num] = counts.get(num, 0) + 1
    for item in repo.issues:
        item["comments"] = counts.get(item["number"], 0)
    repo.reindex()


def _issue(draft: Draft, full_name: str, issue_id: int) -> Json:
    kind = "pull" if draft.is_pr else "issues"
    closed_at = iso(draft.closed[0]) if draft.closed else None
    updated = max(draft.last_activity(), draft.closed[0] if draft.closed else 0.0)
    item: Json = {
        "url": f"{API}/repos/{full_name}/issues/{draft.number}",
        "repository_url": f"{API}/repos/{full_name}",
        "comments_url": f"{API}/repos/{full_name}/issues/{draft.number}/comments",
        "events_url": f"{API}/repos/{full_name}/issues/{draft.number}/events",
        "html_url": f"{WEB}/{full_name}/{kind}/{draft.number}",
        "timeline_url": f"{API}/repos/{full_name}/issues/{draft.number}/timeline",
        "id": issue_id,
        "node_id": node_id("PR" if draft.is_pr else "I", issue_id),
        "number": draft.number,
        "title": draft.title,
        "user": draft.author.json(),
        "labels": [_label(name) for name in dict.fromkeys(draft.labels)],
        "state": "closed" if draft.closed else "open",
        "locked": False,
        "assignee": None,
        "assignees": [],
        "milestone": None,
        "comments": 0,
        "created_at": iso(draft.created),
        "updated_at": iso(updated),
        "closed_at": closed_at,
        "author_association": draft.author.association,
        "active_lock_reason": None,
        "body": draft.body,
        "closed_by": draft.closed[1].json() if draft.closed else None,
        "reactions": {"total_count": 0, "+1": 0, "-1": 0},
        "state_reason": draft.closed[2] if draft.closed and not draft.is_pr else None,
    }
    if draft.is_pr:
        item["pull_request"] = {
            "url": f"{API}/repos/{full_name}/pulls/{draft.number}",
            "html_url": f"{WEB}/{full_name}/pull/{draft.number}",
            "diff_url": f"{WEB}/{full_name}/pull/{draft.number}.diff",
            "patch_url": f"{WEB}/{full_name}/pull/{draft.number}.patch",
            "merged_at": closed_at if draft.merged else None,
        }
    return item


@functools.lru_cache(maxsize=256)
def _label(name: str) -> Json:
    seed = sum(map(ord, name))
    return {
        "id": 100_000 + seed * 31,
        "node_id": node_id("LA", seed),
        "name": name,
        "color": f"{(seed * 2654435761) % 0xFFFFFF:06x}",
        "default": name in ("bug", "duplicate"),
    }


def _comment(
    full_name: str, number: int, comment_id: int, t: float, who: Person, body: str
) -> Json:
    return {
        "url": f"{API}/repos/{full_name}/issues/comments/{comment_id}",
        "html_url": f"{WEB}/{full_name}/issues/{number}#issuecomment-{comment_id}",
        "issue_url": f"{API}/repos/{full_name}/issues/{number}",
        "id": comment_id,
        "node_id": node_id("IC", comment_id),
        "user": who.json(),
        "created_at": iso(t),
        "updated_at": iso(t),
        "author_association": who.association,
        "body": body,
    }


def _events(draft: Draft, repo: RepoData, seq: int, ids: Ids | None) -> tuple[list[Json], int]:
    events: list[Json] = []
    raw = sorted(draft.events, key=lambda e: e[0])
    for name in dict.fromkeys(draft.labels):
        raw.append((draft.created + 30, "labeled", draft.author, name))
    if draft.closed:
        raw.append((draft.closed[0], "closed", draft.closed[1], draft.closed[2]))
    latest: tuple[str, int] | None = None
    for t, kind, who, extra in sorted(raw, key=lambda e: e[0]):
        seq += 1
        event_id = ids.event(t) if ids is not None else 7_000_000_000 + seq
        prefix = {
            "marked_as_duplicate": "MADE",
            "unmarked_as_duplicate": "UMDE",
            "closed": "CE",
            "labeled": "LE",
        }[kind]
        event: Json = {
            "id": event_id,
            "node_id": node_id(prefix, event_id),
            "url": f"{API}/repos/{repo.full_name}/issues/events/{event_id}",
            "actor": who.json(),
            "event": kind,
            "commit_id": None,
            "commit_url": None,
            "created_at": iso(t),
            "performed_via_github_app": None,
        }
        if kind == "labeled":
            event["label"] = {"name": extra, "color": _label(extra)["color"]}
        elif kind == "closed":
            event["state_reason"] = extra
        else:
            repo.event_canonical[event["node_id"]] = extra
            latest = extra if kind == "marked_as_duplicate" else None
        events.append(event)
    if latest is not None:
        repo.duplicate_of[draft.number] = latest
    return events, seq
