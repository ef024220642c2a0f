"""Checkpoints: where each resource of a repository's crawl stands, so a killed crawl resumes
exactly after the last page it committed (a page and its checkpoint commit together)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from issues_sts.store.schema import upsert_sql, utcnow


@dataclass(frozen=True)
class Checkpoint:
    repo: str
    resource: str
    next_url: str | None = None
    since: str | None = None
    pass_since: str | None = None
    pass_high: str | None = None
    etag: str | None = None
    done: bool = False


def put_checkpoint(conn: sqlite3.Connection, cp: Checkpoint) -> None:
    row = {
        "repo": cp.repo,
        "resource": cp.resource,
        "next_url": cp.next_url,
        "since": cp.since,
        "pass_since": cp.pass_since,
        "pass_high": cp.pass_high,
        "etag": cp.etag,
        "done": int(cp.done),
        "updated_at": utcnow(),
    }
    conn.execute(upsert_sql("checkpoints", row, ("repo", "resource")), tuple(row.values()))


def read_checkpoint(conn: sqlite3.Connection, repo: str, resource: str) -> Checkpoint:
    """The checkpoint of `resource`, or a fresh one (nothing fetched yet)."""
    row = conn.execute(
        "SELECT next_url, since, pass_since, pass_high, etag, done FROM checkpoints WHERE "
        "repo=? AND resource=?",
        (repo, resource),
    ).fetchone()
    if row is None:
        return Checkpoint(repo, resource)
    return Checkpoint(repo, resource, row[0], row[1], row[2], row[3], row[4], bool(row[5]))


def finished_watermarks(conn: sqlite3.Connection, repo: str, prefix: str) -> dict[str, str | None]:
    """resource -> `since` of the finished checkpoints whose resource starts with `prefix`."""
    rows = conn.execute(
        "SELECT resource, since FROM checkpoints WHERE repo=? AND done=1 AND resource LIKE ?",
        (repo, prefix + "%"),
    )
    return dict(rows.fetchall())
