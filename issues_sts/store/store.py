"""The Store: one SQLite database (WAL mode) per crawl directory, every SQL statement of the
project a typed method here or in its sibling modules."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from issues_sts.errors import StoreError
from issues_sts.store.checkpoints import (
    Checkpoint,
    finished_watermarks,
    put_checkpoint,
    read_checkpoint,
)
from issues_sts.store.codec import pack_raw
from issues_sts.store.dump import crawled_rows
from issues_sts.store.frames import FrameReader
from issues_sts.store.modes import record_mode, stored_mode, switch_mode
from issues_sts.store.readonly import OutOfDate, connect_readonly
from issues_sts.store.schema import (
    CRAWL_CONFIG,
    DB_NAME,
    EVENT_COLUMNS,
    EVENT_UPSERT,
    RENAMED,
    SCHEMA_VERSION,
    connect,
    upsert_sql,
    utcnow,
)
from issues_sts.store.status import DuplicateScreen, not_started, repo_counts

Row = dict[str, Any]  # one row of a table, by column name


@dataclass(frozen=True)
class Gap:
    """A thread the crawl could not store whole: GitHub counted `expected` comments and the
    crawl stored `got` (a comment without an id, an answer cut short)."""

    repo: str
    number: int
    expected: int
    got: int
    reason: str


_RECRAWL = "run the same crawl command again: it rewrites the file and resumes"


class Store(FrameReader):
    """A crawl store directory holding `crawl.sqlite`. The connection is private: every SQL
    statement of the project is a typed method here, so the schema can change in one file."""

    # -- opening -------------------------------------------------------------------
    @classmethod
    def open(cls, root: Path | str, *, create: bool = False, readonly: bool = False) -> Store:
        """Open (or with `create`, initialise) a store; a missing or corrupt one is a StoreError.
        `readonly`: only to read it, on read-only media too (nothing created or migrated)."""
        root = Path(root)
        if readonly:
            try:
                conn, query = connect_readonly(root)
            except OutOfDate:
                if not os.access(root, os.W_OK):
                    raise
                return cls(root, connect(root, create=False))  # brought up to date once
            store = cls(root, conn)
            store.read_query = query
            return store
        return cls(root, connect(root, create=create))

    def close(self) -> None:
        self._close_arrow()
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
            upsert_sql("repos", row, ("repo",))
            if fields
            else "INSERT OR IGNORE INTO repos(repo) VALUES(?)",
            tuple(row.values()),
        )

    def write_page(
        self,
        repo: str,
        *,
        issues: Iterable[Row] = (),
        comments: Iterable[Row] = (),
        events: Iterable[Row] = (),
        checkpoint: Checkpoint | None = None,
        checkpoints: Iterable[Checkpoint] = (),
        gaps: Iterable[Gap] = (),
        whole: Iterable[int] = (),
        threads: Mapping[int, Iterable[int]] | None = None,
        reread: Iterable[str] = (),
    ) -> None:
        """Store one fetched page and its checkpoint(s) atomically. Items are rows of their
        tables (the crawl flattens GitHub's objects: `crawl.rows`, `crawl.graphql`), upserted
        by their keys; an event row without a canonical never erases one an earlier GraphQL
        answer stored. `gaps` records threads of `repo` this page could not store whole,
        `whole` the numbers whose threads it stored whole (their earlier gaps are closed).
        `threads`: issues whose whole thread was just read (so also `whole`), with the ids of
        every comment each has now; the others stored for them were deleted on GitHub and go
        too (a deleted "Duplicate of #N" is no evidence). `reread`: resources of `repo` whose
        checkpoints go, so the crawl reads them again (the other side of a duplicate mark)."""
        with self.transaction() as conn:
            self._insert_many(conn, "issues", list(issues), ("repo", "number"))
            self._insert_many(conn, "comments", list(comments), ("id",))
            rows = list(events)
            if rows:
                conn.executemany(
                    EVENT_UPSERT, [tuple(r.get(c) for c in EVENT_COLUMNS) for r in rows]
                )
            for number, ids in (threads or {}).items():
                conn.execute(
                    "DELETE FROM comments WHERE repo=? AND number=? AND id NOT IN "
                    "(SELECT value FROM json_each(?))",
                    (repo, int(number), json.dumps(sorted(int(i) for i in ids))),
                )
            closed = [(repo, int(n)) for n in (*whole, *(threads or {}))]
            if closed:
                conn.executemany("DELETE FROM gaps WHERE repo=? AND number=?", closed)
            now = utcnow()
            conn.executemany(
                "INSERT OR REPLACE INTO gaps(repo, number, expected, got, reason, updated_at) "
                "VALUES(?,?,?,?,?,?)",
                [(g.repo, g.number, g.expected, g.got, g.reason, now) for g in gaps],
            )
            conn.executemany(
                "DELETE FROM checkpoints WHERE repo=? AND resource=?",
                [(repo, resource) for resource in reread],
            )
            for cp in [*([checkpoint] if checkpoint is not None else []), *checkpoints]:
                put_checkpoint(conn, cp)

    @staticmethod
    def _insert_many(
        conn: sqlite3.Connection, table: str, rows: list[Row], key: tuple[str, ...]
    ) -> None:
        if rows:
            columns = list(rows[0])  # every row has them (a KeyError says which is short)
            conn.executemany(
                upsert_sql(table, columns, key), [tuple(r[c] for c in columns) for r in rows]
            )

    def crawl_mode(self, repo: str) -> str | None:
        """The mode (`graphql` or `rest`) `repo`'s threads were stored in (`store.modes`)."""
        return stored_mode(self._conn, repo)

    def switch_mode(self, repo: str, mode: str) -> None:
        """Record `mode` for `repo`; when its rows were stored in the other mode, first drop
        every row and checkpoint that depends on the mode, in one transaction, so the crawl
        reads them again as a fresh crawl in `mode` would (`store.modes`)."""
        before = stored_mode(self._conn, repo)
        with self.transaction() as conn:
            (switch_mode if before not in (None, mode) else record_mode)(conn, repo, mode)

    def put_checkpoint(self, checkpoint: Checkpoint) -> None:
        with self.transaction() as conn:
            put_checkpoint(conn, checkpoint)

    def checkpoint(self, repo: str, resource: str) -> Checkpoint:
        return read_checkpoint(self._conn, repo, resource)

    def record_old_name(self, asked: Checkpoint, rename: tuple[str, str] | None) -> None:
        """The answer about one old name, in one transaction: the rename `(old, current)` it
        proved (a repository row of status `renamed`), if any, and its checkpoint."""
        with self.transaction() as conn:
            if rename is not None:
                old, current = rename
                row = {"repo": old, "current_name": current, "status": RENAMED}
                conn.execute(upsert_sql("repos", row, ("repo",)), tuple(row.values()))
            put_checkpoint(conn, asked)

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

    # -- reading (status, crawl bookkeeping) ------------------------------------------
    def repo_counts(self, screen: DuplicateScreen | None = None) -> list[dict[str, Any]]:
        """Per repository: what `issues-sts status --json` prints (a stable interface); the
        duplicate candidates are counted by `screen`'s predicates (None without one). The
        repositories the crawl was asked for and never started come last, `not started`."""
        rows = repo_counts(self._conn, screen)
        return rows + not_started(self.asked_repos(), rows)

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

    def long_threads(self, repo: str) -> list[int]:
        """Numbers of the live issues and PRs of `repo` with more comments stored than the
        issue list counts: comments deleted on GitHub since (a REST listing never says so)."""
        rows = self._rows(
            "SELECT i.number FROM issues i JOIN (SELECT number, COUNT(*) AS n FROM comments "
            "WHERE repo=? GROUP BY number) k ON k.number=i.number WHERE i.repo=? AND "
            "i.tombstone IS NULL AND k.n > i.comments ORDER BY i.number",
            (repo, repo),
        )
        return [int(r[0]) for r in rows]

    def stored_event_keys(self, repo: str, keys: Iterable[tuple[int, str]]) -> set[tuple[int, str]]:
        """Which (number, event_key) of `repo` the store holds as events (a few per page:
        one primary-key lookup each)."""
        sql = "SELECT 1 FROM events WHERE repo=? AND number=? AND event_key=?"
        return {
            (int(n), str(k))
            for n, k in set(keys)
            if self._conn.execute(sql, (repo, int(n), str(k))).fetchone() is not None
        }

    def repo_states(self) -> dict[str, str]:
        """Each repository's crawl status (`ok` only once a sync went through to the end)."""
        return dict(self._conn.execute("SELECT repo, status FROM repos ORDER BY repo"))

    def asked_repos(self) -> tuple[str, ...]:
        """The repositories the last crawl into this store was asked for (crawl-config.json),
        empty when no crawl wrote one (stores made by other tools). A file that cannot be read
        is a StoreError: ignoring it would hide a repository the crawl never started."""
        path = self.root / CRAWL_CONFIG
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return ()
        except (OSError, ValueError) as exc:
            raise StoreError(
                f"{path} is damaged ({type(exc).__name__}): which repositories the crawl was "
                "asked for is unknown",
                hint=_RECRAWL,
            ) from None
        repos = data.get("repos") if isinstance(data, dict) else None
        if not isinstance(repos, list):
            raise StoreError(
                f"{path} lists no repositories: which ones the crawl was asked for is unknown",
                hint=_RECRAWL,
            )
        return tuple(str(r) for r in repos)

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
        return finished_watermarks(self._conn, repo, prefix)

    def known_numbers(self, repo: str) -> set[int]:
        """Numbers stored for `repo` as issues (tombstones included) or as redirects."""
        rows = self._conn.execute(
            "SELECT number FROM issues WHERE repo=? UNION SELECT number FROM redirects WHERE "
            "repo=?",
            (repo, repo),
        )
        return {r[0] for r in rows}

    def crawled_rows(self, table: str) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Every crawled row of `table`, whole and sorted (`store.dump`): what a fresh crawl
        of the same GitHub must equal."""
        return crawled_rows(self._conn, table)

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
