"""Every crawled row of a store, whole and in a canonical order: what makes two stores equal.

A store should hold what a fresh crawl of the same GitHub would hold, whatever its history
(re-crawls, resumes, a token given half-way). This reads the tables that hold crawled data
row by row, every column, with each `raw` object unpacked to sorted JSON, so two stores can be
compared as values; bookkeeping (checkpoints, repository statuses, when a gap was noted) is
left out and named in `BOOKKEEPING`.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from issues_sts.store.codec import unpack_raw

# The tables that hold what GitHub answered, and the text columns kept out of their `raw`.
CRAWLED_TABLES: dict[str, tuple[str, ...]] = {
    "issues": ("title", "body"),
    "comments": ("body",),
    "events": (),
    "gaps": (),
    "redirects": (),
}
# What is left out, and why: when the crawl did something, not what GitHub holds.
BOOKKEEPING: dict[str, tuple[str, ...]] = {
    "gaps": ("updated_at",),  # when the gap was noted
    "checkpoints": ("*",),  # where each resource's crawl stands
    "repos": ("*",),  # sync status and time (the crawl's summary)
    "meta": ("*",),  # schema version
}


def crawled_rows(conn: sqlite3.Connection, table: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """(columns, rows) of `table`, bookkeeping columns left out, sorted; `raw` as JSON text."""
    if table not in CRAWLED_TABLES:
        raise ValueError(f"{table} holds no crawled data (one of {sorted(CRAWLED_TABLES)})")
    skip = set(BOOKKEEPING.get(table, ()))
    columns = [row[1] for row in conn.execute(f"PRAGMA table_info({table})") if row[1] not in skip]
    texts = CRAWLED_TABLES[table]
    rows = []
    for found in conn.execute(f"SELECT {', '.join(columns)} FROM {table}"):
        values = dict(zip(columns, found, strict=True))
        if "raw" in values:
            obj = unpack_raw(values["raw"], {t: values[t] or "" for t in texts})
            values["raw"] = json.dumps(obj, sort_keys=True, separators=(",", ":"))
        rows.append(tuple(values[c] for c in columns))
    rows.sort(key=lambda r: tuple((v is None, str(v)) for v in r))
    return columns, rows
