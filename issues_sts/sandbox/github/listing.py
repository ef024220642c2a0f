"""List endpoints as GitHub answers them: filters, order, pages and the `Link` header."""

from __future__ import annotations

import base64
import math
from dataclasses import dataclass
from urllib.parse import urlencode

from issues_sts.sandbox.corpus import Json


class InvalidQuery(ValueError):
    """A query parameter GitHub would answer 422 for."""


@dataclass(frozen=True)
class Page:
    items: list[Json]
    page: int
    last_page: int  # after caps; 0 when the list is empty
    link: str | None


def query_value(query: list[tuple[str, str]], name: str, default: str | None = None) -> str | None:
    for key, value in query:
        if key == name:
            return value
    return default


def page_params(query: list[tuple[str, str]], default: int, maximum: int) -> tuple[int, int]:
    """(page, per_page) the way GitHub reads them: bad numbers fall back, per_page is clamped."""
    try:
        per_page = int(query_value(query, "per_page") or default)
    except ValueError:
        per_page = default
    try:
        page = int(query_value(query, "page") or 1)
    except ValueError:
        page = 1
    return max(page, 1), min(max(per_page, 1), maximum)


def choose(query: list[tuple[str, str]], name: str, allowed: tuple[str, ...], default: str) -> str:
    value = query_value(query, name, default) or default
    if value not in allowed:
        raise InvalidQuery(f"{name}={value!r} is not one of {', '.join(allowed)}")
    return value


def since_filter(items: list[Json], query: list[tuple[str, str]]) -> list[Json]:
    since = query_value(query, "since")
    if not since:
        return items
    stamp = normalise_timestamp(since)
    return [item for item in items if item["updated_at"] >= stamp]


def normalise_timestamp(value: str) -> str:
    """ISO 8601 -> GitHub's `YYYY-MM-DDTHH:MM:SSZ`, so string comparison orders correctly."""
    from datetime import datetime, timezone

    text = value.strip().replace("Z", "+00:00")
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError as exc:
        raise InvalidQuery(f"since={value!r} is not an ISO 8601 timestamp") from exc
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# What an issue-list page leaves out of each issue that `GET /issues/{n}` gives: GitHub lists
# issues without `closed_by` (who closed one is in its timeline, or in the single issue).
SINGLE_ISSUE_ONLY = ("closed_by",)


def list_item(item: Json) -> Json:
    """An issue as a list page shows it."""
    return {k: v for k, v in item.items() if k not in SINGLE_ISSUE_ONLY}


def select_issues(items: list[Json], query: list[tuple[str, str]]) -> list[Json]:
    """GET /repos/{o}/{r}/issues: state (default open), labels, since, sort, direction."""
    state = choose(query, "state", ("open", "closed", "all"), "open")
    sort = choose(query, "sort", ("created", "updated", "comments"), "created")
    direction = choose(query, "direction", ("asc", "desc"), "desc")
    chosen = [i for i in items if state == "all" or i.get("state") == state]
    labels = query_value(query, "labels")
    if labels:
        wanted = {name.strip() for name in labels.split(",") if name.strip()}
        chosen = [i for i in chosen if wanted <= {lab["name"] for lab in i.get("labels", [])}]
    chosen = since_filter(chosen, query)
    key = {"created": "created_at", "updated": "updated_at", "comments": "comments"}[sort]
    chosen = sorted(chosen, key=lambda i: (i[key], i["number"]), reverse=direction == "desc")
    return [list_item(i) for i in chosen]


def select_comments(
    items: list[Json], query: list[tuple[str, str]], *, repo_wide: bool
) -> list[Json]:
    """Comment listings: oldest first by id unless `sort` asks otherwise (repo-wide only)."""
    chosen = since_filter(items, query)
    if not repo_wide:
        return sorted(chosen, key=lambda c: c["id"])
    sort = query_value(query, "sort")
    if sort is None:
        return sorted(chosen, key=lambda c: c["id"])
    sort = choose(query, "sort", ("created", "updated"), "created")
    direction = choose(query, "direction", ("asc", "desc"), "desc")
    key = "created_at" if sort == "created" else "updated_at"
    return sorted(chosen, key=lambda c: (c[key], c["id"]), reverse=direction == "desc")


def paginate(
    items: list[Json],
    query: list[tuple[str, str]],
    link_base: str,
    *,
    per_page_default: int,
    per_page_max: int,
    page_cap: int | None,
    item_cap: int | None = None,
    cursor: bool = False,
) -> Page:
    """Cut one page and build GitHub's Link header (prev, next, last, first).

    Raises `PageCapExceeded` for a page beyond `page_cap` or beyond the item cap. With
    `cursor` (or an `after=` in the query) pages are addressed by opaque `after` cursors and
    the Link header carries only rel=next, as on GitHub's cursor-paginated endpoints.
    """
    page, per_page = page_params(query, per_page_default, per_page_max)
    if cursor or query_value(query, "after") is not None:
        return _cursor_page(items, query, link_base, per_page, item_cap)
    visible = len(items) if item_cap is None else min(len(items), item_cap)
    last = math.ceil(visible / per_page)
    if page_cap is not None:
        last = min(last, page_cap)
    if (page_cap is not None and page > page_cap) or (
        item_cap is not None and page > max(last, 1) and len(items) > item_cap
    ):
        raise PageCapExceeded(page)
    start = (page - 1) * per_page
    end = min(start + per_page, visible)
    chosen = items[start:end] if page <= last else []
    return Page(chosen, page, last, link_header(link_base, query, page, last))


class PageCapExceeded(Exception):
    """Deep pagination GitHub refuses with 422."""


def link_header(base: str, query: list[tuple[str, str]], page: int, last: int) -> str | None:
    kept = [(k, v) for k, v in query if k != "page"]

    def url(n: int) -> str:
        return f"{base}?{urlencode([*kept, ('page', str(n))])}"

    parts = []
    if page > 1:
        parts.append(f'<{url(min(page - 1, max(last, 1)))}>; rel="prev"')
    if page < last:
        parts.append(f'<{url(page + 1)}>; rel="next"')
        parts.append(f'<{url(last)}>; rel="last"')
    if page > 1:
        parts.append(f'<{url(1)}>; rel="first"')
    return ", ".join(parts) or None


def encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"Y3Vyc29y:{offset}".encode()).decode().rstrip("=")


def decode_cursor(value: str) -> int:
    try:
        padded = value + "=" * (-len(value) % 4)
        return int(base64.urlsafe_b64decode(padded).decode().rsplit(":", 1)[1])
    except (ValueError, IndexError) as exc:
        raise InvalidQuery(f"after={value!r} is not a cursor this server issued") from exc


def _cursor_page(
    items: list[Json], query: list[tuple[str, str]], base: str, per_page: int, item_cap: int | None
) -> Page:
    after = query_value(query, "after")
    start = decode_cursor(after) if after else 0
    visible = len(items) if item_cap is None else min(len(items), item_cap)
    end = min(start + per_page, visible)
    link = None
    if end < visible:
        kept = [(k, v) for k, v in query if k not in ("page", "after")]
        link = f'<{base}?{urlencode([*kept, ("after", encode_cursor(end))])}>; rel="next"'
    return Page(items[start:end], 0, 0, link)
