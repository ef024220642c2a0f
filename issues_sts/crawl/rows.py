"""GitHub's REST issue and comment objects flattened into the store's rows: which fields the
crawl keeps in columns, and how (a label list as JSON names, a user as its login, a comment's
issue number from its `issue_url`); the object itself goes into `raw`, packed. Event rows are
flattened where they are read (`graphql.event_row`, `graphql.rest_event_row`)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from issues_sts.store import Row, pack_raw


def _login(obj: dict[str, Any] | None) -> str | None:
    return obj.get("login") if isinstance(obj, dict) else None


def issue_row(repo: str, raw: dict[str, Any]) -> Row:
    """Flatten a REST issue object into the `issues` table's columns."""
    row: dict[str, Any] = {
        "repo": repo,
        "number": raw["number"],
        "id": raw.get("id"),
        "node_id": raw.get("node_id"),
        "is_pull_request": int("pull_request" in raw and raw["pull_request"] is not None),
        "state": raw.get("state"),
        "state_reason": raw.get("state_reason"),
        "title": raw.get("title") or "",
        "body": raw.get("body") or "",
        "user_login": _login(raw.get("user")),
        "author_association": raw.get("author_association"),
        "labels": json.dumps(
            [lab["name"] if isinstance(lab, dict) else str(lab) for lab in raw.get("labels") or []]
        ),
        "comments": raw.get("comments") or 0,
        "created_at": raw.get("created_at"),
        "updated_at": raw.get("updated_at"),
        "closed_at": raw.get("closed_at"),
        "closed_by": _login(raw.get("closed_by")),
        "html_url": raw.get("html_url"),
    }
    row["raw"] = pack_raw(raw, {"title": row["title"], "body": row["body"]})
    return row


def comment_row(repo: str, raw: dict[str, Any]) -> Row:
    """Flatten a REST issue comment; its issue number comes from `issue_url`."""
    number = int(str(raw["issue_url"]).rstrip("/").rsplit("/", 1)[1])
    row: dict[str, Any] = {
        "id": raw["id"],
        "repo": repo,
        "number": number,
        "user_login": _login(raw.get("user")),
        "author_association": raw.get("author_association"),
        "body": raw.get("body") or "",
        "created_at": raw.get("created_at"),
        "updated_at": raw.get("updated_at"),
        "html_url": raw.get("html_url"),
    }
    row["raw"] = pack_raw(raw, {"body": row["body"]})
    return row


def issue_rows(repo: str, raws: Iterable[dict[str, Any]]) -> list[Row]:
    return [issue_row(repo, raw) for raw in raws]


def comment_rows(repo: str, raws: Iterable[dict[str, Any]]) -> list[Row]:
    return [comment_row(repo, raw) for raw in raws]
