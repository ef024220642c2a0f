"""Opening a store only to read it (`status`, `build`, `links show`): nothing is created,
migrated or switched, so a store on read-only media or an archived copy works as it is.

SQLite reads a WAL-mode database read-only (`mode=ro`) as long as its `-shm` and `-wal`
files exist or can be created next to it. In a folder that cannot be written and where
they do not exist, only `immutable=1` opens it: SQLite then takes no locks and makes no
files, trusting that nothing changes the file while it is read, which holds for such a
folder. A `-wal` that holds pages the database file does not (a crawl killed before its
last checkpoint) cannot be replayed that way, and is refused rather than silently missed.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from issues_sts.errors import StoreError
from issues_sts.store.schema import DB_NAME, EVENT_EXTRA_COLUMNS, SCHEMA, refuse_foreign

READ_ONLY = "mode=ro"
IMMUTABLE = "immutable=1"


def connect_readonly(root: Path) -> tuple[sqlite3.Connection, str]:
    """The store's database at `root` opened read-only, and the URI query that opened it
    (another reader, the Arrow one, opens it the same way). A missing, foreign or damaged
    store is a StoreError."""
    db = root / DB_NAME
    if root.exists() and not root.is_dir():
        raise StoreError(
            f"--store {root} is a file, not a crawl store folder",
            hint="point --store at the folder `issues-sts crawl` writes (default data/store)",
        )
    if not db.exists():
        raise StoreError(f"no crawl store at {root}")
    try:
        try:
            return _open(db, READ_ONLY), READ_ONLY
        except sqlite3.OperationalError:  # no -shm, and none can be made here
            wal = db.with_name(db.name + "-wal")
            if wal.exists() and wal.stat().st_size > 0:
                raise StoreError(
                    f"the crawl store {root} cannot be written and holds a write-ahead log "
                    f"({wal.name}) that only a writable copy can replay",
                    hint="copy the store folder somewhere writable and point --store there",
                ) from None
            return _open(db, IMMUTABLE), IMMUTABLE
    except sqlite3.DatabaseError as exc:
        raise StoreError(
            f"the crawl store {db} is corrupt or not a store ({exc})",
            hint="restore it from a copy, or crawl again into a new folder",
        ) from None


def _open(db: Path, query: str) -> sqlite3.Connection:
    conn = sqlite3.connect(f"{db.resolve().as_uri()}?{query}", uri=True, isolation_level=None)
    try:
        # reading the schema is where an unopenable or foreign file shows, in O(1)
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    except sqlite3.Error:
        conn.close()
        raise
    refuse_foreign(conn, db.parent, tables, create=False)
    if not current(conn, tables):
        conn.close()
        raise OutOfDate(db.parent)
    return conn


class OutOfDate(StoreError):
    """A store an older issues-sts wrote lacks tables or columns that readers ask for."""

    def __init__(self, root: Path) -> None:
        super().__init__(
            f"the crawl store {root} was written by an older issues-sts and cannot be brought "
            "up to date where it is (read-only)",
            hint="copy the store folder somewhere writable and point --store there",
        )


def current(conn: sqlite3.Connection, tables: set[str]) -> bool:
    """Whether the store has every table and column this issues-sts reads."""
    wanted = set(re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", SCHEMA))
    if not wanted <= tables:
        return False
    have = {row[1] for row in conn.execute("PRAGMA table_info(events)")}
    return all(name in have for name, _ in EVENT_EXTRA_COLUMNS)
