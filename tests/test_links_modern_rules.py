"""Rules from the errors of the modern dev round nv-1 (neovim threads 2014-2026, read once
scored): one small realistic thread per phenomenon, each positive next to a negative that
keeps its old reading."""

from __future__ import annotations

import pytest

from issues_sts.links import extract_thread_links
from issues_sts.links.model import Thread
from tests.links_helpers import c, canonical, thread

LABEL = ("closed:duplicate",)
UPSTREAM = "https://github.com/editorconfig/editorconfig/issues/475#issuecomment-1"

CASES: list[tuple[str, Thread, tuple[str, int] | int | None]] = [
    (
        "'I assume this is a duplicate of #N' in an open issue is a guess nobody acted on",
        thread(
            c(
                "m",
                "I assume this is a duplicate of #12. I used that issue as the parent.",
                "MEMBER",
                60,
            ),
            state="open",
        ),
        None,
    ),
    (
        "... 'This is a duplicate of #N' in the same open issue is said firmly",
        thread(c("m", "This is a duplicate of #12.", "MEMBER", 60), state="open"),
        12,
    ),
    (
        "'either not supported, a duplicate of #N, or blocked by #M' is one possibility of three",
        thread(
            c(
                "m",
                "Closing as this is either not supported, a duplicate of #12, or blocked by #13.",
                "MEMBER",
                60,
            ),
            closed_by="m",
            closed_minute=60,
            state_reason="not_planned",
        ),
        None,
    ),
    (
        "... 'Closing as a duplicate of #N' is not",
        thread(
            c("m", "Closing as a duplicate of #12, blocked by #13 anyway.", "MEMBER", 60),
            closed_by="m",
            closed_minute=60,
        ),
        12,
    ),
    (
        "'Duplicate of #N?' answered 'Indeed, but it's easier to continue here': the other one goes",
        thread(
            c("m1", "Duplicate of #12?", "MEMBER", 60),
            c(
                "m2",
                "Indeed, but I think it's easier to continue here rather than move the "
                "information over.",
                "MEMBER",
                65,
            ),
        ),
        None,
    ),
    (
        "... answered 'Indeed.' it stands",
        thread(
            c("m1", "Duplicate of #12?", "MEMBER", 60),
            c("m2", "Indeed.", "MEMBER", 65),
            closed_by="m2",
            closed_minute=65,
        ),
        12,
    ),
    (
        "'essentially #A (duplicate of #B)' says what #A is: the label points at #A",
        thread(
            c(
                "m",
                "This is what is essentially https://github.com/acme/widgets/issues/12 "
                "(duplicate of https://github.com/acme/widgets/issues/13 ).",
                "MEMBER",
                60,
            ),
            closed_minute=60,
            labels=LABEL,
        ),
        12,
    ),
    (
        "... 'essentially #A, duplicate of #B' names #B",
        thread(
            c("m", "This is essentially #12, a duplicate of #13.", "MEMBER", 60),
            closed_minute=60,
            labels=LABEL,
        ),
        13,
    ),
    (
        "the author's '#N does not have this issue' takes a hedged suggestion back",
        thread(
            c("m", "Possible duplicate of #12", "MEMBER", 60),
            c(
                "reporter",
                "This is similar to #12. But #12 does not have this issue: the text "
                "moves to the right here.",
                "NONE",
                70,
            ),
            state_reason="completed",
        ),
        None,
    ),
    (
        "... the author's 'yes, #N has this issue too' does not",
        thread(
            c("m", "Possible duplicate of #12", "MEMBER", 60),
            c("reporter", "Yes, #12 has this issue too.", "NONE", 70),
            closed_by="m",
            closed_minute=80,
        ),
        12,
    ),
    (
        "the author's '#N does not sound like a duplicate of this issue' disputes it",
        thread(
            c("m", "Duplicate of #12", "MEMBER", 60),
            c(
                "reporter",
                "Reviewing that thread, #12 does not sound like a duplicate of this "
                "issue. Can we reopen this?",
                "NONE",
                70,
            ),
            state_reason="not_planned",
        ),
        None,
    ),
    (
        "with a duplicate label, a pointer naming an upstream issue and a local one: the local one",
        thread(
            c(
                "m",
                f"Upstream does not agree: {UPSTREAM}\n\nTracked in "
                "https://github.com/acme/widgets/issues/21",
                "MEMBER",
                60,
            ),
            closed_minute=60,
            labels=LABEL,
        ),
        21,
    ),
    (
        "... naming only the upstream issue: that one",
        thread(
            c("m", f"Upstream does not agree: {UPSTREAM}", "MEMBER", 60),
            closed_minute=60,
            labels=LABEL,
        ),
        ("editorconfig/editorconfig", 475),
    ),
    (
        "a maintainer's pointer ten minutes after the duplicate close is its target",
        thread(
            c("m", "The larger topic here is #5.", "MEMBER", 60),
            c("m", "see https://github.com/acme/widgets/issues/33", "MEMBER", 10_010),
            closed_minute=10_000,
            state_reason="duplicate",
        ),
        33,
    ),
    (
        "... one two days later is not",
        thread(
            c("m", "The larger topic here is #5.", "MEMBER", 60),
            c("m", "see https://github.com/acme/widgets/issues/33", "MEMBER", 12_880),
            closed_minute=10_000,
            state_reason="duplicate",
        ),
        5,
    ),
    (
        "with a duplicate label, 'already fixed by #N' is the only pointer: the fix",
        thread(
            c("m", "already fixed by https://github.com/acme/widgets/pull/31", "MEMBER", 60),
            closed_minute=60,
            labels=LABEL,
        ),
        31,
    ),
    (
        "... without one it points at nothing",
        thread(
            c("m", "already fixed by https://github.com/acme/widgets/pull/31", "MEMBER", 60),
            closed_minute=60,
        ),
        None,
    ),
]


@pytest.mark.parametrize(("case", "th", "expected"), CASES, ids=[c[0] for c in CASES])
def test_phenomenon(case: str, th: Thread, expected: tuple[str, int] | int | None) -> None:
    link = canonical(extract_thread_links(th))
    if expected is None:
        assert link is None, f"{case}: {link}"
        return
    target = expected if isinstance(expected, tuple) else ("acme/widgets", expected)
    assert link is not None, case
    assert (link.target_repo, link.target_number) == target, case
