"""A store's crawled rows, dumped canonically, to compare two stores as values.

    assert_same_rows(store_rows(recrawled), store_rows(fresh))

Every table that holds crawled data (`issues_sts.store.dump.CRAWLED_TABLES`: issues, comments,
events, gaps, redirects), every column, each `raw` object unpacked to sorted JSON. Left out, as
bookkeeping (`BOOKKEEPING`): checkpoints, repository statuses and sync times, the schema
version, and when a gap was noted (`gaps.updated_at`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from issues_sts.store import Store
from issues_sts.store.dump import CRAWLED_TABLES

Rows = dict[str, list[tuple[Any, ...]]]


def store_rows(store: Path) -> Rows:
    """table -> its rows (column order as `columns_of` says), sorted."""
    with Store.open(store) as db:
        return {table: db.crawled_rows(table)[1] for table in CRAWLED_TABLES}


def columns_of(store: Path, table: str) -> list[str]:
    with Store.open(store) as db:
        return db.crawled_rows(table)[0]


def counts(rows: Rows) -> dict[str, int]:
    return {table: len(found) for table, found in rows.items()}


def differences(got: Rows, want: Rows, *, show: int = 3) -> dict[str, str]:
    """Per table that differs: how many rows each side has alone, and a few of them."""
    found = {}
    for table in CRAWLED_TABLES:
        mine, theirs = set(got[table]), set(want[table])
        if mine == theirs and len(got[table]) == len(want[table]):
            continue
        extra, missing = sorted(mine - theirs, key=str), sorted(theirs - mine, key=str)
        found[table] = (
            f"{len(got[table])} rows against {len(want[table])}: {len(extra)} only here "
            f"{[_short(r) for r in extra[:show]]}, {len(missing)} missing "
            f"{[_short(r) for r in missing[:show]]}"
        )
    return found


def assert_same_rows(got: Rows, want: Rows) -> None:
    """`got` holds exactly `want`'s rows, table by table; the message says where it does not."""
    diff = differences(got, want)
    assert not diff, "the stores differ:\n" + "\n".join(f"{t}: {d}" for t, d in diff.items())


def _short(row: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(v[:60] + "..." if isinstance(v, str) and len(v) > 60 else v for v in row)
