from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from issues_sts.crawl.rows import comment_rows, issue_rows
from issues_sts.errors import StoreError
from issues_sts.store import Checkpoint, Store
from tests.conftest import cli_exit_code


def _issue(number: int, *, pr: bool = False, updated: str = "2024-01-01T00:00:00Z") -> dict:
    raw = {
        "number": number,
        "id": 1000 + number,
        "node_id": f"I_{number}",
        "title": f"t{number}",
        "body": "b",
        "state": "closed",
        "state_reason": "duplicate",
        "user": {"login": "u"},
        "labels": [{"name": "duplicate"}],
        "updated_at": updated,
        "html_url": f"https://github.com/o/r/issues/{number}",
    }
    if pr:
        raw["pull_request"] = {"url": "x"}
    return raw


def _comment(cid: int, number: int) -> dict:
    return {
        "id": cid,
        "issue_url": f"https://api.github.com/repos/o/r/issues/{number}",
        "body": "Duplicate of #1",
        "user": {"login": "m"},
        "author_association": "MEMBER",
        "created_at": "2024-01-02T00:00:00Z",
    }


def test_write_page_is_atomic_and_idempotent(tmp_path: Path) -> None:
    store = Store.open(tmp_path, create=True)
    store.upsert_repo("o/r", status="ok")
    cp = Checkpoint("o/r", "issues", next_url="https://x/next")
    store.write_page(
        "o/r",
        issues=issue_rows("o/r", [_issue(1), _issue(2, pr=True)]),
        comments=comment_rows("o/r", [_comment(7, 1)]),
        checkpoint=cp,
    )
    store.write_page(
        "o/r",
        issues=issue_rows("o/r", [_issue(1)]),
        comments=comment_rows("o/r", [_comment(7, 1)]),
        checkpoint=cp,
    )  # replayed page
    issues = store.issues_frame()
    assert issues.height == 2 and issues["is_pull_request"].to_list() == [False, True]
    assert issues["labels"].to_list()[0] == ["duplicate"]
    assert store.comments_frame().height == 1
    assert store.checkpoint("o/r", "issues").next_url == "https://x/next"
    with pytest.raises(RuntimeError), store.transaction() as conn:
        conn.execute("DELETE FROM issues")
        raise RuntimeError("killed mid-page")
    assert store.issues_frame().height == 2
    counts = store.repo_counts()
    assert (
        counts[0]["issues"] == 1 and counts[0]["pull_requests"] == 1 and counts[0]["comments"] == 1
    )


def test_missing_and_corrupt_store(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no crawl store"):
        Store.open(tmp_path / "nothing")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "crawl.sqlite").write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="corrupt"):
        Store.open(tmp_path / "bad")


def test_another_database_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "theirs" / "crawl.sqlite"
    db.parent.mkdir()
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE mine(x)")
    before = db.read_bytes()
    for create in (False, True):  # neither a reading command nor a crawl turns it into a store
        with pytest.raises(StoreError, match="not a crawl store") as caught:
            Store.open(db.parent, create=create)
        assert caught.value.exit_code == 3
    assert db.read_bytes() == before and not (db.parent / "crawl.sqlite-wal").exists()
    assert cli_exit_code(["status", "--store", str(db.parent)]) == 3
    assert db.read_bytes() == before


def test_an_empty_database_file_is_an_empty_store_except_to_a_crawl(tmp_path: Path) -> None:
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "crawl.sqlite").write_bytes(b"")
    with pytest.raises(StoreError, match="is empty") as caught:
        Store.open(tmp_path / "s")
    assert caught.value.exit_code == 3 and "issues-sts crawl --store" in caught.value.one_line()
    assert cli_exit_code(["status", "--store", str(tmp_path / "s")]) == 3
    with Store.open(tmp_path / "s", create=True) as store:  # a crawl fills it
        assert not store.has_issues()
    with Store.open(tmp_path / "s") as store:
        assert not store.has_issues()


def _event(canonical: int | None, source: str) -> dict:
    return {
        "repo": "o/r",
        "number": 3,
        "event_key": "MADE_1",
        "event": "marked_as_duplicate",
        "actor": "m",
        "created_at": "2025-01-01T00:00:00Z",
        "canonical_repo": "o/r" if canonical else None,
        "canonical_number": canonical,
        "source": source,
        "raw": "{}",
    }


def test_events_keep_the_canonical_and_checkpoints_commit_together(tmp_path: Path) -> None:
    store = Store.open(tmp_path, create=True)
    cps = [Checkpoint("o/r", f"timeline:{n}", since="t", done=True) for n in (3, 4)]
    store.write_page("o/r", events=[_event(1, "graphql")], checkpoints=cps)
    store.write_page(
        "o/r", events=[_event(None, "rest")]
    )  # REST knows no canonical: keep GraphQL's
    row = store.events_frame().row(0, named=True)
    assert (row["canonical_number"], row["source"]) == (1, "graphql")
    assert store.checkpoint_watermarks("o/r", "timeline:") == {"timeline:3": "t", "timeline:4": "t"}
    store.mark_tombstone("o/r", 9, "gone")
    store.add_redirect("o/r", 7, "x/y", 70)
    assert store.known_numbers("o/r") == {7, 9}
    assert store.issues_frame().filter(pl.col("number") == 9)["tombstone"].to_list() == ["gone"]


def test_damage_past_the_header_is_a_store_error_on_read(tmp_path: Path) -> None:
    store = Store.open(tmp_path, create=True)
    store.upsert_repo("o/r", status="ok")
    store.write_page(
        "o/r",
        issues=issue_rows(
            "o/r", [_issue(n, updated=f"2024-01-01T00:00:{n % 60:02d}Z") for n in range(1, 400)]
        ),
    )
    store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    db = tmp_path / "crawl.sqlite"
    data = bytearray(db.read_bytes())
    page = 4096
    for offset in range(3 * page, len(data) - page, page):  # wreck every page after the schema
        data[offset : offset + 64] = b"\xff" * 64
    db.write_bytes(bytes(data))
    with pytest.raises(StoreError):
        Store.open(tmp_path).issues_frame()


def test_raw_objects_are_packed_small_and_come_back_exactly() -> None:
    from issues_sts.crawl.rows import comment_row, issue_row
    from issues_sts.store import pack_raw, unpack_raw

    for body in ("b", "", None):
        raw = {**_issue(3), "body": body}
        row = issue_row("o/r", raw)
        assert isinstance(row["raw"], bytes)
        assert unpack_raw(row["raw"], {"title": row["title"], "body": row["body"]}) == raw
    comment = {**_comment(9, 3), "body": "x" * 5000}
    row = comment_row("o/r", comment)
    assert len(row["raw"]) < 400, "the body is stored once, in its column"
    assert unpack_raw(row["raw"], {"body": row["body"]}) == comment
    assert unpack_raw('{"a": 1}', {}) == {"a": 1}  # a version-1 store's JSON text
    with pytest.raises(StoreError, match="unknown encoding"):
        unpack_raw(b"\x09" + pack_raw({}, {})[1:], {})


def test_an_object_packed_before_decodes_the_same() -> None:
    """Codec 1's preset dictionary is part of every stored blob: this one was packed by the
    store before it became a package, and must keep decoding to the same object."""
    from issues_sts.store import unpack_raw

    raw = {
        "number": 7,
        "title": "Crash on start",
        "body": "It crashes.",
        "user": {"login": "octocat", "type": "User"},
        "html_url": "https://github.com/o/r/issues/7",
        "labels": [{"name": "C-bug"}],
        "state": "closed",
        "state_reason": "duplicate",
    }
    blob = bytes.fromhex(
        "0178bbcc238589ab269021f3f58b60416f8e9a1aa129cb5937a9341d9c3060b9c81c4b49835a68a1944ab07a"
        "18d612ca4f2ec9074a29e9a0b4536b6b0137723947"
    )
    assert unpack_raw(blob, {"title": raw["title"], "body": raw["body"]}) == raw


def test_a_version_1_store_keeps_working_and_compacts(tmp_path: Path) -> None:
    import json

    with Store.open(tmp_path, create=True) as store:
        store.write_page(
            "o/r",
            issues=issue_rows("o/r", [_issue(1), _issue(2)]),
            comments=comment_rows("o/r", [_comment(7, 1)]),
        )
        # as today's crawler wrote them: the object as JSON text, schema version 1
        for table, key, obj in (
            ("issues", "number", _issue(1)),
            ("comments", "id", _comment(7, 1)),
        ):
            store._conn.execute(
                f"UPDATE {table} SET raw=? WHERE {key}=?", (json.dumps(obj), obj[key])
            )
        store._conn.execute("UPDATE meta SET value='1' WHERE key='schema_version'")
        expected = store.issues_frame(include_raw=True)
        assert json.loads(expected["raw"][0]) == _issue(1) and json.loads(
            expected["raw"][1]
        ) == _issue(2)
    assert cli_exit_code(["status", "--store", str(tmp_path), "--compact"]) == 0
    with Store.open(tmp_path) as store:
        assert store.issues_frame(include_raw=True).equals(expected)
        assert (
            store._conn.execute("SELECT COUNT(*) FROM issues WHERE typeof(raw)='text'").fetchone()[
                0
            ]
            == 0
        )
        assert (
            store._conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0]
            == "2"
        )


def _both_readers(store: Store, read: Callable[[], pl.DataFrame]) -> tuple[pl.DataFrame, ...]:
    """`read()` through the Arrow reader, then through sqlite3 alone."""
    arrow = read()
    assert not store._arrow_broken, "the Arrow reader fell back"
    store._arrow_broken = True
    try:
        return arrow, read()
    finally:
        store._arrow_broken = False


def test_the_arrow_reader_gives_the_frames_sqlite3_gives(tmp_path: Path) -> None:
    store = Store.open(tmp_path, create=True)
    store.upsert_repo("o/r", status="ok")
    issues = [_issue(n, pr=n % 3 == 0) for n in range(1, 60)]
    for raw in issues[::4]:
        raw["body"] = None
        raw["state_reason"] = None  # NULLs among the others
    comments = [_comment(100 + n, 1 + n % 50) for n in range(120)]
    store.write_page(
        "o/r",
        issues=issue_rows("o/r", issues),
        comments=comment_rows("o/r", comments),
        events=[_event(2, "graphql")],
    )
    for read in (
        store.issues_frame,
        lambda: store.issues_frame(repo="o/r", span=(5, 40), columns=("number", "body")),
        store.comments_frame,
        lambda: store.comments_frame(repo="o/r", columns=("id", "repo", "number", "body")),
        lambda: store.comment_details([101, 150, 999]),
        store.events_frame,
        store.issue_keys_frame,
        lambda: store.issues_frame(repo="nobody/here"),  # no rows: the declared types
    ):
        arrow, plain = _both_readers(store, read)
        assert arrow.schema == plain.schema
        assert arrow.equals(plain, null_equal=True)


def test_a_column_the_arrow_reader_cannot_type_is_read_by_sqlite3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the driver types a column from its first batch: NULL all through it, then text
    monkeypatch.setattr("issues_sts.store.frames._ADBC_ROWS", 4)
    store = Store.open(tmp_path, create=True)
    store.upsert_repo("o/r", status="ok")
    issues = [_issue(n) for n in range(1, 12)]
    for raw in issues[:6]:
        raw["state_reason"] = None
    store.write_page("o/r", issues=issue_rows("o/r", issues))
    frame = store.issues_frame(columns=("number", "state_reason"))
    assert store._arrow_broken  # it fell back, and stays with sqlite3 for this store
    assert frame["state_reason"].to_list() == [None] * 6 + ["duplicate"] * 5


def test_inside_a_transaction_a_read_sees_its_own_writes(tmp_path: Path) -> None:
    store = Store.open(tmp_path, create=True)
    store.upsert_repo("o/r", status="ok")
    store.write_page("o/r", issues=issue_rows("o/r", [_issue(1)]))
    assert store.issues_frame().height == 1  # the Arrow reader is open now
    with store.transaction() as conn:
        conn.execute("DELETE FROM issues")
        assert store.issues_frame().height == 0  # not the other connection's snapshot
    assert store.issues_frame().height == 0
