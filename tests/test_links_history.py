"""The duplicate evidence modern repositories keep outside comments: who closed an issue, the
duplicate labels it carried, a duplicate close taken back, and the direction of a
`MarkedAsDuplicateEvent` (it shows on the canonical's timeline too). Each case has a positive
and a negative; the store-level cases go through the real store and link stage."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from issues_sts.crawl.rows import comment_rows, issue_rows
from issues_sts.links.history import about, read_history
from issues_sts.links.model import Event
from issues_sts.links.stage import build_links
from issues_sts.sandbox.stores import raw_issue
from issues_sts.store import Store

REPO = "acme/widgets"


def event(kind: str, minute: int, *, label: str | None = None, actor: str = "maint") -> Event:
    return Event(
        kind,
        actor,
        f"2025-01-01T{minute // 60:02d}:{minute % 60:02d}:00Z",
        None,
        None,
        "graphql",
        "",
        label=label,
    )


def is_dup(name: str) -> bool:
    return "duplicate" in name


@pytest.mark.parametrize(
    ("events", "labels", "closer", "withdrawn", "dup_label"),
    [
        # the closer is the last close's actor when the list gave none
        (
            [event("closed", 10, actor="a"), event("reopened", 20), event("closed", 30, actor="b")],
            (),
            "b",
            False,
            False,
        ),
        # a label the repository later removed (a relabelling) still counts
        (
            [event("labeled", 10, label="duplicate"), event("unlabeled", 900, label="duplicate")],
            (),
            None,
            False,
            True,
        ),
        # removed together with a reopen: withdrawn, and no longer counted
        (
            [
                event("labeled", 10, label="duplicate"),
                event("closed", 10),
                event("unlabeled", 300, label="duplicate"),
                event("reopened", 301),
            ],
            (),
            "maint",
            True,
            False,
        ),
        # ...unless it was put back after the withdrawal
        (
            [
                event("labeled", 10, label="duplicate"),
                event("unlabeled", 300, label="duplicate"),
                event("reopened", 301),
                event("labeled", 500, label="duplicate"),
            ],
            (),
            None,
            True,
            True,
        ),
        # a reopen hours away from the label's removal is another act
        (
            [
                event("labeled", 10, label="duplicate"),
                event("unlabeled", 300, label="duplicate"),
                event("reopened", 600),
            ],
            (),
            None,
            False,
            True,
        ),
        # other labels come and go without meaning anything here
        (
            [
                event("labeled", 10, label="bug"),
                event("unlabeled", 20, label="bug"),
                event("reopened", 21),
            ],
            ("bug",),
            None,
            False,
            False,
        ),
    ],
)
def test_read_history(
    events: list[Event],
    labels: tuple[str, ...],
    closer: str | None,
    withdrawn: bool,
    dup_label: bool,
) -> None:
    history = read_history(events, labels, None, is_dup)
    assert history.closed_by == closer
    assert (history.withdrawn_at is not None) == withdrawn
    assert any(is_dup(name) for name in history.labels) == dup_label


def test_a_list_closer_wins_over_the_events() -> None:
    history = read_history([event("closed", 10, actor="a")], (), "listed", is_dup)
    assert history.closed_by == "listed"


def test_a_mark_is_about_its_duplicate() -> None:
    own = Event(
        "marked_as_duplicate",
        "m",
        "t",
        REPO,
        2,
        "graphql",
        "",
        duplicate_repo=REPO,
        duplicate_number=7,
    )
    names = frozenset({REPO})
    assert about(own, names, 7) and not about(own, names, 2)
    rest = Event("marked_as_duplicate", "m", "t", None, None, "rest", "")
    assert about(rest, names, 2)  # REST names neither side: the timeline's own issue


# -- through the store and the link stage -------------------------------------------------------
def issue(number: int, **fields: Any) -> dict[str, Any]:
    raw = raw_issue(REPO, number, f"Crash number {number}", "It crashes.")
    raw.update(fields)
    return raw


def comment(
    number: int,
    cid: int,
    body: str,
    login: str = "maint",
    assoc: str = "MEMBER",
    at: str = "2025-01-01T10:00:00Z",
) -> dict[str, Any]:
    return {
        "id": cid,
        "body": body,
        "user": {"login": login},
        "author_association": assoc,
        "issue_url": f"https://api.github.com/repos/{REPO}/issues/{number}",
        "created_at": at,
        "updated_at": at,
        "html_url": f"https://github.com/{REPO}/issues/{number}#issuecomment-{cid}",
    }


def row(number: int, key: str, kind: str, at: str, **fields: Any) -> dict[str, Any]:
    return {
        "repo": REPO,
        "number": number,
        "event_key": key,
        "event": kind,
        "actor": fields.pop("actor", "maint"),
        "created_at": at,
        "canonical_repo": None,
        "canonical_number": None,
        "source": "graphql",
        "raw": "{}",
        **fields,
    }


def usable(tmp_path: Path, issues: list[dict], comments: list[dict], events: list[dict]) -> set:
    with Store.open(tmp_path / "s", create=True) as store:
        store.write_page(
            REPO,
            issues=issue_rows(REPO, issues),
            comments=comment_rows(REPO, comments),
            events=events,
        )
        store.upsert_repo(REPO, current_name=REPO, status="ok")
        table = build_links(store)
    return {(r["number"], r["target_number"]) for r in table.usable().iter_rows(named=True)}


CLOSED = {"state": "closed", "closed_at": "2025-01-01T10:01:00Z", "comments": 1}


def test_a_label_only_in_the_history_makes_a_pointer_the_target(tmp_path: Path) -> None:
    """onnxruntime relabelled in 2022: the duplicate label survives only as events; with a
    member's bare pointer it is the whole evidence."""
    events = [
        row(5, "L1", "labeled", "2025-01-01T10:01:00Z", label="duplicate"),
        row(5, "C1", "closed", "2025-01-01T10:01:00Z", state_reason="not_planned"),
        row(5, "U1", "unlabeled", "2025-06-01T00:00:00Z", label="duplicate", actor="sweeper"),
    ]
    issues = [issue(2), issue(5, **CLOSED)]
    assert usable(tmp_path / "a", issues, [comment(5, 1, "Please see #2")], events) == {(5, 2)}
    # the negative: the same pointer without any duplicate label in the history
    plain = [e for e in events if e["event"] == "closed"]
    assert usable(tmp_path / "b", issues, [comment(5, 1, "Please see #2")], plain) == set()


def test_a_label_removed_with_a_reopen_withdraws_the_close(tmp_path: Path) -> None:
    issues = [issue(2), issue(6, state="open", comments=1, state_reason="reopened")]
    said = [comment(6, 1, "Duplicate of #2")]
    marked = [
        row(6, "L1", "labeled", "2025-01-01T10:00:30Z", label="duplicate"),
        row(6, "C1", "closed", "2025-01-01T10:01:00Z"),
    ]
    withdrawn = [
        *marked,
        row(6, "U1", "unlabeled", "2025-01-02T09:00:00Z", label="duplicate"),
        row(6, "R1", "reopened", "2025-01-02T09:00:10Z"),
    ]
    assert usable(tmp_path / "a", issues, said, withdrawn) == set()
    # the negative: closed again as a duplicate after the reopen stands
    closed_again = [issue(2), issue(6, **{**CLOSED, "comments": 2}, state_reason="duplicate")]
    again = [*said, comment(6, 2, "Duplicate of #2 after all", at="2025-01-03T10:00:00Z")]
    assert usable(tmp_path / "b", closed_again, again, withdrawn) == {(6, 2)}


def test_a_mark_on_the_canonicals_timeline_is_evidence_for_the_duplicate(tmp_path: Path) -> None:
    """A close with only a label: the target is in the MarkedAsDuplicateEvent, stored here only
    as the canonical's timeline showed it. Read with its direction, #7 duplicates #2, and #2
    duplicates nothing."""
    mark = row(
        2,
        "MADE_1",
        "marked_as_duplicate",
        "2025-01-01T10:00:00Z",
        canonical_repo=REPO,
        canonical_number=2,
        duplicate_repo=REPO,
        duplicate_number=7,
    )
    issues = [issue(2, comments=0), issue(7, **{**CLOSED, "comments": 0}, state_reason="duplicate")]
    assert usable(tmp_path / "a", issues, [], [mark]) == {(7, 2)}
    # the negative: the mark taken back (the unmark shows on the canonical's timeline too)
    unmark = {**mark, "event_key": "UMDE_1", "event": "unmarked_as_duplicate"}
    unmark["created_at"] = "2025-01-02T10:00:00Z"
    assert usable(tmp_path / "b", issues, [], [mark, unmark]) == set()


BOT = "triage-bot[bot]"
TEMPLATE = "This issue is a duplicate of #2. Please refer to that issue for updates."


def test_a_closing_bot_acts_for_the_maintainers(tmp_path: Path) -> None:
    issues = [issue(2), issue(8, **CLOSED, state_reason="duplicate")]
    said = [comment(8, 1, TEMPLATE, login=BOT, assoc="NONE")]
    close = [row(8, "C1", "closed", "2025-01-01T10:01:00Z", actor=BOT, actor_type="Bot")]
    assert usable(tmp_path / "a", issues, said, close) == {(8, 2)}
    # REST-only: no event names the closer, but the declarative template comes with
    # state_reason: duplicate
    assert usable(tmp_path / "b", issues, said, []) == {(8, 2)}


def test_a_bot_that_only_suggests_is_not_a_maintainer(tmp_path: Path) -> None:
    issues = [issue(2), issue(9, **CLOSED, state_reason="completed")]
    said = [comment(9, 1, "Potential duplicates:\n- #2", login=BOT, assoc="NONE")]
    close = [row(9, "C1", "closed", "2025-01-01T10:01:00Z", actor="reporter")]
    assert usable(tmp_path, issues, said, close) == set()
