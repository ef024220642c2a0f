"""The store read as polars frames: the link and dataset stages read through these, with
stable column names, straight into Arrow where the ADBC driver can (sqlite3 otherwise)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import polars as pl

from issues_sts.errors import StoreError
from issues_sts.store.codec import unpack_raw
from issues_sts.store.schema import DB_NAME

try:  # the fast reader (a dependency); without it every read goes through sqlite3
    import adbc_driver_sqlite.dbapi as _adbc
except ImportError:  # pragma: no cover - an install without the driver still works
    _adbc = None  # type: ignore[assignment]
_ADBC_BATCH_ROWS = "adbc.sqlite.query.batch_rows"
_ADBC_ROWS = 1 << 20

# Issues per part when a stage streams the store: bounds memory whatever a repository's size.
PART_ISSUES = 20_000
Part = tuple[str, int, int]  # repo, first number, last number


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


class FrameReader:
    """The reads of a store's tables as frames (Store inherits them): a connection of sqlite3
    and, opened on first use, the ADBC driver's own read-only one."""

    def __init__(self, root: Path, conn: sqlite3.Connection) -> None:
        self.root = root
        self._conn = conn
        self._arrow_conn: Any = None  # the Arrow reader's own connection, opened on first use
        self._arrow_broken = _adbc is None
        self.read_query = "mode=ro"  # how the Arrow reader opens the file (`readonly`)

    def _close_arrow(self) -> None:
        if self._arrow_conn is not None:
            self._arrow_conn.close()
            self._arrow_conn = None

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
                uri = f"{(self.root / DB_NAME).resolve().as_uri()}?{self.read_query}"
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
