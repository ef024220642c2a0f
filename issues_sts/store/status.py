"""The status query: per repository, what the crawl stored and what it knows it lacks (what
`issues-sts status --json` prints, a stable interface)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class DuplicateScreen:
    """What makes a live issue a duplicate candidate besides a `duplicate` state reason: its
    labels (the stored JSON list of names) or one of its comments' bodies. The caller passes
    the link stage's vocabulary; the store knows no vocabulary of its own."""

    labels: Callable[[str], bool]
    wording: Callable[[str | None], bool]


# the live issues closed as duplicates or that the screen finds, counted in SQL
_CANDIDATES = """(SELECT COUNT(*) FROM issues i WHERE i.repo=r.repo AND i.tombstone IS NULL
     AND i.is_pull_request=0
     AND (lower(i.state_reason)='duplicate' OR duplicate_labels(i.labels)
          OR EXISTS (SELECT 1 FROM comments c WHERE c.repo=i.repo AND c.number=i.number
                     AND duplicate_wording(c.body))))"""
_COUNTS = """
SELECT r.repo, r.status, r.current_name, r.last_sync,
  (SELECT COUNT(*) FROM issues i WHERE i.repo=r.repo AND i.tombstone IS NULL
     AND i.is_pull_request=0),
  (SELECT COUNT(*) FROM issues i WHERE i.repo=r.repo AND i.tombstone IS NULL
     AND i.is_pull_request=1),
  (SELECT COUNT(*) FROM comments c WHERE c.repo=r.repo),
  (SELECT COUNT(*) FROM events e WHERE e.repo=r.repo),
  (SELECT COUNT(*) FROM issues i WHERE i.repo=r.repo AND i.tombstone IS NOT NULL),
  {candidates},
  (SELECT COALESCE(SUM(i.comments), 0) FROM issues i WHERE i.repo=r.repo
     AND i.tombstone IS NULL AND i.is_pull_request=0),
  (SELECT COUNT(*) FROM issues i WHERE i.repo=r.repo AND i.tombstone IS NULL
     AND i.is_pull_request=0 AND i.comments >
       (SELECT COUNT(*) FROM comments c WHERE c.repo=i.repo AND c.number=i.number)),
  (SELECT COALESCE(SUM(i.comments - (SELECT COUNT(*) FROM comments c
                                     WHERE c.repo=i.repo AND c.number=i.number)), 0)
     FROM issues i WHERE i.repo=r.repo AND i.tombstone IS NULL AND i.is_pull_request=0
       AND i.comments >
         (SELECT COUNT(*) FROM comments c WHERE c.repo=i.repo AND c.number=i.number)),
  (SELECT COUNT(*) FROM gaps g WHERE g.repo=r.repo),
  (SELECT COALESCE(SUM(MAX(g.expected - g.got, 0)), 0) FROM gaps g WHERE g.repo=r.repo)
FROM repos r ORDER BY r.repo
"""
_KEYS = (
    "repo",
    "status",
    "current_name",
    "last_sync",
    "issues",
    "pull_requests",
    "comments",
    "events",
    "tombstones",
    "duplicate_candidates",
    # the completeness invariant: each issue's stored comments against its `comments`
    # count (issues short of it, and by how many), and threads the crawl knows it lost
    "comments_expected",
    "issues_short",
    "comments_short",
    "lost_threads",
    "lost_comments",
)


def repo_counts(conn: sqlite3.Connection, screen: DuplicateScreen | None) -> list[dict[str, Any]]:
    """Per repository, `_KEYS`; `duplicate_candidates` is None without a `screen` (then no
    comment body is read)."""
    if screen is None:
        candidates = "NULL"
    else:
        conn.create_function(
            "duplicate_labels", 1, lambda v: int(screen.labels(v)), deterministic=True
        )
        conn.create_function(
            "duplicate_wording", 1, lambda v: int(screen.wording(v)), deterministic=True
        )
        candidates = _CANDIDATES
    sql = _COUNTS.format(candidates=candidates)
    return [dict(zip(_KEYS, row, strict=True)) for row in conn.execute(sql)]


def not_started(asked: tuple[str, ...], rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows for the repositories a crawl was asked for but never started (it was stopped
    first): `status` lists every repository asked for, not only those under way."""
    known = {str(row["repo"]).lower() for row in rows}
    empty = dict.fromkeys(_KEYS, 0) | {"current_name": None, "last_sync": None}
    return [
        empty | {"repo": repo, "status": "not started"}
        for repo in asked
        if repo.lower() not in known
    ]
