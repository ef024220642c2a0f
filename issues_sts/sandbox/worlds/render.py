"""Drafts of generated issues and their rendering into raw GitHub REST objects."""

from __future__ import annotations

import calendar
import functools
import random
import time
from dataclasses import dataclass, field
from typing import Any

from issues_sts.sandbox.corpus import Json, RepoData
from issues_sts.sandbox.worlds import vocab as V
from issues_sts.sandbox.worlds.ids import IdClock
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

    def label(self, t: float, who: Person, name: str) -> None:
        """Add a label at `t` (a label in `labels` without such an event came at creation)."""
        self.events.append((t, "labeled", who, name))
        if name not in self.labels:
            self.labels.append(name)

    def unlabel(self, t: float, who: Person, name: str) -> None:
        self.events.append((t, "unlabeled", who, name))
        if name in self.labels:
            self.labels.remove(name)

    def reopen(self, t: float, who: Person) -> None:
        """Reopen a closed draft: its close becomes history (a `closed` event) and it is open."""
        if self.closed is not None:
            self.events.append((self.closed[0], "closed", self.closed[1], self.closed[2]))
        self.events.append((t, "reopened", who, None))
        self.closed = None

    def close(self, t: float, who: Person, reason: str | None, merged: bool = False) -> None:
        self.closed = (t, who, reason)
        self.merged = merged

    def last_activity(self) -> float:
        times = [self.created, *(c[0] for c in self.comments), *(e[0] for e in self.events)]
        return max(times)


def render_repo(
    drafts: dict[int, Draft],
    repo: RepoData,
    repo_index: int,
    ids: IdClock,
    issue_ids: bool = False,
) -> None:
    """Fill `repo` with REST objects. Comment and event ids come from `ids` by creation time,
    as GitHub's do (above 2^31 for comments since 2024); a repository rendered in parts (the
    paper world) passes the same `ids` to every part. `issue_ids`: issues' ids by creation time
    too (the calibrated paper world); without it, the historical small ids by number."""
    pending: list[tuple[float, int, Person, str]] = []
    happened: list[tuple[float, int, int, str, Person, Any]] = []
    for number in sorted(drafts):
        draft = drafts[number]
        issue_id = (
            ids.issue(draft.created, repo_index)
            if issue_ids
            else 1_500_000_000 + repo_index * 10_000_000 + number * 17
        )
        repo.issues.append(_issue(draft, repo.full_name, issue_id))
        pending.extend((t, number, who, body) for t, who, body in draft.comments)
        happened.extend((t, number, k, *rest) for k, (t, *rest) in enumerate(_history(draft)))
    pending.sort(key=lambda c: (c[0], c[1]))
    for t, number, who, body in pending:
        comment_id = ids.comment(t, repo_index)
        repo.comments.append(_comment(repo.full_name, number, comment_id, t, who, body))
    happened.sort(key=lambda e: (e[0], e[1], e[2]))
    latest: dict[int, tuple[str, int] | None] = {}
    for t, number, _, kind, who, extra in happened:
        event = _event(repo, ids.event(t, repo_index), t, kind, who, extra)
        repo.timeline.setdefault(number, []).append(event)
        if kind in ("marked_as_duplicate", "unmarked_as_duplicate"):
            latest[number] = extra if kind == "marked_as_duplicate" else None
    repo.duplicate_of.update({n: ref for n, ref in latest.items() if ref is not None})
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


_PREFIX = {
    "marked_as_duplicate": "MADE",
    "unmarked_as_duplicate": "UMDE",
    "closed": "CE",
    "reopened": "REE",
    "labeled": "LE",
    "unlabeled": "ULE",
}


def _history(draft: Draft) -> list[tuple[float, str, Person, Any]]:
    """The draft's timeline events by time: its own, a `labeled` for each current label that has
    none (added at creation), and the final close."""
    raw = list(draft.events)
    timed = {extra for _, kind, _, extra in raw if kind == "labeled"}
    raw += [
        (draft.created + 30, "labeled", draft.author, name)
        for name in dict.fromkeys(draft.labels)
        if name not in timed
    ]
    if draft.closed:
        raw.append((draft.closed[0], "closed", draft.closed[1], draft.closed[2]))
    return sorted(raw, key=lambda e: e[0])


def _event(repo: RepoData, event_id: int, t: float, kind: str, who: Person, extra: Any) -> Json:
    event: Json = {
        "id": event_id,
        "node_id": node_id(_PREFIX[kind], event_id),
        "url": f"{API}/repos/{repo.full_name}/issues/events/{event_id}",
        "actor": who.json(),
        "event": kind,
        "commit_id": None,
        "commit_url": None,
        "created_at": iso(t),
        "performed_via_github_app": None,
    }
    if kind in ("labeled", "unlabeled"):
        event["label"] = {"name": extra, "color": _label(extra)["color"]}
    elif kind in ("closed", "reopened"):
        event["state_reason"] = extra
    else:
        repo.event_canonical[event["node_id"]] = extra
    return event
