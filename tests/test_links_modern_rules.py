"""Rules from the errors of the modern rounds nv-1, nv-2 and nv-3 (neovim threads 2014-2026, each
read once it was scored): one small realistic thread per phenomenon, each positive next to a
negative that keeps its old reading."""

from __future__ import annotations

import pytest

from issues_sts.links import extract_thread_links
from issues_sts.links.model import Thread
from tests.links_helpers import c, canonical, thread

LABEL = ("closed:duplicate",)
IN_2023 = 60 * 24 * 365 * 8  # minutes after the helpers' 2015 start: GitHub records state_reason
LATER = IN_2023 + 60 * 24 * 400
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
        "'Duplicate of #N?' answered 'Indeed, but it's easier to continue here': the other goes",
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
        "... 'may have been resolved in #N' (a hedged fix) points at nothing",
        thread(
            c(
                "m",
                "May have been resolved in https://github.com/acme/widgets/pull/31.",
                "MEMBER",
                60,
            ),
            closed_minute=60,
            labels=LABEL,
        ),
        None,
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
    # -- from the errors of round nv-2 (scored once, then opened) --------------------------------
    (
        "an issue open again with state_reason 'reopened': its duplicate close was undone",
        thread(
            c("m", "Duplicate of #12", "MEMBER", 60),
            c("reporter", "That only covers the documentation, not the behaviour.", "NONE", 70),
            state="open",
            state_reason="reopened",
        ),
        None,
    ),
    (
        "... an open issue never closed keeps a maintainer's firm claim",
        thread(c("m", "Duplicate of #12", "MEMBER", 60), state="open"),
        12,
    ),
    (
        "a hedged claim, then a close as 'completed' years later: nobody acted on it",
        thread(
            c("reporter", "This issue is possibly a duplicate of #12.", "NONE", IN_2023),
            closed_by="m",
            state_reason="completed",
            closed_minute=LATER,
        ),
        None,
    ),
    (
        "... a firm claim by a maintainer stands however late the 'completed' close",
        thread(
            c("m", "Duplicate of #12", "MEMBER", IN_2023),
            closed_by="m",
            state_reason="completed",
            closed_minute=LATER,
        ),
        12,
    ),
    (
        "'I wouldn't say this is a duplicate of that' takes the earlier claim back",
        thread(
            c(
                "m1",
                "Related #12 (and many others, one of which may be a duplicate).",
                "MEMBER",
                60,
            ),
            c(
                "m2",
                "I wouldn't say this is a duplicate of #12. There's no way to do it now.",
                "MEMBER",
                70,
            ),
            state="open",
        ),
        None,
    ),
    (
        "'Is this really a duplicate of #N?' from a maintainer doubts the claim",
        thread(
            c("m1", "Duplicate of #12", "MEMBER", 60),
            c(
                "m2",
                "Is this really a duplicate of #12? The steps look completely different.",
                "MEMBER",
                70,
            ),
            closed_by="m2",
            state_reason="completed",
            closed_minute=80,
        ),
        None,
    ),
    (
        "the author's 'just saw #N, close due to duplicate'",
        thread(
            c(
                "reporter",
                "just saw this https://github.com/acme/widgets/issues/12, close due to duplicate",
                "NONE",
                60,
            ),
            closed_by="m",
            closed_minute=60,
            state_reason="duplicate",
        ),
        12,
    ),
    (
        "'also fixed by #F. Closing as duplicate.' after a suggestion: the suggestion, not the fix",
        thread(
            c(
                "reporter",
                "could be related to https://github.com/acme/widgets/issues/12",
                "NONE",
                60,
            ),
            c(
                "m",
                "Thanks. Yes; same underlying issue, also fixed by #13. Closing as duplicate.",
                "MEMBER",
                120,
            ),
            closed_by="m",
            closed_minute=120,
            state_reason="duplicate",
        ),
        12,
    ),
    (
        "... 'also see #N. Closing as duplicate.' names #N",
        thread(
            c("m", "Same underlying issue, see #13. Closing as duplicate.", "MEMBER", 120),
            closed_by="m",
            closed_minute=120,
            state_reason="duplicate",
        ),
        13,
    ),
    (
        "an untargeted 'Duplicate' does not point at another repository's issue in the body",
        thread(
            c("m", "Duplicate", "MEMBER", 60),
            body="I reported it here first: https://github.com/other/plugin/issues/387",
            closed_by="m",
            closed_minute=60,
            state_reason="duplicate",
        ),
        None,
    ),
    (
        "... it does point at this repository's issue the body names",
        thread(
            c("m", "Duplicate", "MEMBER", 60),
            body="This looks like https://github.com/acme/widgets/issues/12 again.",
            closed_by="m",
            closed_minute=60,
            state_reason="duplicate",
        ),
        12,
    ),
    (
        "nobody pointed before the duplicate close: a maintainer's 'See #N' hours later",
        thread(
            c("m1", "No. (Duplicate; please search closed issues first.)", "MEMBER", 60),
            c("m2", "See https://github.com/acme/widgets/issues/21", "MEMBER", 240),
            closed_by="m1",
            closed_minute=60,
            state_reason="not_planned",
            labels=LABEL,
        ),
        21,
    ),
    (
        "... days later it is another conversation",
        thread(
            c("m1", "No. (Duplicate; please search closed issues first.)", "MEMBER", 60),
            c("m2", "See https://github.com/acme/widgets/issues/21", "MEMBER", 60 * 24 * 5),
            closed_by="m1",
            closed_minute=60,
            state_reason="not_planned",
            labels=LABEL,
        ),
        None,
    ),
    (
        "a pointer naming a pull request and an issue points at the issue",
        thread(
            c(
                "m",
                "This was reverted by https://github.com/acme/widgets/pull/29, related "
                "https://github.com/acme/widgets/issues/28. Please continue there.",
                "MEMBER",
                60,
            ),
            closed_minute=60,
            labels=LABEL,
        ),
        28,
    ),
    # -- from the errors of round nv-3 (scored once, then opened) --------------------------------
    (
        "'#N looks similar but it's not necessarily a duplicate' takes a suggestion back",
        thread(
            c("m", "I think this is a duplicate of #12?", "MEMBER", 60),
            c(
                "reporter",
                "#12 looks similar but it's not necessarily a duplicate: the second "
                "server is never asked.",
                "NONE",
                70,
            ),
            closed_by="m",
            state_reason="completed",
            closed_minute=90_000,
        ),
        None,
    ),
    (
        "'Same as #N. Please close one of them as duplicate.' says no direction",
        thread(
            c(
                "m",
                "Same as #12. Depending on which has more useful info, please close one of "
                "them as duplicate.",
                "MEMBER",
                60,
            ),
            state_reason="completed",
        ),
        None,
    ),
    (
        "... 'Same as #N, please close this one as duplicate.' does",
        thread(
            c("m", "Same as #12, closing this one as a duplicate.", "MEMBER", 60),
            closed_by="m",
            closed_minute=60,
        ),
        12,
    ),
    (
        "'No, that's the opposite issue.' then 'Actually it can still count as a duplicate.'",
        thread(
            c("u", "see #12", "NONE", 60),
            c("reporter", "ok, it's a duplicate", "NONE", 70),
            c("m", "No, that's like an opposite issue.", "MEMBER", 71),
            c("m", "Actually it can still count as a duplicate.", "MEMBER", 72),
            closed_minute=72,
            labels=LABEL,
        ),
        12,
    ),
    (
        "... without the second thought the 'No' stands",
        thread(
            c("u", "see #12", "NONE", 60),
            c("reporter", "ok, it's a duplicate", "NONE", 70),
            c("m", "No, that's like an opposite issue.", "MEMBER", 71),
            state_reason="completed",
        ),
        None,
    ),
    (
        "the closer quoting the line that names #N points at it",
        thread(
            c(
                "m",
                "> I can reproduce the abort as described in "
                "https://github.com/acme/widgets/issues/18\n\nNo need to open a second issue "
                "for it.",
                "MEMBER",
                60,
            ),
            closed_minute=60,
            state_reason="duplicate",
        ),
        18,
    ),
    (
        "... a quote when the closer names another issue of their own: their own",
        thread(
            c(
                "m",
                "> as described in https://github.com/acme/widgets/issues/18\n\nSee "
                "https://github.com/acme/widgets/issues/19",
                "MEMBER",
                60,
            ),
            closed_minute=60,
            state_reason="duplicate",
        ),
        19,
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
