"""The store's schema: its tables, the columns added since stores were first written, and
opening a database (creating what is missing, adding what a newer issues-sts added)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path

from issues_sts.errors import DAMAGED_STORE_HINT, StoreError, os_errors

DB_NAME = "crawl.sqlite"
# The effective configuration of the last crawl into this store (token left out): its
# repositories are what the crawl was asked to fetch, so a build can tell which never started.
CRAWL_CONFIG = "crawl-config.json"
RENAMED = "renamed"  # the status of a repository row that only records an old name
# 2: `raw` columns hold `pack_raw` blobs (compressed, texts kept once in their columns).
# Version-1 stores hold JSON text there; readers accept both, so they keep working as they are.
SCHEMA_VERSION = 2

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS repos(
    repo TEXT PRIMARY KEY,          -- owner/name as requested
    repo_id INTEGER,                -- GitHub's numeric id (stable across renames)
    current_name TEXT,              -- owner/name GitHub reports now (renames, transfers)
    status TEXT NOT NULL DEFAULT 'pending',   -- pending | ok | missing | ...
    last_sync TEXT                  -- when the last complete sync finished (UTC ISO)
);
CREATE TABLE IF NOT EXISTS issues(
    repo TEXT NOT NULL, number INTEGER NOT NULL,
    id INTEGER, node_id TEXT,
    is_pull_request INTEGER NOT NULL DEFAULT 0,
    state TEXT, state_reason TEXT,
    title TEXT, body TEXT,
    user_login TEXT, author_association TEXT,
    labels TEXT NOT NULL DEFAULT '[]',        -- JSON list of label names
    comments INTEGER NOT NULL DEFAULT 0,
    created_at TEXT, updated_at TEXT, closed_at TEXT, closed_by TEXT,
    html_url TEXT,
    tombstone TEXT,                 -- NULL, 'deleted' (404) or 'gone' (410)
    raw BLOB NOT NULL DEFAULT '{}', -- the REST object as GitHub sent it (pack_raw)
    PRIMARY KEY(repo, number)
);
CREATE TABLE IF NOT EXISTS comments(
    id INTEGER PRIMARY KEY,
    repo TEXT NOT NULL, number INTEGER NOT NULL,
    user_login TEXT, author_association TEXT, body TEXT,
    created_at TEXT, updated_at TEXT, html_url TEXT,
    raw BLOB NOT NULL DEFAULT '{}'    -- pack_raw
);
CREATE INDEX IF NOT EXISTS comments_by_issue ON comments(repo, number);
CREATE TABLE IF NOT EXISTS events(
    repo TEXT NOT NULL, number INTEGER NOT NULL,
    event_key TEXT NOT NULL,        -- REST event id or GraphQL node id
    event TEXT NOT NULL,            -- marked_as_duplicate | unmarked_as_duplicate | ...
    actor TEXT, created_at TEXT,
    canonical_repo TEXT, canonical_number INTEGER,  -- only GraphQL names the canonical
    source TEXT NOT NULL,           -- rest | graphql
    raw BLOB NOT NULL DEFAULT '{}',  -- pack_raw (or JSON text)
    PRIMARY KEY(repo, number, event_key)
);
CREATE TABLE IF NOT EXISTS gaps(    -- threads the crawl could not store whole (it says so)
    repo TEXT NOT NULL, number INTEGER NOT NULL,
    expected INTEGER,               -- comments GitHub counted for the thread when it was asked
    got INTEGER,                    -- comments stored from that answer
    reason TEXT,                    -- why: e.g. "comments without an id"
    updated_at TEXT,
    PRIMARY KEY(repo, number)
);
CREATE TABLE IF NOT EXISTS redirects(  -- issues GitHub answered with 301 (transferred)
    repo TEXT NOT NULL, number INTEGER NOT NULL,
    to_repo TEXT NOT NULL, to_number INTEGER NOT NULL,
    PRIMARY KEY(repo, number)
);
CREATE TABLE IF NOT EXISTS checkpoints(
    repo TEXT NOT NULL, resource TEXT NOT NULL,   -- e.g. issues, comments, timeline:123
    next_url TEXT,                  -- Link rel=next still to fetch (NULL: not started / done)
    since TEXT,                     -- watermark: everything updated before it is stored
    pass_since TEXT,                -- the `since` of the pass in progress
    pass_high TEXT,                 -- highest updated_at seen in the pass in progress
    etag TEXT,                      -- ETag of the first page, for If-None-Match
    done INTEGER NOT NULL DEFAULT 0,
    updated_at TEXT,
    PRIMARY KEY(repo, resource)
);
"""

# Columns added to `events` after stores were first written (ALTER TABLE on open): what the
# close and label history say, and which issue a MarkedAsDuplicateEvent is about (it also
# shows on the canonical's timeline).
EVENT_EXTRA_COLUMNS = (
    ("actor_type", "TEXT"),  # User | Bot (GraphQL __typename; REST actor.type)
    ("label", "TEXT"),  # labeled / unlabeled: the label's name
    ("state_reason", "TEXT"),  # closed / reopened: lower-case, as REST spells it
    ("duplicate_repo", "TEXT"),  # (un)marked_as_duplicate: the issue marked
    ("duplicate_number", "INTEGER"),
)


# Columns added to `repos`: the mode of the crawl that stored the repository's threads
# (`graphql` with a token, `rest` without): what a crawl stores depends on it, so a crawl in the
# other mode converts the store first (`Store.switch_mode`).
REPO_EXTRA_COLUMNS = (("mode", "TEXT"),)


EVENT_COLUMNS = (
    "repo",
    "number",
    "event_key",
    "event",
    "actor",
    "created_at",
    "canonical_repo",
    "canonical_number",
    "source",
    "raw",
    *(name for name, _ in EVENT_EXTRA_COLUMNS),
)
EVENT_UPSERT = (
    f"INSERT INTO events({', '.join(EVENT_COLUMNS)}) "
    f"VALUES({', '.join('?' * len(EVENT_COLUMNS))}) "
    "ON CONFLICT(repo, number, event_key) DO UPDATE SET event=excluded.event, "
    "actor=excluded.actor, created_at=excluded.created_at, "
    "actor_type=COALESCE(excluded.actor_type, events.actor_type), "
    "label=COALESCE(excluded.label, events.label), "
    "state_reason=COALESCE(excluded.state_reason, events.state_reason), "
    "duplicate_repo=COALESCE(excluded.duplicate_repo, events.duplicate_repo), "
    "duplicate_number=COALESCE(excluded.duplicate_number, events.duplicate_number), "
    "canonical_repo=COALESCE(excluded.canonical_repo, events.canonical_repo), "
    "canonical_number=COALESCE(excluded.canonical_number, events.canonical_number), "
    "source=CASE WHEN excluded.canonical_repo IS NULL AND events.canonical_repo IS NOT NULL "
    "THEN events.source ELSE excluded.source END, "
    "raw=CASE WHEN excluded.canonical_repo IS NULL AND events.canonical_repo IS NOT NULL "
    "THEN events.raw ELSE excluded.raw END"
)


def utcnow() -> str:
    """Now, as the store's timestamps are written (UTC, whole seconds)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def upsert_sql(table: str, columns: Iterable[str], key: tuple[str, ...]) -> str:
    cols = list(columns)
    updates = ", ".join(f"{c}=excluded.{c}" for c in cols if c not in key)
    return (
        f"INSERT INTO {table}({', '.join(cols)}) VALUES({', '.join('?' * len(cols))}) "
        f"ON CONFLICT({', '.join(key)}) DO UPDATE SET {updates}"
    )


def add_missing_columns(
    conn: sqlite3.Connection, table: str, columns: tuple[tuple[str, str], ...]
) -> None:
    """Columns a newer issues-sts added: a store written before gets them, empty (NULL)."""
    have = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
    for name, kind in columns:
        if name not in have:
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")


def refuse_foreign(conn: sqlite3.Connection, root: Path, tables: set[str], *, create: bool) -> None:
    """Before anything is written: a database of something else is never turned into a store
    (the schema added, the file switched to WAL), and an empty file is a store only to a crawl,
    which fills it."""
    if tables and "issues" not in tables:
        conn.close()
        raise StoreError(
            f"{root / DB_NAME} is an SQLite database but not a crawl store (it has no issues "
            "table); it was left as it is",
            hint="point --store at a folder `issues-sts crawl` wrote, or at a new folder to crawl",
        )
    if not tables and not create:
        conn.close()
        raise StoreError(
            f"the crawl store {root} is empty: {DB_NAME} holds no tables",
            hint=f"run `issues-sts crawl --store {root}` first",
        )


def connect(root: Path, *, create: bool) -> sqlite3.Connection:
    """The store's database at `root`, its schema brought up to date; a missing (without
    `create`), unopenable or corrupt one is a StoreError."""
    db = root / DB_NAME
    if root.exists() and not root.is_dir():
        raise StoreError(
            f"--store {root} is a file, not a crawl store folder",
            hint="point --store at the folder `issues-sts crawl` writes (default data/store)",
        )
    if not db.exists() and not create:
        raise StoreError(f"no crawl store at {root}")
    with os_errors(
        StoreError,
        f"the crawl store {root} cannot be created",
        hint="point --store at a folder that can be written",
    ):
        root.mkdir(parents=True, exist_ok=True)
    try:
        conn = sqlite3.connect(db, timeout=30, isolation_level=None)
        # Reading the schema catches a file that is not SQLite or has a broken header in
        # O(1); PRAGMA quick_check is O(size) (over a minute on a 5 GB store), so damage
        # further in surfaces as a StoreError when a page is read (see frames.py).
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        refuse_foreign(conn, root, tables, create=create)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.executescript(SCHEMA)
        add_missing_columns(conn, "events", EVENT_EXTRA_COLUMNS)
        add_missing_columns(conn, "repos", REPO_EXTRA_COLUMNS)
        conn.execute(
            "CREATE INDEX IF NOT EXISTS events_by_duplicate ON events(duplicate_number) "
            "WHERE duplicate_number IS NOT NULL"
        )
        conn.execute(
            "INSERT OR IGNORE INTO meta(key, value) VALUES('schema_version', ?)",
            (str(SCHEMA_VERSION),),
        )
    except sqlite3.OperationalError as exc:  # read-only, locked, unopenable
        raise StoreError(
            f"the crawl store {db} cannot be opened for writing ({exc})",
            hint="check the folder's permissions and free space, or point --store elsewhere",
        ) from None
    except sqlite3.DatabaseError as exc:
        raise StoreError(
            f"the crawl store {db} is corrupt or not a store ({exc})",
            hint=DAMAGED_STORE_HINT,
        ) from None
    return conn
