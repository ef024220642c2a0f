"""The crawl store: one SQLite database (WAL mode) per crawl directory.

The crawler is the only writer; the link and dataset stages read through the
`*_frame()` methods, which return polars DataFrames with stable column names.
Every page the crawler fetches is written together with its checkpoint in one
transaction (`write_page`), so a crawl killed at any instant resumes exactly after
the last committed page: nothing lost, nothing stored twice (rows are upserts keyed
by GitHub's ids).
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import polars as pl

from issues_sts.errors import StoreError, os_errors

try:  # the fast reader (a dependency); without it every read goes through sqlite3
    import adbc_driver_sqlite.dbapi as _adbc
except ImportError:  # pragma: no cover - an install without the driver still works
    _adbc = None  # type: ignore[assignment]
_ADBC_BATCH_ROWS = "adbc.sqlite.query.batch_rows"
_ADBC_ROWS = 1 << 20

DB_NAME = "crawl.sqlite"
# The effective configuration of the last crawl into this store (token left out): its
# repositories are what the crawl was asked to fetch, so a build can tell which never started.
CRAWL_CONFIG = "crawl-config.json"
# 2: `raw` columns hold `pack_raw` blobs (compressed, texts kept once in their columns).
# Version-1 stores hold JSON text there; readers accept both, so they keep working as they are.
SCHEMA_VERSION = 2

_SCHEMA = """
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
_EVENT_EXTRA_COLUMNS = (
    ("actor_type", "TEXT"),  # User | Bot (GraphQL __typename; REST actor.type)
    ("label", "TEXT"),  # labeled / unlabeled: the label's name
    ("state_reason", "TEXT"),  # closed / reopened: lower-case, as REST spells it
    ("duplicate_repo", "TEXT"),  # (un)marked_as_duplicate: the issue marked
    ("duplicate_number", "INTEGER"),
)


def utcnow() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


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


# -- raw objects -------------------------------------------------------------------------------
# A REST object is mostly boilerplate (a dozen URLs per user, reactions, label URLs) around the
# texts, which the store already keeps in columns. `pack_raw` stores it once, compactly: the
# text fields that equal their column are left out (put back by `unpack_raw`), the rest is
# zlib-compressed with a preset dictionary of GitHub's JSON vocabulary, which is what makes
# one small object compress well. The first byte names the codec; NEVER change _ZDICT_V1
# (stored blobs need it to decompress): add a new codec byte instead.
_CODEC_V1 = 1
_ZDICT_V1 = (
    b'"user_view_type":"public"}"type":"User","url":"https://api.github.com/users/"site_admin":false,'
    b'"starred_url":"https://api.github.com/users/{/owner}{/repo}","subscriptions_url":"https://api.github.com/users/'
    b'/subscriptions","repos_url":"https://api.github.com/users//repos","received_events_url":"https://api.github.com/'
    b'users//received_events","organizations_url":"https://api.github.com/users//orgs","node_id":"MDQ6VXNlcj",'
    b'"login":"","id":,"html_url":"https://github.com/","gravatar_id":"","gists_url":"https://api.github.com/users/'
    b'/gists{/gist_id}","following_url":"https://api.github.com/users//following{/other_user}","followers_url":'
    b'"https://api.github.com/users//followers","events_url":"https://api.github.com/users//events{/privacy}",'
    b'"avatar_url":"https://avatars.githubusercontent.com/u/?v=4","user":{"updated_at":"20","url":'
    b'"https://api.github.com/repos/issues/comments/","reactions":{"+1":0,"-1":0,"confused":0,"eyes":0,"heart":0,'
    b'"hooray":0,"laugh":0,"rocket":0,"total_count":0,"url":"https://api.github.com/repos//issues//reactions"},'
    b'"performed_via_github_app":null,"node_id":"MDEyOklzc3VlQ29tbWVudD","issue_url":"https://api.github.com/repos/'
    b'/issues/","id":,"html_url":"https://github.com//issues/#issuecomment-","created_at":"20","author_association":'
    b'"CONTRIBUTOR","MEMBER","COLLABORATOR","OWNER","NONE",{"url":"https://api.github.com/repos//issues/",'
    b'"timeline_url":"https://api.github.com/repos//issues//timeline","sub_issues_summary":{"completed":0,'
    b'"percent_completed":0,"total":0},"state_reason":null,"completed","not_planned","duplicate","state":"closed",'
    b'"open","repository_url":"https://api.github.com/repos/","pull_request":{"diff_url":"https://github.com//pull/'
    b'.diff","html_url":"https://github.com//pull/","merged_at":null,"patch_url":"https://github.com//pull/.patch",'
    b'"url":"https://api.github.com/repos//pulls/"},"number":,"node_id":"MDU6SXNzdWU","MDExOlB1bGxSZXF1ZXN0",'
    b'"milestone":null,"locked":false,"labels_url":"https://api.github.com/repos//issues//labels{/name}","labels":'
    b'[{"color":"","default":false,"description":null,"id":,"name":"","node_id":"MDU6TGFiZWw","url":'
    b'"https://api.github.com/repos//labels/"}],"events_url":"https://api.github.com/repos//issues//events",'
    b'"draft":false,"comments_url":"https://api.github.com/repos//issues//comments","comments":,"closed_by":'
    b'{"closed_at":null,"author_association":"NONE","assignees":[],"assignee":null,"active_lock_reason":null,'
    b'"issue_dependencies_summary":{"blocked_by":0,"blocking":0,"total_blocked_by":0,"total_blocking":0},'
    b'"type":"Bot","Organization","rust-lang/rust","kwDO","I_kwDO","PR_kwDO","IC_kwDO","LA_kwDO","U_kwDO"'
)
_TEXT_FIELDS = ("body", "title")  # kept in columns; left out of the packed object when equal


def pack_raw(obj: dict[str, Any], texts: dict[str, str]) -> bytes:
    """`obj` compressed, without the string fields whose value is in `texts` (their columns)."""
    slim = {
        k: v for k, v in obj.items() if not (k in texts and isinstance(v, str) and v == texts[k])
    }
    data = json.dumps(slim, sort_keys=True, separators=(",", ":")).encode()
    packer = zlib.compressobj(6, zdict=_ZDICT_V1)
    return bytes([_CODEC_V1]) + packer.compress(data) + packer.flush()


def unpack_raw(value: bytes | str, texts: dict[str, str]) -> dict[str, Any]:
    """The object `pack_raw` stored (or a version-1 store's JSON text), texts put back."""
    if isinstance(value, str):
        return dict(json.loads(value))
    if not value or value[0] != _CODEC_V1:
        raise StoreError(
            "a stored object has an unknown encoding",
            hint="this store was written by a newer issues-sts",
        )
    unpacker = zlib.decompressobj(zdict=_ZDICT_V1)
    obj = dict(json.loads(unpacker.decompress(value[1:]) + unpacker.flush()))
    for key in _TEXT_FIELDS:
        if key in texts and key not in obj:
            obj[key] = texts[key]
    return obj


def _login(obj: dict[str, Any] | None) -> str | None:
    return obj.get("login") if isinstance(obj, dict) else None


def issue_row(repo: str, raw: dict[str, Any]) -> dict[str, Any]:
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


def comment_row(repo: str, raw: dict[str, Any]) -> dict[str, Any]:
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


_EVENT_COLUMNS = (
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
    *(name for name, _ in _EVENT_EXTRA_COLUMNS),
)
_EVENT_UPSERT = (
    f"INSERT INTO events({', '.join(_EVENT_COLUMNS)}) "
    f"VALUES({', '.join('?' * len(_EVENT_COLUMNS))}) "
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


def _upsert_sql(table: str, columns: Iterable[str], key: tuple[str, ...]) -> str:
    cols = list(columns)
    updates = ", ".join(f"{c}=excluded.{c}" for c in cols if c not in key)
    return (
        f"INSERT INTO {table}({', '.join(cols)}) VALUES({', '.join('?' * len(cols))}) "
        f"ON CONFLICT({', '.join(key)}) DO UPDATE SET {updates}"
    )


def _where(
    repo: str | None, numbers: Iterable[int] | None, span: tuple[int, int] | None = None
) -> tuple[str, tuple[Any, ...]]:
    """A WHERE clause for one repository (and some of its numbers, or the numbers within
    `span`, both ends included); '' for the whole table."""
    if repo is None:
        return "", ()
    if span is not None:
        return "WHERE repo=? AND number BETWEEN ? AND ?", (repo, span[0], span[1])
    if numbers is None:
        return "WHERE repo=?", (repo,)
    wanted = sorted({int(n) for n in numbers})
    # numbers are ints we made, so inlining them is safe (and avoids SQLite's variable limit)
    return f"WHERE repo=? AND number IN ({','.join(map(str, wanted)) or 'NULL'})", (repo,)


# Issues per part when a stage streams the store: bounds memory whatever a repository's size.
PART_ISSUES = 20_000
Part = tuple[str, int, int]  # repo, first number, last number


def _add_missing_columns(
    conn: sqlite3.Connection, table: str, columns: tuple[tuple[str, str], ...]
) -> None:
    """Columns a newer issues-sts added: a store written before gets them, empty (NULL)."""
    have = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
    for name, kind in columns:
        if name not in have:
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")


@dataclass(frozen=True)
class Gap:
    """A thread the crawl could not store whole: GitHub counted `expected` comments and the
    crawl stored `got` (a comment without an id, an answer cut short)."""

    repo: str
    number: int
    expected: int
    got: int
    reason: str


class Store:
    """A crawl store directory holding `crawl.sqlite`. The connection is private: every SQL
    statement of the project is a typed method here, so the schema can change in one file."""

    def __init__(self, root: Path, conn: sqlite3.Connection) -> None:
        self.root = root
        self._conn = conn
        self._arrow_conn: Any = None  # the Arrow reader's own connection, opened on first use
        self._arrow_broken = _adbc is None

    # -- opening -------------------------------------------------------------------
    @classmethod
    def open(cls, root: Path | str, *, create: bool = False) -> Store:
        """Open (or with `create`, initialise) a store; a missing or corrupt one is a StoreError."""
        root = Path(root)
        db = root / DB_NAME
        if root.exists() and not root.is_dir():
            raise StoreError(
                f"--store {root} is a file, not a crawl store folder",
                hint="point --store at the folder `issues-sts crawl` writes (default data/store)",
            )
        if not db.exists() and not create:
            raise StoreError(f"no crawl store at {root}")
        with os_errors(StoreError, f"the crawl store {root} cannot be created"):
            root.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(db, timeout=30, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
            # Reading the schema catches a file that is not SQLite or has a broken header in
            # O(1); PRAGMA quick_check is O(size) (over a minute on a 5 GB store), so damage
            # further in surfaces as a StoreError when a page is read (see _frame).
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            conn.executescript(_SCHEMA)
            _add_missing_columns(conn, "events", _EVENT_EXTRA_COLUMNS)
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
                hint="move it away and crawl again; a crawl resumes from whatever is intact",
            ) from None
        return cls(root, conn)

    def close(self) -> None:
        if self._arrow_conn is not None:
            self._arrow_conn.close()
            self._arrow_conn = None
        self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic unit: everything inside commits together or not at all."""
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield self._conn
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    # -- copying (benchmarks on real threads at a larger size) --------------------------
    def copy_repository(self, source: Path, repo: str, as_repo: str, id_offset: int) -> int:
        """Copy `repo`'s issues, comments and events from the store at `source` in as
        `as_repo`: the same rows, their web URLs moved to the new name and every issue and
        comment id raised by `id_offset` (a comment's id is its key). Returns the issues
        copied. Done in SQLite, no row passes through Python."""
        self._conn.execute("ATTACH DATABASE ? AS src", (str(Path(source) / DB_NAME),))
        try:
            with self.transaction() as conn:
                for table in ("issues", "comments", "events"):
                    names = [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
                    moved: dict[str, tuple[str, tuple[Any, ...]]] = {
                        "repo": ("?", (as_repo,)),
                        "html_url": ("replace(html_url, ?, ?)", (f"/{repo}/", f"/{as_repo}/")),
                        "id": ("id + ?", (id_offset,)),
                    }
                    exprs = [moved[n][0] if n in moved else n for n in names]
                    params = [p for n in names if n in moved for p in moved[n][1]]
                    conn.execute(
                        f"INSERT INTO {table}({', '.join(names)}) SELECT {', '.join(exprs)} "
                        f"FROM src.{table} WHERE repo = ?",
                        (*params, repo),
                    )
                copied = conn.execute(
                    "SELECT COUNT(*) FROM issues WHERE repo = ?", (as_repo,)
                ).fetchone()[0]
        finally:
            self._conn.execute("DETACH DATABASE src")
        self.upsert_repo(as_repo, current_name=as_repo, status="ok")
        return int(copied)

    # -- writing (crawler) -----------------------------------------------------------
    def upsert_repo(self, repo: str, **fields: Any) -> None:
        row = {"repo": repo, **fields}
        self._conn.execute(
            _upsert_sql("repos", row, ("repo",))
            if fields
            else "INSERT OR IGNORE INTO repos(repo) VALUES(?)",
            tuple(row.values()),
        )

    def write_page(
        self,
        repo: str,
        *,
        issues: Iterable[dict[str, Any]] = (),
        comments: Iterable[dict[str, Any]] = (),
        events: Iterable[dict[str, Any]] = (),
        checkpoint: Checkpoint | None = None,
        checkpoints: Iterable[Checkpoint] = (),
        gaps: Iterable[Gap] = (),
        whole: Iterable[int] = (),
    ) -> None:
        """Store one fetched page and its checkpoint(s) atomically. Items are raw REST objects;
        events are already-flattened rows for the `events` table (a row without a canonical
        never erases one an earlier GraphQL answer stored). `gaps` records threads of `repo`
        this page could not store whole, `whole` the numbers whose threads it stored whole
        (their earlier gaps are closed)."""
        with self.transaction() as conn:
            self._insert_many(
                conn, "issues", [issue_row(repo, raw) for raw in issues], ("repo", "number")
            )
            self._insert_many(
                conn, "comments", [comment_row(repo, raw) for raw in comments], ("id",)
            )
            rows = list(events)
            if rows:
                conn.executemany(
                    _EVENT_UPSERT, [tuple(r.get(c) for c in _EVENT_COLUMNS) for r in rows]
                )
            closed = [(repo, int(n)) for n in whole]
            if closed:
                conn.executemany("DELETE FROM gaps WHERE repo=? AND number=?", closed)
            now = utcnow()
            conn.executemany(
                "INSERT OR REPLACE INTO gaps(repo, number, expected, got, reason, updated_at) "
                "VALUES(?,?,?,?,?,?)",
                [(g.repo, g.number, g.expected, g.got, g.reason, now) for g in gaps],
            )
            for cp in [*([checkpoint] if checkpoint is not None else []), *checkpoints]:
                self._put_checkpoint(conn, cp)

    @staticmethod
    def _insert_many(
        conn: sqlite3.Connection, table: str, rows: list[dict[str, Any]], key: tuple[str, ...]
    ) -> None:
        if rows:
            conn.executemany(_upsert_sql(table, rows[0], key), [tuple(r.values()) for r in rows])

    def put_checkpoint(self, checkpoint: Checkpoint) -> None:
        with self.transaction() as conn:
            self._put_checkpoint(conn, checkpoint)

    @staticmethod
    def _put_checkpoint(conn: sqlite3.Connection, cp: Checkpoint) -> None:
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
        conn.execute(_upsert_sql("checkpoints", row, ("repo", "resource")), tuple(row.values()))

    def checkpoint(self, repo: str, resource: str) -> Checkpoint:
        row = self._conn.execute(
            "SELECT next_url, since, pass_since, pass_high, etag, done FROM checkpoints WHERE "
            "repo=? AND resource=?",
            (repo, resource),
        ).fetchone()
        if row is None:
            return Checkpoint(repo, resource)
        return Checkpoint(repo, resource, row[0], row[1], row[2], row[3], row[4], bool(row[5]))

    def mark_tombstone(self, repo: str, number: int, kind: str) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO issues(repo, number, tombstone) VALUES(?,?,?) "
                "ON CONFLICT(repo, number) DO UPDATE SET tombstone=excluded.tombstone",
                (repo, number, kind),
            )

    def add_redirect(self, repo: str, number: int, to_repo: str, to_number: int) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO redirects(repo, number, to_repo, to_number) "
                "VALUES(?,?,?,?)",
                (repo, number, to_repo, to_number),
            )

    # -- reading (links, dataset, status) -------------------------------------------
    def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        try:
            return self._conn.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"the crawl store {self.root} is damaged ({exc})",
                hint="move it away and crawl again",
            ) from None

    def _frame(
        self, sql: str, schema: dict[str, Any], params: tuple[Any, ...] = ()
    ) -> pl.DataFrame:
        """The rows as a frame: straight into Arrow when the ADBC reader can, else converted
        20,000 at a time (Python holds one batch of row tuples, several times the size of the
        same rows in a frame, not the whole answer)."""
        # inside a transaction only this connection sees what it wrote
        if not self._arrow_broken and not self._conn.in_transaction:
            frame = self._arrow_frame(sql, schema, params)
            if frame is not None:
                return frame
        try:
            cursor = self._conn.execute(sql, params)
            parts = []
            while rows := cursor.fetchmany(20_000):
                parts.append(pl.DataFrame(rows, schema=schema, orient="row"))
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"the crawl store {self.root} is damaged ({exc})",
                hint="move it away and crawl again",
            ) from None
        if not parts:
            return pl.DataFrame(schema=schema)
        return pl.concat(parts, rechunk=len(parts) > 1)

    def _arrow_frame(
        self, sql: str, schema: dict[str, Any], params: tuple[Any, ...]
    ) -> pl.DataFrame | None:
        """`_frame` through ADBC, or None where it cannot answer (then sqlite3 does)."""
        assert _adbc is not None
        try:
            if self._arrow_conn is None:
                uri = f"{(self.root / DB_NAME).resolve().as_uri()}?mode=ro"
                self._arrow_conn = _adbc.connect(uri, autocommit=True)
            with self._arrow_conn.cursor() as cursor:
                # the driver infers a column's type from its first batch (a column NULL all
                # through it reads as integers, and a later string fails: sqlite3 answers then);
                # a part's rows fit one batch of this size, and the driver reserves (virtual)
                # memory in proportion to it, which a later fork must be able to commit
                cursor.adbc_statement.set_options(**{_ADBC_BATCH_ROWS: str(_ADBC_ROWS)})
                cursor.execute(sql, params or None)
                table = cursor.fetch_arrow_table()
        except Exception:  # noqa: BLE001 - a type it cannot infer, an old driver: sqlite3 answers
            self._arrow_broken = True
            return None
        frame = pl.from_arrow(table)
        assert isinstance(frame, pl.DataFrame)
        frame.columns = list(schema)
        # 0/1 to booleans, an all-NULL column to its declared type
        return frame.cast(pl.Schema(schema))

    def parts(self, max_issues: int | None = None) -> list[Part]:
        """The store cut into (repo, first, last) number ranges of at most `max_issues` issues
        (PART_ISSUES), in the frames' order; a thread (an issue and its comments) never spans
        two."""
        max_issues = max_issues or PART_ISSUES
        out: list[Part] = []
        for repo in self.repo_names():
            numbers = [
                row[0]
                for row in self._rows(
                    "SELECT number FROM issues WHERE repo=? ORDER BY number", (repo,)
                )
            ]
            out += [
                (repo, numbers[i], numbers[min(i + max_issues, len(numbers)) - 1])
                for i in range(0, len(numbers), max_issues)
            ]
        return out

    def repo_names(self) -> list[str]:
        """The repositories that hold issues, in the frames' order (the stages stream by these)."""
        return [row[0] for row in self._rows("SELECT DISTINCT repo FROM issues ORDER BY repo")]

    def issue_keys_frame(self) -> pl.DataFrame:
        """repo, number, is_pull_request, tombstone of every row of `issues`: no texts."""
        schema = {
            "repo": pl.Utf8,
            "number": pl.Int64,
            "is_pull_request": pl.Boolean,
            "tombstone": pl.Utf8,
        }
        return self._frame(
            "SELECT repo, number, is_pull_request, tombstone FROM issues ORDER BY repo, number",
            schema,
        )

    def issues_frame(
        self,
        *,
        include_raw: bool = False,
        repo: str | None = None,
        numbers: Iterable[int] | None = None,
        columns: Iterable[str] | None = None,
        span: tuple[int, int] | None = None,
    ) -> pl.DataFrame:
        """All issues and PRs (tombstones included, flagged); `labels` is a list of names.
        `repo` (and `numbers` within it) keep memory to one repository (or a few issues),
        `columns` to what is read."""
        schema: dict[str, Any] = {
            "repo": pl.Utf8,
            "number": pl.Int64,
            "is_pull_request": pl.Boolean,
            "state": pl.Utf8,
            "state_reason": pl.Utf8,
            "title": pl.Utf8,
            "body": pl.Utf8,
            "user_login": pl.Utf8,
            "author_association": pl.Utf8,
            "labels": pl.Utf8,
            "comments": pl.Int64,
            "created_at": pl.Utf8,
            "updated_at": pl.Utf8,
            "closed_at": pl.Utf8,
            "closed_by": pl.Utf8,
            "html_url": pl.Utf8,
            "tombstone": pl.Utf8,
        }
        if columns is not None:
            schema = {name: schema[name] for name in columns}
        columns = list(schema)
        if include_raw:  # the object as GitHub sent it, as sorted compact JSON text
            schema["raw"] = pl.Utf8
            columns.append("raw")
        where, params = _where(repo, numbers, span)
        sql = f"SELECT {', '.join(columns)} FROM issues {where} ORDER BY repo, number"
        if include_raw:
            title, body = columns.index("title"), columns.index("body")
            rows = [
                (
                    *r[:-1],
                    json.dumps(
                        unpack_raw(r[-1], {"title": r[title], "body": r[body]}),
                        sort_keys=True,
                        separators=(",", ":"),
                    ),
                )
                for r in self._rows(sql, params)
            ]
            frame = pl.DataFrame(rows, schema=schema, orient="row")
        else:
            frame = self._frame(sql, schema, params)
        if "labels" not in schema:
            return frame
        return frame.with_columns(pl.col("labels").str.json_decode(pl.List(pl.Utf8)))

    def comments_frame(
        self,
        *,
        repo: str | None = None,
        columns: Iterable[str] | None = None,
        span: tuple[int, int] | None = None,
    ) -> pl.DataFrame:
        """Comments in thread order; `repo` keeps memory to one repository, `columns` to what is
        read."""
        schema = {
            "id": pl.Int64,
            "repo": pl.Utf8,
            "number": pl.Int64,
            "user_login": pl.Utf8,
            "author_association": pl.Utf8,
            "body": pl.Utf8,
            "created_at": pl.Utf8,
            "html_url": pl.Utf8,
        }
        if columns is not None:
            schema = {name: schema[name] for name in columns}
        where, params = _where(repo, None, span)
        return self._frame(
            f"SELECT {', '.join(schema)} FROM comments {where} ORDER BY repo, number, created_at, "
            "id",
            schema,
            params,
        )

    def comment_details(self, ids: Iterable[int]) -> pl.DataFrame:
        """id, user_login, author_association, created_at, html_url of the comments `ids`: what
        the link stage needs beyond the bodies, read only for the threads it reads."""
        schema = {
            "id": pl.Int64,
            "user_login": pl.Utf8,
            "author_association": pl.Utf8,
            "created_at": pl.Utf8,
            "html_url": pl.Utf8,
        }
        wanted = sorted({int(i) for i in ids})
        # ids are ints we read, so inlining them is safe (and avoids SQLite's variable limit)
        found = [
            self._frame(
                f"SELECT {', '.join(schema)} FROM comments WHERE id IN "
                f"({','.join(map(str, wanted[k : k + 10_000]))})",
                schema,
            )
            for k in range(0, len(wanted), 10_000)
        ]
        return pl.concat(found) if found else pl.DataFrame(schema=schema)

    def events_frame(
        self,
        *,
        repo: str | None = None,
        span: tuple[int, int] | None = None,
        marks_of_others: bool = False,
    ) -> pl.DataFrame:
        schema = {
            "repo": pl.Utf8,
            "number": pl.Int64,
            "event_key": pl.Utf8,
            "event": pl.Utf8,
            "actor": pl.Utf8,
            "created_at": pl.Utf8,
            "canonical_repo": pl.Utf8,
            "canonical_number": pl.Int64,
            "source": pl.Utf8,
            "actor_type": pl.Utf8,
            "label": pl.Utf8,
            "state_reason": pl.Utf8,
            "duplicate_repo": pl.Utf8,
            "duplicate_number": pl.Int64,
        }
        where, params = _where(repo, None, span)
        if marks_of_others:  # see marks_about
            where = (
                "WHERE duplicate_number IS NOT NULL AND event IN ('marked_as_duplicate', "
                "'unmarked_as_duplicate') AND NOT (lower(repo)=lower(duplicate_repo) AND "
                "number=duplicate_number)"
            )
            params = ()
            if span is not None:
                where += " AND duplicate_number BETWEEN ? AND ?"
                params = span
        return self._frame(
            f"SELECT {', '.join(schema)} FROM events {where} ORDER BY repo, number, created_at, "
            "event_key",
            schema,
            params,
        )

    def marks_about(
        self, names: Iterable[str], span: tuple[int, int] | None = None
    ) -> pl.DataFrame:
        """Duplicate marks stored on another issue's timeline (the canonical's) that are about
        an issue of the repository going by `names` (lower case), within `span` of numbers."""
        frame = self.events_frame(marks_of_others=True, span=span)
        wanted = list(names)
        return frame.filter(pl.col("duplicate_repo").str.to_lowercase().is_in(wanted))

    def redirects_frame(self) -> pl.DataFrame:
        schema = {"repo": pl.Utf8, "number": pl.Int64, "to_repo": pl.Utf8, "to_number": pl.Int64}
        return self._frame(
            "SELECT repo, number, to_repo, to_number FROM redirects ORDER BY repo, number", schema
        )

    def repo_counts(self) -> list[dict[str, Any]]:
        """Per repository: what `issues-sts status --json` prints (a stable interface)."""
        sql = """
        SELECT r.repo, r.status, r.current_name, r.last_sync,
          (SELECT COUNT(*) FROM issues i WHERE i.repo=r.repo AND i.tombstone IS NULL
             AND i.is_pull_request=0),
          (SELECT COUNT(*) FROM issues i WHERE i.repo=r.repo AND i.tombstone IS NULL
             AND i.is_pull_request=1),
          (SELECT COUNT(*) FROM comments c WHERE c.repo=r.repo),
          (SELECT COUNT(*) FROM events e WHERE e.repo=r.repo),
          (SELECT COUNT(*) FROM issues i WHERE i.repo=r.repo AND i.tombstone IS NOT NULL),
          (SELECT COUNT(*) FROM issues i WHERE i.repo=r.repo AND i.tombstone IS NULL
             AND i.is_pull_request=0
             AND (lower(i.state_reason)='duplicate' OR duplicate_labels(i.labels)
                  OR EXISTS (SELECT 1 FROM comments c WHERE c.repo=i.repo AND c.number=i.number
                             AND duplicate_wording(c.body)))),
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
        self._duplicate_evidence_functions()
        keys = (
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
        return [dict(zip(keys, row, strict=True)) for row in self._conn.execute(sql)]

    def gaps(self, repo: str | None = None) -> list[Gap]:
        """The threads the crawl could not store whole (all repositories, or one)."""
        where, params = ("WHERE repo=?", (repo,)) if repo else ("", ())
        rows = self._rows(
            f"SELECT repo, number, expected, got, reason FROM gaps {where} ORDER BY repo, number",
            params,
        )
        return [Gap(r[0], r[1], r[2] or 0, r[3] or 0, r[4] or "") for r in rows]

    def short_threads(self, repo: str) -> list[tuple[int, int, int]]:
        """(number, comments count, stored) of the live issues of `repo` whose stored comments
        fall short of the count the issue list gave."""
        return self._rows(
            "SELECT i.number, i.comments, COALESCE(k.n, 0) FROM issues i LEFT JOIN "
            "(SELECT number, COUNT(*) AS n FROM comments WHERE repo=? GROUP BY number) k "
            "ON k.number=i.number WHERE i.repo=? AND i.tombstone IS NULL AND "
            "i.is_pull_request=0 AND COALESCE(k.n, 0) < i.comments ORDER BY i.number",
            (repo, repo),
        )

    def _duplicate_evidence_functions(self) -> None:
        """`duplicate_labels(labels_json)` and `duplicate_wording(body)` for SQL: the crawler's
        candidate screen and the link stage's vocabulary (`links/vocabulary.py`), not a copy."""
        from issues_sts.links.vocabulary import labels_say_duplicate, says_duplicate

        self._conn.create_function(
            "duplicate_labels", 1, lambda v: int(labels_say_duplicate(v)), deterministic=True
        )
        self._conn.create_function(
            "duplicate_wording", 1, lambda v: int(says_duplicate(v)), deterministic=True
        )

    def repo_states(self) -> dict[str, str]:
        """Each repository's crawl status (`ok` only once a sync went through to the end)."""
        return dict(self._conn.execute("SELECT repo, status FROM repos ORDER BY repo"))

    def asked_repos(self) -> tuple[str, ...]:
        """The repositories the last crawl into this store was asked for (crawl-config.json),
        empty when no crawl wrote one (stores made by other tools)."""
        try:
            data = json.loads((self.root / CRAWL_CONFIG).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return ()
        repos = data.get("repos") if isinstance(data, dict) else None
        return tuple(str(r) for r in repos) if isinstance(repos, list) else ()

    # -- crawler bookkeeping reads ------------------------------------------------------
    def repo_row(self, repo: str) -> dict[str, Any] | None:
        row = self._conn.execute(
            "SELECT repo, repo_id, current_name, status, last_sync FROM repos WHERE repo=?", (repo,)
        ).fetchone()
        keys = ("repo", "repo_id", "current_name", "status", "last_sync")
        return dict(zip(keys, row, strict=True)) if row else None

    def issue_evidence(self, repo: str) -> list[tuple[int, str | None, str | None, str]]:
        """(number, state_reason, updated_at, labels JSON) of the live, non-PR issues of `repo`."""
        return self._conn.execute(
            "SELECT number, state_reason, updated_at, labels FROM issues "
            "WHERE repo=? AND tombstone IS NULL AND is_pull_request=0 ORDER BY number",
            (repo,),
        ).fetchall()

    def open_numbers(self, repo: str) -> set[int]:
        """Numbers of the live issues of `repo` that are open."""
        rows = self._conn.execute(
            "SELECT number FROM issues WHERE repo=? AND tombstone IS NULL AND state='open'", (repo,)
        )
        return {r[0] for r in rows}

    def issue_threads(self, repo: str) -> list[tuple[int, str | None, int]]:
        """(number, updated_at, comment count) of the live, non-PR issues of `repo`."""
        return self._conn.execute(
            "SELECT number, updated_at, comments FROM issues "
            "WHERE repo=? AND tombstone IS NULL AND is_pull_request=0 ORDER BY number",
            (repo,),
        ).fetchall()

    def thread_facts(
        self, repo: str
    ) -> Iterator[tuple[int, str | None, int, str | None, str, str, str | None]]:
        """(number, updated_at, comment count, state, title + body, labels JSON, state_reason)
        of the live, non-PR issues of `repo`: what decides how a thread is asked."""
        yield from self._conn.execute(
            "SELECT number, updated_at, comments, state, COALESCE(title, '') || char(10) || "
            "COALESCE(body, ''), labels, state_reason FROM issues "
            "WHERE repo=? AND tombstone IS NULL AND is_pull_request=0 ORDER BY number",
            (repo,),
        )

    def comment_bodies(self, repo: str) -> Iterator[tuple[int, str]]:
        yield from self._conn.execute(
            "SELECT number, body FROM comments WHERE repo=? ORDER BY id", (repo,)
        )

    def checkpoint_watermarks(self, repo: str, prefix: str) -> dict[str, str | None]:
        """resource -> `since` of the finished checkpoints whose resource starts with `prefix`."""
        rows = self._conn.execute(
            "SELECT resource, since FROM checkpoints WHERE repo=? AND done=1 AND resource LIKE ?",
            (repo, prefix + "%"),
        )
        return dict(rows.fetchall())

    def known_numbers(self, repo: str) -> set[int]:
        """Numbers stored for `repo` as issues (tombstones included) or as redirects."""
        rows = self._conn.execute(
            "SELECT number FROM issues WHERE repo=? UNION SELECT number FROM redirects WHERE "
            "repo=?",
            (repo, repo),
        )
        return {r[0] for r in rows}

    def schema_version(self) -> int:
        row = self._conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        return int(row[0]) if row else SCHEMA_VERSION

    def compact(self, *, progress: Callable[[int], None] | None = None) -> tuple[int, int]:
        """Rewrite a version-1 store's raw JSON text as `pack_raw` blobs, then VACUUM; returns
        the file's (bytes before, bytes after). Safe to interrupt: each batch commits whole."""
        db = self.root / DB_NAME
        before = db.stat().st_size
        for table, key, texts in (
            ("issues", "rowid", ("title", "body")),
            ("comments", "id", ("body",)),
        ):
            select = (
                f"SELECT {key}, raw, {', '.join(texts)} FROM {table} WHERE typeof(raw)='text' "
                f"AND raw != '{{}}' LIMIT 2000"
            )
            while rows := self._rows(select):
                packed = [
                    (pack_raw(json.loads(r[1]), dict(zip(texts, r[2:], strict=True))), r[0])
                    for r in rows
                ]
                with self.transaction() as conn:
                    conn.executemany(f"UPDATE {table} SET raw=? WHERE {key}=?", packed)
                if progress is not None:
                    progress(len(rows))
        self._conn.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES('schema_version', ?)",
            (str(SCHEMA_VERSION),),
        )
        self._conn.execute("VACUUM")
        return before, db.stat().st_size

    def has_issues(self) -> bool:
        """Whether any issue is stored; one row is enough to know (COUNT(*) would read the
        whole table of a big store)."""
        return self._conn.execute("SELECT 1 FROM issues LIMIT 1").fetchone() is not None

    def renamed_repos(self) -> tuple[tuple[str, str], ...]:
        """(old name, current name) of every repository whose `current_name` differs from the
        name it was stored under (case-insensitively), sorted by the old name."""
        rows = self._conn.execute(
            "SELECT repo, current_name FROM repos WHERE current_name IS NOT NULL AND "
            "lower(current_name) != lower(repo) ORDER BY repo"
        ).fetchall()
        return tuple((str(old), str(new)) for old, new in rows)

    def meta(self, key: str) -> str | None:
        """A value of the store's key-value table (`schema_version`, an archive's fingerprint)."""
        row = self._conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self._conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (key, value))
