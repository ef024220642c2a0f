"""The data a fake GitHub serves: raw REST objects per repository, plus ground truth.

The objects are the same dicts GitHub's REST API returns (issues, issue comments, timeline
events), so the server can serialise them as they are and a crawler cannot tell the difference.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

Json = dict[str, Any]


@dataclass
class RepoData:
    """One repository as GitHub would serve it.

    `duplicate_of` maps an issue number to the (repo full name, number) that GraphQL's
    `MarkedAsDuplicateEvent.canonical` names for that issue's latest marked_as_duplicate event.
    `event_canonical` maps the node_id of every (un)marked_as_duplicate timeline event to the
    canonical GraphQL names for that event (REST timeline events do not name it); an event whose
    canonical was deleted has no entry, and GraphQL answers `canonical: null` for it.
    `truth_evidence` says how each generated duplicate was closed ("marked", "phrase", "ui",
    "label", "retarget", "hedged", "in_body"; see world.EVIDENCE), for per-phenomenon recall.
    `truth_duplicates` is the generator's ground truth (what the issue really duplicates),
    which may differ from the evidence (a duplicate only said in a comment, a retargeting...).
    """

    full_name: str
    repo_id: int
    issues: list[Json] = field(default_factory=list)
    comments: list[Json] = field(default_factory=list)
    timeline: dict[int, list[Json]] = field(default_factory=dict)
    duplicate_of: dict[int, tuple[str, int]] = field(default_factory=dict)
    transferred: dict[int, tuple[str, int]] = field(default_factory=dict)
    deleted: set[int] = field(default_factory=set)
    gone: set[int] = field(default_factory=set)
    renamed_from: list[str] = field(default_factory=list)
    truth_duplicates: dict[int, tuple[str, int]] = field(default_factory=dict)
    event_canonical: dict[str, tuple[str, int]] = field(default_factory=dict)
    truth_evidence: dict[int, str] = field(default_factory=dict)  # duplicate -> evidence shape
    created_at: str = "2015-01-01T00:00:00Z"
    version: int = 0  # bumped by reindex(): the server caches sorted listings per version

    @property
    def owner(self) -> str:
        return self.full_name.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.full_name.split("/", 1)[1]

    def issue(self, number: int) -> Json | None:
        return self._index().get(number)

    def comments_of(self, number: int) -> list[Json]:
        return self._comment_index().get(number, [])

    def reindex(self) -> None:
        """Forget cached lookups: call after changing `issues` or `comments` in place."""
        self.version += 1
        self.__dict__.pop("_by_number", None)
        self.__dict__.pop("_by_issue", None)

    def _index(self) -> dict[int, Json]:
        cached = self.__dict__.get("_by_number")
        if cached is None:
            cached = {int(item["number"]): item for item in self.issues}
            self.__dict__["_by_number"] = cached
        return cached

    def _comment_index(self) -> dict[int, list[Json]]:
        cached = self.__dict__.get("_by_issue")
        if cached is None:
            cached = {}
            for comment in self.comments:
                number = int(str(comment["issue_url"]).rsplit("/", 1)[1])
                cached.setdefault(number, []).append(comment)
            self.__dict__["_by_issue"] = cached
        return cached

    def repo_object(self, api_root: str, html_root: str = "https://github.com") -> Json:
        """The `GET /repos/{owner}/{repo}` answer."""
        open_items = sum(1 for item in self.issues if item.get("state") == "open")
        return {
            "id": self.repo_id,
            "node_id": f"R_fake{self.repo_id}",
            "name": self.name,
            "full_name": self.full_name,
            "private": False,
            "owner": {"login": self.owner, "id": self.repo_id * 7 + 1, "type": "Organization"},
            "html_url": f"{html_root}/{self.full_name}",
            "url": f"{api_root}/repos/{self.full_name}",
            "issues_url": f"{api_root}/repos/{self.full_name}/issues{{/number}}",
            "has_issues": True,
            "open_issues_count": open_items,
            "created_at": self.created_at,
            "updated_at": max((i["updated_at"] for i in self.issues), default=self.created_at),
            "default_branch": "main",
        }


@dataclass
class Corpus:
    """Every repository a fake GitHub serves, by full name (case as created)."""

    repos: dict[str, RepoData] = field(default_factory=dict)

    def add(self, repo: RepoData) -> RepoData:
        self.repos[repo.full_name] = repo
        return repo

    def find(self, full_name: str) -> RepoData | None:
        """Case-insensitive lookup, like GitHub's URLs."""
        wanted = full_name.lower()
        return next((r for n, r in self.repos.items() if n.lower() == wanted), None)

    def by_id(self, repo_id: int) -> RepoData | None:
        return next((r for r in self.repos.values() if r.repo_id == repo_id), None)

    def renamed(self, old_full_name: str) -> RepoData | None:
        wanted = old_full_name.lower()
        return next(
            (r for r in self.repos.values() if wanted in (o.lower() for o in r.renamed_from)), None
        )

    def marks_naming(self, full_name: str, number: int) -> list[tuple[RepoData, Json]]:
        """The (un)marked_as_duplicate events of other issues whose canonical is
        `full_name#number` (GitHub shows them on the canonical's timeline too), each with the
        repository it belongs to and its issue number under `_number`."""
        versions = tuple((n, r.version, len(r.event_canonical)) for n, r in self.repos.items())
        index = self.__dict__.get("_marks")
        if index is None or index[0] != versions:
            by_target: dict[tuple[str, int], list[tuple[RepoData, Json]]] = {}
            for repo in self.repos.values():
                for source_number, events in repo.timeline.items():
                    for event in events:
                        target = repo.event_canonical.get(str(event.get("node_id")))
                        if target is None:
                            continue
                        key = (target[0].lower(), int(target[1]))
                        if key != (repo.full_name.lower(), source_number):
                            by_target.setdefault(key, []).append(
                                (repo, {**event, "_number": source_number})
                            )
            index = (versions, by_target)
            self.__dict__["_marks"] = index
        return index[1].get((full_name.lower(), int(number)), [])

    def total_items(self) -> int:
        return sum(len(r.issues) for r in self.repos.values())

    def total_comments(self) -> int:
        return sum(len(r.comments) for r in self.repos.values())

    def lower_bound_requests(self, per_page: int = 100) -> int:
        """ceil(items/per_page) + ceil(comments/per_page) per repository: the best a crawler can
        do."""
        return sum(
            math.ceil(len(r.issues) / per_page) + math.ceil(len(r.comments) / per_page)
            for r in self.repos.values()
        )

    def touch(
        self, full_name: str, number: int, *, body: str | None = None, when: str | None = None
    ) -> Json:
        """Edit an issue (optionally its body) and bump its `updated_at`, as GitHub does."""
        repo = self.find(full_name)
        item = repo.issue(number) if repo else None
        if item is None:
            raise KeyError(f"{full_name}#{number} is not in the corpus")
        if body is not None:
            item["body"] = body
        item["updated_at"] = when or iso_now()
        repo.reindex()  # type: ignore[union-attr]
        return item


def iso_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
