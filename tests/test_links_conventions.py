"""Issue 32's conventions of the 55 repositories, from both sides: a triage bot that states the
duplicate and closes, a team member's consolidation at the close, and old tracker numbers in
threads migrated to GitHub. Every thread here is written for this test (none is copied from a
real one); each convention stands next to the near misses that must not count."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from issues_sts.crawl.candidates import has_duplicate_wording
from issues_sts.crawl.rows import comment_rows, issue_rows
from issues_sts.evidence.migration import (
    HEADER_FORMS,
    comment_was_migrated,
    old_number,
    ticket_of,
)
from issues_sts.links import (
    LinkConfig,
    LinkConsumer,
    LinkTable,
    build_links,
    extract_thread,
    extract_thread_links,
)
from issues_sts.links.model import Post, Signal, Thread
from issues_sts.passes import read_part
from issues_sts.store import Store
from tests.links_helpers import REPO, c, canonical, ev, thread

BOT = "triage-helper[bot]"
URL12 = f"https://github.com/{REPO}/issues/12"
STATES = "This issue is a duplicate of {url}. Please refer to that issue for updates."
LATER = 60 * 24 * 60  # two months, in minutes


def _bot_thread(text: str, *, minute: float = 60, **kw: Any) -> Thread:
    kw.setdefault("closed_by", BOT)
    kw.setdefault("closed_minute", minute + 0.1)
    return thread(c(BOT, text, "NONE", minute), **kw)


def _at_close(text: str, author: str = "m", assoc: str = "MEMBER") -> Thread:
    """`text` said an hour after the issue opened, a minute before the member `m` closes it."""
    return thread(c(author, text, assoc, 60), closed_by="m", closed_minute=61)


# (case, thread, expected target, the signal or drop counter expected)
BOT_CASES: list[tuple[str, Thread, int | None, str]] = [
    (
        "the bot states the duplicate and closes it as a duplicate seconds later",
        _bot_thread(STATES.format(url=URL12), state_reason="duplicate"),
        12,
        "bot_close",
    ),
    (
        "... its close reads not planned (vscode closes duplicates so)",
        _bot_thread(STATES.format(url=URL12), state_reason="not_planned"),
        12,
        "bot_close",
    ),
    (
        "... the close event says not planned, the issue's own state_reason duplicate: the issue's",
        _bot_thread(
            STATES.format(url=URL12),
            state_reason="duplicate",
            events=(ev("closed", None, BOT, 60.1),),
        ),
        12,
        "bot_close",
    ),
    (
        "... a known triage account without the [bot] suffix, whatever its letters' case",
        thread(
            c("VsCodeTriageBot", STATES.format(url="#12"), "NONE", 60),
            closed_by="VsCodeTriageBot",
            closed_minute=60.05,
            state_reason="not_planned",
        ),
        12,
        "bot_close",
    ),
    (
        "... a meta issue the bot points at, asking to follow it there",
        _bot_thread(
            f"Please look at the following meta issue: {URL12}. Please refer to that issue for"
            " updates and discussions.",
            state_reason="not_planned",
        ),
        12,
        "bot_close",
    ),
    (
        "... the bot commented a second after its close",
        _bot_thread("Closed as a duplicate of #12.", minute=60, closed_minute=59.99),
        12,
        "bot_close",
    ),
    (
        "the team's '/duplicate of #N' and the bot's generic close: the command, as today",
        thread(
            c("triager", "/duplicate of #12", "CONTRIBUTOR", 60),
            c(
                BOT,
                "Thanks for the report! It covers the same ground as an existing issue, so we"
                " closed it as a duplicate.",
                "NONE",
                60.1,
            ),
            closed_by=BOT,
            closed_minute=60.1,
            labels=("*duplicate",),
            state_reason="not_planned",
        ),
        12,
        "slash_command",
    ),
    (
        "a maintainer's 'duplicate_of #N' command, which the triage bot acts on by closing",
        thread(
            c("m", "duplicate_of #12", "MEMBER", 60),
            closed_by="triage-account",
            closed_minute=61,
        ),
        12,
        "slash_command",
    ),
    (
        "a team member's '/dup <url>', the bot's close, a bystander's 'not a duplicate' months"
        " later: the command stands (the tooling acts only on the team's commands)",
        thread(
            c("triager", f"/dup {URL12}", "CONTRIBUTOR", 60),
            c(
                "bystander",
                f"This is not a duplicate of {URL12}, mine is another menu.",
                "NONE",
                LATER,
            ),
            c("reporter", "A workaround that helped me: restart it twice.", "NONE", LATER + 60),
            closed_by=BOT,
            closed_minute=60.1,
            state_reason="not_planned",
        ),
        12,
        "slash_command",
    ),
    # -- near misses -------------------------------------------------------------------------
    (
        "a '/dup #N' on an issue left open, then a bystander's 'not a duplicate of #N': no link",
        thread(
            c("someone", "/dup #12", "NONE", 60),
            c("bystander", "This is not a duplicate of #12, it is another menu.", "NONE", 90),
            state="open",
        ),
        None,
        "dropped:negated",
    ),
    (
        "a '/dup #N', the bot's close, then the issue's author shows it is not a duplicate of #N"
        " and a member agrees: taken back",
        thread(
            c("triager", "/dup #12", "CONTRIBUTOR", 60),
            c(
                "reporter",
                "This is not a duplicate of #12: that one is about the menu.",
                "NONE",
                90,
            ),
            closed_by="m",
            closed_minute=120,
            state_reason="completed",
        ),
        None,
        "dropped:negated",
    ),
    (
        "a suggestion bot's 'may be a duplicate of #N' on an issue a maintainer closed as done",
        thread(
            c(BOT, "This issue may be a duplicate of #12.", "NONE", 60),
            closed_by="m",
            closed_minute=9000,
            state_reason="completed",
        ),
        None,
        "dropped:bot_suggestion",
    ),
    (
        "a bot's list of possible duplicates, though it closes the issue right after",
        _bot_thread("Possible duplicates:\n- #12\n- #13", state_reason="not_planned"),
        None,
        "dropped:bot_suggestion",
    ),
    (
        "the bot's statement, then a reopen: the issue is open again",
        _bot_thread(
            STATES.format(url="#12"),
            state="open",
            state_reason="reopened",
            closed_by=None,
            events=(ev("closed", None, BOT, 60.1), ev("reopened", None, "m", 300)),
        ),
        None,
        "dropped:bot_suggestion",
    ),
    (
        "the bot's statement, a reopen, and a maintainer's later close as done",
        _bot_thread(
            STATES.format(url="#12"),
            closed_by="m",
            closed_minute=LATER,
            state_reason="completed",
            events=(ev("closed", None, BOT, 60.1), ev("reopened", None, "m", 300)),
        ),
        None,
        "dropped:bot_suggestion",
    ),
    (
        "the bot's statement quoted by a person in a new report: the person's issue",
        thread(
            c("reporter", "Filing this again as asked.", "NONE", 5),
            body=f"> {STATES.format(url=URL12)}\n\n_Originally posted by @triage-helper in #9_"
            "\n\nThe bot was wrong: this is another problem.",
            state="open",
        ),
        None,
        "dropped:in_code_quote_or_comment",
    ),
    (
        "a bot closing for inactivity, though its words name a possible duplicate",
        _bot_thread(
            "This issue was closed because it has been inactive for 60 days. It might be a"
            " duplicate of #12.",
            state_reason="not_planned",
        ),
        None,
        "dropped:bot_suggestion",
    ),
    (
        "a bot's firm statement, then its close two months later (for inactivity)",
        _bot_thread(STATES.format(url="#12"), closed_minute=LATER, state_reason="not_planned"),
        None,
        "dropped:bot_suggestion",
    ),
]

CONSOLIDATION_CASES: list[tuple[str, Thread, int | None, str]] = [
    (
        "a member consolidates into a tracking issue and closes",
        _at_close("Consolidating to tracking issue #12."),
        12,
        "consolidation",
    ),
    (
        "... 'this is tracked in #N, closing' by the member who closes",
        _at_close("This is tracked in #12, closing."),
        12,
        "consolidation",
    ),
    (
        "... 'closing in favour of the tracking issue #N'",
        _at_close("Closing in favour of the tracking issue #12.", "m", "OWNER"),
        12,
        "consolidation",
    ),
    (
        "... a collaborator's 'let's continue to track this in #N', another member closes",
        thread(
            c("col", "Let's continue to track this in #12.", "COLLABORATOR", 60),
            closed_by="m",
            closed_minute=65,
        ),
        12,
        "consolidation",
    ),
    (
        "... a triager's duplicate close 'since it's already tracked on <url>' (no label)",
        _at_close(f"Closing as a duplicate, since it’s already tracked on {URL12} ."),
        12,
        "consolidation",
    ),
    (
        "... the member's words a few minutes after the close",
        thread(c("m", "Consolidating into #12.", "MEMBER", 70), closed_by="m", closed_minute=61),
        12,
        "consolidation",
    ),
    (
        "a plain 'closing in favour of #N' by a contributor is read as today",
        _at_close("Closing in favour of #12.", "u", "CONTRIBUTOR"),
        12,
        "comment_wording",
    ),
    (
        "... 'in favour of the tracking issue #N' away from the close: today's 'in favour of'",
        thread(
            c("u", "Closing in favour of the tracking issue #12.", "CONTRIBUTOR", 60),
            closed_by="m2",
            closed_minute=60 * 24 * 30,
        ),
        12,
        "comment_wording",
    ),
    # -- near misses -------------------------------------------------------------------------
    (
        "the same words from someone outside the team who did not close it",
        _at_close("Consolidating into #12.", "u", "CONTRIBUTOR"),
        None,
        "dropped:consolidation_not_by_team",
    ),
    (
        "a member's words a month before the close",
        thread(
            c("m", "Consolidating into #12.", "MEMBER", 60),
            closed_by="m",
            closed_minute=60 * 24 * 30,
        ),
        None,
        "dropped:consolidation_away_from_close",
    ),
    (
        "a member's words a day after the close",
        thread(
            c("m", "Consolidating into #12.", "MEMBER", 61 + 60 * 24),
            closed_by="m",
            closed_minute=61,
        ),
        None,
        "dropped:consolidation_away_from_close",
    ),
    (
        "'consolidating into #N' on an issue that stays open",
        thread(c("m", "Consolidating into #12.", "MEMBER", 60), state="open"),
        None,
        "dropped:consolidation_issue_open",
    ),
    (
        "'this is tracked in #N' on an issue that stays open",
        thread(c("m", "This is tracked in #12.", "MEMBER", 60), state="open"),
        None,
        "",
    ),
    (
        "'it's tracked on our board' at the close: no issue named, no link",
        _at_close("Closing as a duplicate, it's tracked on our internal board."),
        None,
        "",
    ),
    (
        "'it's tracked on #N and #M' at the close: two issues, neither is the one",
        _at_close("Closing, it's tracked on #12 and #13."),
        None,
        "",
    ),
    (
        "'it's tracked on <url>' from someone outside the team who did not close it",
        _at_close(f"I think it's tracked on {URL12}.", "u", "NONE"),
        None,
        "",
    ),
    (
        "'I will close this and its duplicate (<url>)': the other issue is this one's copy",
        _at_close(f"I will close this and its duplicate ({URL12}) for now."),
        None,
        "dropped:reverse_wording",
    ),
    (
        "... but 'it's duplicate of <url>' (a typo for 'it's a duplicate of') is this one's claim",
        _at_close(f"Closing, its duplicate of {URL12}."),
        12,
        "maintainer_wording",
    ),
    (
        "'related to #N' at the close",
        _at_close("Related to #12."),
        None,
        "",
    ),
    (
        "'see also #N' at the close",
        _at_close("See also #12."),
        None,
        "",
    ),
]


@pytest.mark.parametrize(
    ("case", "th", "expected", "counted"),
    BOT_CASES + CONSOLIDATION_CASES,
    ids=[case[0] for case in BOT_CASES + CONSOLIDATION_CASES],
)
def test_convention(case: str, th: Thread, expected: int | None, counted: str) -> None:
    reading = extract_thread(th)
    link = canonical(reading.links)
    if expected is None:
        assert link is None, f"{case}: {link}"
        assert not counted or reading.counters[counted] >= 1, reading.counters
        return
    assert link is not None, f"{case}: {reading.counters}"
    assert (link.target_number, link.signal) == (expected, counted), case


def test_the_new_signals_carry_targets_and_their_own_weights() -> None:
    cfg = LinkConfig(w_bot_close=0.0, w_consolidation=0.0)
    bot = extract_thread(BOT_CASES[1][1], cfg).links[0]
    member = extract_thread(CONSOLIDATION_CASES[0][1], cfg).links[0]
    default_bot = extract_thread(BOT_CASES[1][1]).links[0]
    assert Signal.BOT_CLOSE.value in bot.signals and Signal.CONSOLIDATION.value in member.signals
    assert bot.confidence < default_bot.confidence  # the weight is the rule's own


@pytest.mark.parametrize(
    "text",
    [
        STATES.format(url=URL12),
        f"Please look at the following meta issue: {URL12}. Please refer to that issue for"
        " updates.",
        "Consolidating to tracking issue #12.",
        "Closing in favour of the tracking issue #12.",
        "_@alice wrote on 2009-05-01_\n\nClosing as a duplicate of ticket 18.",
        "_@alice wrote on 2009-05-01_\n\nDuplicate of http://trac.example.org/widgets/ticket/18",
    ],
)
def test_the_crawl_screen_sees_every_new_shape(text: str) -> None:
    assert has_duplicate_wording(text)  # the crawl asks these threads' timelines


# a bare "/duplicate" line under words naming the issue it duplicates (vscode's triagers)
ROOT_CAUSE = f"It will be faster in the next release, but the root cause is {URL12}\n\n/duplicate"
COMMAND_CASES: list[tuple[str, Thread, int | None]] = [
    ("a member's bare command under the issue it names, then the close", _at_close(ROOT_CAUSE), 12),
    (
        "... by someone shown as a plain contributor, the author closing later",
        thread(
            c("tri", ROOT_CAUSE, "NONE", 60),
            c("reporter", "Confirmed, it is faster now. Thanks.", "NONE", 70),
            closed_by="reporter",
            closed_minute=70,
        ),
        12,
    ),
    ("the command with no issue named", _at_close("Thanks for the report.\n\n/duplicate"), None),
    ("two issues named: which one?", _at_close(f"Either {URL12} or #13.\n\n/duplicate"), None),
    ("only the fix named", _at_close(f"This was fixed by {URL12}\n\n/duplicate"), None),
    (
        "words after the command",
        _at_close(f"See {URL12}\n/duplicate of the crash in the parser"),
        None,
    ),
    (
        "nobody acted on it: still open",
        thread(c("tri", ROOT_CAUSE, "NONE", 60), state="open"),
        None,
    ),
]


@pytest.mark.parametrize(
    ("case", "th", "expected"), COMMAND_CASES, ids=[k[0] for k in COMMAND_CASES]
)
def test_a_bare_command_takes_the_issue_its_comment_names(
    case: str, th: Thread, expected: int | None
) -> None:
    link = canonical(extract_thread_links(th))
    assert (link.target_number if link else None) == expected, case
    assert link is None or link.signal == Signal.SLASH_COMMAND.value


# from conv-5's errors: a command that confirms a pointer, a maintainer's "This is #N", and an
# author's "No, I couldn't make it work" that answers a question about the problem
def _answered(reply: str) -> Thread:
    """A helper asks whether the problem is solved, a developer says "Duplicate of <url>", and the
    reporter's `reply` is the last word (they close the issue with it)."""
    return thread(
        c("helper", "Did you manage to solve the issue with the latest release?", "NONE", 50),
        c("dev", f"Duplicate of {URL12}", "NONE", 60),
        c("reporter", reply, "NONE", 70),
        closed_by="reporter",
        closed_minute=70,
    )


def _took_back(
    who: str, reply: str = "I take it back, I am not sure what is going on yet."
) -> Thread:
    """The member `m` says "This is #12.", then `who` says `reply`; `m` closes the issue later."""
    return thread(
        c("m", "This is #12. The cause is the same.", "MEMBER", 60),
        c(who, reply, "MEMBER", 61),
        closed_by="m",
        closed_minute=LATER,
    )


def _sounds_like(reply: Post, closer: str = "reporter") -> Thread:
    """A bystander's "This sounds like the tab tear-off feature described in #12.", then `reply`;
    `closer` closes the issue (the reporter right after, anyone else two months later)."""
    return thread(
        c("bystander", "This sounds like the tab tear-off feature described in #12.", "NONE", 50),
        reply,
        closed_by=closer,
        closed_minute=60.5 if closer == "reporter" else LATER,
    )


CONV5_CASES: list[tuple[str, Thread, int | None]] = [
    (
        "a bystander's pointer, then a triager's untargeted command",
        thread(
            c("bystander", "See #12, duplicate", "NONE", 50),
            c("tri", "/duplicate - thanks @bystander, triggering the bot.", "NONE", 60),
            closed_by="tri",
            closed_minute=60.1,
        ),
        12,
    ),
    ("the untargeted command alone", _at_close("/duplicate - thanks for the report."), None),
    ("a maintainer's bare 'This is #N'", _at_close("This is #12"), 12),
    # conv-8: "This one is #N." after a word on searching first
    (
        "a maintainer's 'This one is #N.'",
        _at_close("Please search for existing issues before filing. This one is #12."),
        12,
    ),
    # the rust archive's shape that kept "This is #N" unread until the take-back was read
    ("'This is #N', then the same person's 'I take it back'", _took_back("m"), None),
    (
        "... 'Hmm, actually, I could be mistaken.'",
        _took_back("m", "Hmm, actually, I could be mistaken."),
        None,
    ),
    ("... said by someone else, it withdraws nothing", _took_back("other"), 12),
    (
        "... 'I could be wrong, but' hedges what follows, not the claim before",
        _took_back("m", "I could be wrong, but the second crash looks like the same one."),
        12,
    ),
    ("'This is #N's fault'", _at_close("This is #12's fault, not ours."), None),
    # conv-12's fish-shell miss: "@Campano," was read as "No," (the mention's login split)
    (
        "a mention of a login ending in 'no' is no 'No,'",
        _at_close(
            "Yes, I think it's #12, so I'm going to close this as a duplicate. @Bruno, this"
            " should be fixed in the next release."
        ),
        12,
    ),
    (
        "... while '@Bruno no, ...' still answers no",
        _answered("@Bruno no, it is a different crash."),
        None,
    ),
    # conv-8: a bystander's pointer to the feature another issue describes, the author's yes
    (
        "'sounds like the feature described in #N', the author agrees and closes",
        _sounds_like(c("reporter", "Indeed it does. I searched for other words.", "NONE", 60)),
        12,
    ),
    (
        "... a maintainer answers no",
        _sounds_like(c("m", "No, that one is about the editor's tabs.", "MEMBER", 55), "m"),
        None,
    ),
    (
        "... 'would solve this': what would help, not what this is",
        _at_close("It sounds like the feature described in #12 would solve this."),
        None,
    ),
    (
        "'a duplicate of the following issue', its link after a sentence about it",
        _at_close(
            "This is a duplicate of the following issue, which has a workaround and is in our"
            f" backlog. Thanks! {URL12}"
        ),
        12,
    ),
    ("... asked", _at_close(f"Is this a duplicate of the following issue? {URL12}"), None),
    ("... denied", _at_close(f"This is not a duplicate of the following issue: {URL12}"), None),
    (
        "'No, I couldn't make it work' under a claim answers the earlier question",
        _answered("No, I couldn't seem to make it work, but it can wait."),
        12,
    ),
    (
        "'No, it is a different crash' under the claim still disagrees",
        _answered("No, it is a different crash."),
        None,
    ),
]


@pytest.mark.parametrize(("case", "th", "expected"), CONV5_CASES, ids=[k[0] for k in CONV5_CASES])
def test_conv5_shapes(case: str, th: Thread, expected: int | None) -> None:
    link = canonical(extract_thread_links(th))
    assert (link.target_number if link else None) == expected, case


# -- migrated trackers -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("form", "text", "key"),
    [(f.name, text, key) for f in HEADER_FORMS for text, key in f.examples],
)
def test_migration_headers_name_the_old_ticket(form: str, text: str, key: str) -> None:
    title, body = _title_and_body(form, text)
    assert ticket_of(body + "\n\nIt crashes when the widget is resized.", title) == key, form


@pytest.mark.parametrize(
    ("form", "text"), [(f.name, t) for f in HEADER_FORMS for t in f.near_misses]
)
def test_header_like_sentences_are_not_headers(form: str, text: str) -> None:
    assert ticket_of(*reversed(_title_and_body(form, text))) is None


def _title_and_body(form: str, text: str) -> tuple[str | None, str]:
    """A form that reads the title writes its examples "title\nbody"."""
    if next(f for f in HEADER_FORMS if f.name == form).title is None:
        return None, text
    title, _, body = text.partition("\n")
    return title, body


def test_copied_comments_are_told_from_comments_written_on_github() -> None:
    assert comment_was_migrated("_@alice wrote on 2009-05-01_\n\nStill fails.")
    assert comment_was_migrated("_trac user bob wrote on 2009-05-01_\n\nSee ticket:18.")
    assert not comment_was_migrated("I wrote on 2009-05-01 to the list, see #18.")


TRAC = "http://trac.example.org/widgets/ticket/{}"
MIGRATED_AT = "2012-10-19T10:00:00Z"


def _issue(number: int, body: str, login: str = "widgets-importer", **kw: Any) -> dict[str, Any]:
    return {
        "number": number,
        "id": 5000 + number,
        "title": f"Issue {number}",
        "body": body,
        "user": {"login": login},
        "author_association": "NONE",
        "state": kw.get("state", "closed"),
        "state_reason": None,
        "labels": [],
        "comments": 1,
        "created_at": kw.get("created", MIGRATED_AT),
        "updated_at": "2014-01-01T00:00:00Z",
        "closed_at": kw.get("closed", MIGRATED_AT),
        "closed_by": {"login": kw.get("closed_by", "widgets-importer")},
        "html_url": f"https://github.com/{REPO}/issues/{number}",
    }


def _header(ticket: int) -> str:
    return f"_Original ticket {TRAC.format(ticket)} on 2009-05-01 by trac user alice._\n\n"


def _comment(number: int, cid: int, body: str, login: str = "widgets-importer", **kw: Any) -> Any:
    created = kw.get("created", MIGRATED_AT)
    return {
        "id": cid,
        "issue_url": f"https://api.github.com/repos/{REPO}/issues/{number}",
        "user": {"login": login},
        "author_association": kw.get("assoc", "NONE"),
        "body": body,
        "created_at": created,
        "updated_at": created,
        "html_url": f"https://github.com/{REPO}/issues/{number}#issuecomment-{cid}",
    }


COPIED = "_@bob wrote on 2009-06-02_\n\n"


@pytest.fixture()
def migrated(tmp_path: Path) -> Store:
    """A repository migrated from trac: GitHub #101..#105 carry tickets 18..22; #18 and #77 are
    GitHub issues of their own (the numbers a naive reader would link to)."""
    store = Store.open(tmp_path / "store", create=True)
    gh_era = {"login": "m", "assoc": "MEMBER", "created": "2014-01-01T00:00:00Z"}
    issues = [
        _issue(18, "A GitHub-era report about the toolbar.", login="someone"),
        _issue(77, "A GitHub-era report about fonts.", login="someone"),
        _issue(101, _header(18) + "Resizing crashes."),
        _issue(102, _header(19) + "Resizing the window crashes."),
        _issue(103, _header(20) + "Fonts render blurry."),
        _issue(104, "Resizing crashes on the new release.", login="someone"),
        _issue(105, _header(21) + "Crash on resize, again."),
        _issue(106, _header(22) + "The toolbar flickers."),
        _issue(107, "Toolbar bug.", login="someone"),
        _issue(108, _header(23) + "The toolbar flickers on resize."),
        _issue(109, _header(24) + "Fonts blur on resize."),
        _issue(110, _header(25) + "The window flickers."),
    ]
    comments = [
        _comment(102, 1, COPIED + "Duplicate of #18."),  # ticket 18 = GitHub #101
        _comment(103, 2, COPIED + "Closing as a duplicate of ticket 77."),  # no ticket 77
        _comment(104, 3, "Duplicate of #18", **gh_era),  # GitHub's #18
        _comment(105, 4, "Duplicate of #101", **gh_era),  # written on GitHub: GitHub's #101
        _comment(106, 5, COPIED + f"dup of {TRAC.format(19)}"),  # a trac URL: GitHub #102
        # trac's own link syntax, under another copied-comment header, by another account
        _comment(108, 7, "_trac user carol wrote on 2009-07-01_\n\nDuplicate of ticket:22", "x"),
        # a migration that rewrote its references as links to the GitHub issues they became
        # (twisted's, 2022): the link is GitHub's, whatever its text (#77 here; #103 where the
        # text kept the old "#18"); the reader takes a markdown link's URL
        _comment(109, 8, COPIED + f"Duplicate of [#77](https://github.com/{REPO}/issues/77)."),
        _comment(110, 9, COPIED + f"dup of [#18](https://github.com/{REPO}/issues/103)"),
        # a header-like sentence in an ordinary comment: #107 is not migrated, "#18" is GitHub's
        _comment(107, 6, f"The original ticket is lost. Duplicate of #18, see {TRAC.format(3)}"),
    ]
    store.write_page(REPO, issues=issue_rows(REPO, issues), comments=comment_rows(REPO, comments))
    return store


EXPECTED = {
    102: (101, True),  # mapped through #101's header
    104: (18, True),  # GitHub-era thread: read as today
    105: (101, True),  # GitHub-era comment in a migrated thread
    106: (102, True),
    107: (18, True),
    108: (106, True),
    109: (77, True),  # a link to a GitHub issue in copied words
    110: (103, True),
}


def _targets(links: pl.DataFrame) -> dict[int, tuple[int, bool]]:
    return {
        row["number"]: (row["target_number"], row["usable"])
        for row in links.iter_rows(named=True)
        if row["usable"] or row["excluded_reason"] == "unmapped_old_ticket"
    }


def test_old_numbers_are_mapped_through_the_headers(migrated: Store) -> None:
    table = build_links(migrated, LinkConfig())
    targets = _targets(table.links)
    assert {k: v for k, v in targets.items() if v[1]} == EXPECTED
    unmapped = table.links.filter(pl.col("excluded_reason") == "unmapped_old_ticket")
    assert unmapped["number"].to_list() == [103]  # never read as GitHub's #77
    assert table.counters["dropped:unmapped_old_ticket"] == 1
    assert table.counters["mapped_old_ticket"] == 3
    mapped = table.links.filter(pl.col("number") == 102).row(0, named=True)
    assert Signal.OLD_TICKET.value in mapped["signals"]


def test_a_mantis_import_keeps_its_ticket_in_the_title(tmp_path: Path) -> None:
    """tine20's Mantis import (conv-11): the old id opens the title ("0000018: ..."), the body
    opens with the reporter's line and a copied comment with its poster's. "duplicate of #18"
    there is Mantis bug 18 (GitHub #101), not GitHub's #18; the same words in an issue of the
    GitHub era, or under a title without the id, are GitHub's."""
    reported = "**Reported by alice on 15 Mar 2012 15:40**\n\n"
    posted = "**Comment posted by bob on 22 Aug 2012 09:17**\n\n"
    issues = [
        _issue(18, "A GitHub-era report about the toolbar.", login="someone"),
        {**_issue(101, reported + "Import of contacts crashes."), "title": "0000018: import"},
        {**_issue(102, reported + "Allow skipping the check."), "title": "0000019: checks"},
        {**_issue(103, reported + "Fonts blur."), "title": "Fonts blur (no id kept)"},
        _issue(104, "Importing crashes again.", login="someone"),
    ]
    comments = [
        _comment(102, 1, posted + "duplicate of #18"),
        _comment(103, 2, posted + "duplicate of #18"),
        _comment(104, 3, "Duplicate of #18", login="m", assoc="MEMBER"),
    ]
    with Store.open(tmp_path / "store", create=True) as store:
        store.write_page(
            REPO, issues=issue_rows(REPO, issues), comments=comment_rows(REPO, comments)
        )
        table = build_links(store, LinkConfig())
    targets = {k: v for k, v in _targets(table.links).items() if v[1]}
    assert targets == {102: (101, True), 103: (18, True), 104: (18, True)}
    assert table.counters["mapped_old_ticket"] == 1


def test_the_map_spans_parts(migrated: Store) -> None:
    """The header naming ticket 18 (#101) and the thread citing it (#102) lie in different
    parts: the map is built when the stage finishes, over the whole repository."""
    links = LinkConsumer.for_store(migrated, LinkConfig())
    parts = migrated.parts(max_issues=2)
    assert len(parts) > 2
    results = [links.per_part(read_part(migrated, part, [links])) for part in parts]
    table = links.finish(migrated, results)
    assert {k: v for k, v in _targets(table.links).items() if v[1]} == EXPECTED


# -- bugs.python.org's duplicate record ---------------------------------------------------------
def _bpo(old: int, resolution: str = "duplicate", superseder: int | None = None) -> str:
    """A body the way CPython's 2022 migration wrote one (our own words and numbers): the header
    table, then the old tracker's fields in a code block, then the first message."""
    field = f"'{superseder}'" if superseder is not None else "None"
    row = f"Superseder | <li>bpo-{superseder}: the toolbar flickers</li>\n" if superseder else ""
    return (
        f"BPO | [{old}](https://bugs.python.org/issue{old})\n--- | :---\nNosy | @alice\n{row}"
        "\n<sup>*Note: these values reflect the tracker when the issue was migrated.*</sup>\n\n"
        "<details><summary>Show more details</summary><p>\n\nbugs.python.org fields:\n"
        f"```python\nclosed = True\nissue_num = {old}\nresolution = '{resolution}'\n"
        f"status = 'closed'\nsuperseder = {field}\ntype = 'behavior'\n```\n\n</p></details>\n\n"
        "The toolbar flickers when the window is resized."
    )


BPO_MIGRATED = "2022-04-10T10:00:00Z"


@pytest.fixture()
def bpo(tmp_path: Path) -> Store:
    """A repository migrated from bugs.python.org: GitHub #201..#209 carry old issues 1000..; #18
    and #1001 are numbers a naive reader would link to."""
    store = Store.open(tmp_path / "store", create=True)
    opened = {"login": "alice", "created": "2017-03-01T00:00:00Z", "closed": "2017-03-02T00:00:00Z"}
    issues = [
        _issue(18, "A GitHub-era report.", login="someone"),
        _issue(201, _bpo(1000), **opened),
        _issue(202, _bpo(1001, "duplicate", 1000), **opened),  # ticket 1000 = GitHub #201
        _issue(203, _bpo(1002, "rejected", 1000), **opened),  # a successor, not an original
        _issue(204, _bpo(1003, "duplicate", 4242), **opened),  # no issue carries bpo 4242
        _issue(205, _bpo(1004, "duplicate", 1000), state="open", **opened),  # open again
        _issue(206, _bpo(1005, "duplicate", 1005), **opened),  # names itself
        _issue(207, _bpo(1006, "fixed"), **opened),
        # the fields without the migration's header: someone's pasted snippet, not a record
        _issue(208, "```python\nresolution = 'duplicate'\nsuperseder = '1000'\n```", **opened),
        _issue(209, _bpo(1007, "duplicate"), **opened),  # a duplicate of nothing named
    ]
    comments = [
        # bugs.python.org's copied words number nothing "#N": a "#18" is GitHub's
        _comment(207, 11, "Duplicate of #18", login="alice", created="2017-03-01T12:00:00Z"),
    ]
    store.write_page(REPO, issues=issue_rows(REPO, issues), comments=comment_rows(REPO, comments))
    return store


def test_bugs_python_org_s_superseder_is_mapped_to_the_original(bpo: Store) -> None:
    table = build_links(bpo, LinkConfig())
    usable = {row["number"]: row for row in table.usable().iter_rows(named=True)}
    assert {n: row["target_number"] for n, row in usable.items()} == {202: 201, 207: 18}
    assert usable[202]["signal"] == Signal.TRACKER_RESOLUTION.value
    assert Signal.OLD_TICKET.value in usable[202]["signals"]
    unmapped = table.links.filter(pl.col("excluded_reason") == "unmapped_old_ticket")
    assert unmapped["number"].to_list() == [204]  # never read as GitHub's #4242
    assert table.counters["evidence:tracker_resolution"] == 2
    assert table.counters["dropped:self_link"] == 1


def _cut(body: str, before: str) -> str:
    """`body` stored only up to `before` (an excerpt, a truncated copy)."""
    return body[: body.index(before)]


BPO_RECORD_CASES = [
    ("the row and the fields agree", _bpo(1001, "duplicate", 1000), 1000),
    (
        "cut before the superseder field: the row names it",
        _cut(_bpo(1001, "duplicate", 1000), "status ="),
        1000,
    ),
    (
        "cut before the resolution: the superseder alone",
        _cut(_bpo(1001, "duplicate", 1000), "resolution ="),
        1000,
    ),
    ("cut inside the resolution's value", _cut(_bpo(1001, "duplicate", 1000), "uplicate'"), 1000),
    (
        "another resolution shown: a successor",
        _cut(_bpo(1002, "out of date", 1000), "status ="),
        None,
    ),
    ("no superseder anywhere", _cut(_bpo(1007, "duplicate"), "status ="), None),
]


@pytest.mark.parametrize(
    ("case", "body", "old"), BPO_RECORD_CASES, ids=[c[0] for c in BPO_RECORD_CASES]
)
def test_the_bpo_record_read_from_what_the_body_shows(
    case: str, body: str, old: int | None
) -> None:
    from issues_sts.evidence.migration import superseder_of

    assert superseder_of(body) == old, case


BUGZILLA = "This issue was created automatically with bugzilla2github\n\n# Bugzilla Bug {}\n"
BUGZILLA_COMMENT = "## Comment {}\nDate: 2007-09-13 14:16:14 +0200\nFrom: @alice\n\n{}"


@pytest.fixture()
def bugzilla(tmp_path: Path) -> Store:
    """A repository imported from Bugzilla: GitHub #301..#305 carry bugs 515..519; #516 is a
    GitHub number of its own (a naive reader's target)."""
    store = Store.open(tmp_path / "store", create=True)
    later = (
        "Note: the issue was created automatically with bugzilla2github\n\nBugzilla bug ID: BZ#{}\n"
    )
    field = "Duplicates:   [BZ#{}](https://github.com/acme/widgets/issues?q=BZ%23{})\n"
    duplicate = {"labels": [{"name": "duplicate"}]}
    issues = [
        _issue(516, "A GitHub-era report.", login="someone"),
        *(_issue(300 + k, BUGZILLA.format(514 + k) + "Installer fails.") for k in range(1, 6)),
        # the later header form, whose "Duplicates:" field is the bug this one duplicates
        {**_issue(306, later.format(520) + field.format(515, 515)), **duplicate},
        _issue(307, later.format(521) + field.format(515, 515)),  # no label: which way is it?
        {**_issue(308, later.format(522) + field.format(999, 999)), **duplicate},
    ]
    marked = "*** This bug has been marked as a duplicate of {} ***"
    comments = [
        _comment(301, 21, BUGZILLA_COMMENT.format(1, marked.format(516))),  # bug 516 = #302
        _comment(303, 22, BUGZILLA_COMMENT.format(2, marked.format("bug 515"))),  # = #301
        # the original's side: another bug was marked a duplicate of this one
        _comment(
            304,
            23,
            BUGZILLA_COMMENT.format(
                3, "*** Bug 519 has been marked as a duplicate of this bug. ***"
            ),
        ),
        _comment(305, 24, BUGZILLA_COMMENT.format(4, marked.format(777))),  # no bug 777 here
    ]
    store.write_page(REPO, issues=issue_rows(REPO, issues), comments=comment_rows(REPO, comments))
    return store


def test_bugzilla_s_duplicate_words_are_old_numbers(bugzilla: Store) -> None:
    table = build_links(bugzilla, LinkConfig())
    assert {k: v for k, v in _targets(table.links).items() if v[1]} == {
        301: (302, True),
        303: (301, True),
        306: (301, True),  # its header's "Duplicates:" field, mapped
    }
    unmapped = table.links.filter(pl.col("excluded_reason") == "unmapped_old_ticket")
    assert sorted(unmapped["number"].to_list()) == [305, 308]  # never GitHub's #777 / #999
    assert table.counters["dropped:tracker_record_unlabelled"] == 1  # #307


def test_the_bpo_header_maps_but_does_not_renumber() -> None:
    from issues_sts.evidence.migration import mapped_number, superseder_of

    body = _bpo(1001, "duplicate", 1000)
    assert (ticket_of(body), mapped_number(body), old_number(body)) == ("1001", 1001, None)
    assert superseder_of(body) == 1000
    assert superseder_of(_bpo(1002, "rejected", 1000)) is None
    assert superseder_of(_bpo(1007, "duplicate")) is None
    assert superseder_of(_header(18) + "resolution = 'duplicate'\nsuperseder = '19'") is None


# -- the generated world: served by the fake GitHub, crawled, linked --------------------------
TOKEN = "ghp_" + "conventionsTestToken" + "0" * 19


@pytest.fixture(scope="module")
def conventions_world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, LinkTable, Path]:
    from issues_sts.crawl.config import CrawlConfig
    from issues_sts.crawl.runner import run_crawl
    from issues_sts.sandbox.github.server import FakeGitHub
    from issues_sts.sandbox.github.settings import FakeSettings
    from issues_sts.sandbox.worlds.generator import WorldConfig, generate_world

    corpus = generate_world(WorldConfig(seed=3, repos=2, issues_per_repo=700, duplicate_rate=0.12))
    store_dir = tmp_path_factory.mktemp("conventions") / "store"
    with FakeGitHub(corpus, FakeSettings(tokens=frozenset({TOKEN}))) as github:
        cfg = CrawlConfig(
            repos=tuple(corpus.repos), token=TOKEN, api_url=github.api_url, store=store_dir
        )  # type: ignore[arg-type]
        assert run_crawl(cfg).ok
    with Store.open(store_dir) as store:
        table = build_links(store)
    return corpus, table, store_dir


@pytest.mark.parametrize("shape", ["bot_states", "team_consolidation", "migrated"])
def test_the_world_s_conventions_are_linked(
    conventions_world: tuple[Any, LinkTable, Path], shape: str
) -> None:
    corpus, table, _ = conventions_world
    usable = table.usable()
    found = {
        (r, n): (tr, tn)
        for r, n, tr, tn in usable.select(
            "repo", "number", "target_repo", "target_number"
        ).iter_rows()
    }
    wanted = {
        (name, n): t
        for name, data in corpus.repos.items()
        for n, t in data.truth_duplicates.items()
        if data.truth_evidence[n] == shape
    }
    assert len(wanted) >= 3, shape
    right = sum(found.get(k) == t for k, t in wanted.items())
    assert right / len(wanted) >= 0.9, f"{shape}: {right} of {len(wanted)}"


def test_the_world_s_near_misses_make_no_link(
    conventions_world: tuple[Any, LinkTable, Path],
) -> None:
    from issues_sts.sandbox.worlds import conventions as W

    corpus, table, store_dir = conventions_world
    usable = set(table.usable().select("repo", "number").iter_rows())
    starts = tuple(
        t.split("{")[0] for t in (*W.SUGGESTS, *W.TAKEN_BACK, *W.OUTSIDE_TEAM, *W.AT_CLOSE)
    )
    misses = {
        (name, n)
        for name, data in corpus.repos.items()
        for n in {int(c["issue_url"].rsplit("/", 1)[1]) for c in data.comments}
        if n not in data.truth_duplicates
        and any(
            c["body"].startswith(starts) or "wrote on" in c["body"] for c in data.comments_of(n)
        )
    }
    assert len(misses) >= 20
    assert not misses & usable
    with Store.open(store_dir) as store:  # the fake GitHub serves bots as GitHub does
        closes = store.events_frame().filter(pl.col("event") == "closed")
        bot_closes = closes.filter(pl.col("actor") == W.D.TRIAGE_BOT)
        assert bot_closes.height >= 3 and set(bot_closes["actor_type"].to_list()) == {"Bot"}
        # the GraphQL trap: a duplicate close reads NOT_PLANNED on its event, DUPLICATE on the issue
        issues = store.issues_frame().filter(pl.col("state_reason") == "duplicate")
        trapped = bot_closes.join(issues.select("repo", "number"), on=["repo", "number"])
        assert trapped.height >= 1 and set(trapped["state_reason"].to_list()) == {"not_planned"}
    # each near miss was read and dropped by its rule, and counted
    for counter in ("dropped:bot_suggestion", "dropped:unmapped_old_ticket"):
        assert table.counters.get(counter, 0) >= 1, counter
    assert table.counters["mapped_old_ticket"] >= 3


GOOGLE_CODE = "https://code.google.com/p/widgets/issues/detail?id={}"


def _google_code(old: int, text: str) -> str:
    """A description as google-code-issues-migrator wrote it: who and when on top, the original
    issue's URL as the last line."""
    return (
        "_From [alice](https://code.google.com/u/alice/) on 2011-07-15T14:57:15Z_\n\n"
        f"{text}\n\n_Original issue: {GOOGLE_CODE.format(old)}_"
    )


def _status(status: str, merged: str | None = None) -> str:
    lines = f"**Status:** {status}  \n" + (f"  **Mergedinto:** {merged}\n" if merged else "")
    return "_From [bob](https://code.google.com/u/bob/) on 2011-07-19T12:56:02Z_\n\n" + lines


@pytest.fixture()
def google_code(tmp_path: Path) -> Store:
    """A repository migrated from Google Code: GitHub #201..#206 carry old issues 710..715 (in
    another order than GitHub's, as a migration resumed after a failure would); #710 is a
    GitHub number of its own."""
    store = Store.open(tmp_path / "store", create=True)
    issues = [
        _issue(710, "A GitHub-era report.", login="someone"),
        _issue(201, _google_code(712, "Closing the editor crashes.")),
        _issue(202, _google_code(710, "The editor crashes on close.")),
        _issue(203, _google_code(713, "Crash on close " + "again. " * 400)),  # a long body
        _issue(204, _google_code(714, "Fonts blur.")),
        _issue(205, _google_code(715, "Toolbar flickers.")),
        _issue(206, _google_code(711, "Toolbar is gone.")),
    ]
    comments = [
        _comment(201, 31, _status("Duplicate", "710")),  # old 710 = GitHub #202
        _comment(
            201,
            32,
            "_From [alice](https://code.google.com/u/alice/) on 2011-07-19T13:06:29Z_"
            "\n\nThanks, it works with the other fix.",
        ),  # a later copied word, no change
        _comment(203, 33, _status("Duplicate", "712")),  # the long body's header still maps
        # set a duplicate, then accepted again: the last change decides
        _comment(204, 34, _status("Duplicate", "710")),
        _comment(204, 35, _status("Accepted")),
        _comment(205, 36, _status("Duplicate", "other-project:710")),  # another project's
        _comment(206, 37, _status("Duplicate", "999")),  # no issue carries old 999
    ]
    store.write_page(REPO, issues=issue_rows(REPO, issues), comments=comment_rows(REPO, comments))
    return store


def test_google_codes_merged_into_record_is_mapped_through_the_headers(google_code: Store) -> None:
    table = build_links(google_code, LinkConfig())
    assert _targets(table.links) == {201: (202, True), 203: (201, True), 206: (999, False)}
    assert table.counters["evidence:tracker_resolution"] == 3
    assert table.counters["dropped:merged_into_other_project"] == 1
    assert table.counters["dropped:unmapped_old_ticket"] == 1


FLYSPRAY = "https://bugs.example.org/task/{}"


def _flyspray(old: int, text: str) -> str:
    """A task as FlySpray's import bot posted it: the author's words quoted, the task's URL as
    the last line."""
    url = FLYSPRAY.format(old)
    return (
        f"**_alice_ opened the ticket and wrote:**\n\n> {text}\n\n---\n"
        f"###### _This issue was imported from FlySpray: [{url}]({url})_"
    )


def _flyspray_comment(old: int, words: str) -> str:
    return (
        f"{words}\n\n---\n###### _This comment was imported from FlySpray: {FLYSPRAY.format(old)}_"
    )


def _closed(reason: str, note: str) -> str:
    return f"**_bob_ closed the ticket.**\n\n**Reason for closing: _{reason}_**\n\n> {note}"


def test_flysprays_close_record_is_mapped_through_the_headers(tmp_path: Path) -> None:
    # conv-25's OpenTTD miss: "Reason for closing: Duplicate" over "> Of #1497." (a quote, which
    # no reader of words reads); old task 810 is GitHub #301 here, 811 none
    store = Store.open(tmp_path / "store", create=True)
    issues = [
        _issue(301, _flyspray(810, "Airports cannot be closed.")),
        _issue(302, _flyspray(812, "Close a station.")),
        _issue(303, _flyspray(813, "Close a dock.")),
        _issue(304, _flyspray(814, "Close a depot.")),
        _issue(305, _flyspray(815, "Trains stop.")),
        _issue(306, _flyspray(816, "Close a hangar.")),
        _issue(307, _flyspray(817, "Close a heliport.")),
        _issue(308, _flyspray(818, "Close a road stop.")),
        _issue(309, _flyspray(819, "Close a canal.")),
        _issue(310, _flyspray(820, "Close a lock.")),
    ]
    comments = [
        _comment(302, 41, _flyspray_comment(812, _closed("Duplicate", "Of #810."))),
        # closed as a duplicate, then reopened: the last change decides
        _comment(303, 42, _flyspray_comment(813, _closed("Duplicate", "Of #810."))),
        _comment(303, 43, _flyspray_comment(813, "**_bob_ reopened the ticket.**")),
        _comment(304, 44, _flyspray_comment(814, _closed("Duplicate", "Of #811."))),  # unmapped
        _comment(305, 45, _flyspray_comment(815, _closed("Implemented", "In r12345."))),
        # conv-35's OpenTTD misses: the import escaped the note's "#" ("\\# 810": Markdown would
        # read a heading) or kept a space after it ("Of # 810")
        _comment(306, 46, _flyspray_comment(816, _closed("Duplicate", "\\# 810"))),
        _comment(307, 47, _flyspray_comment(817, _closed("Duplicate", "Of # 810."))),
        # a sign with no number after it is no task
        _comment(308, 48, _flyspray_comment(818, _closed("Duplicate", "\\# see the forum"))),
        # conv-36's OpenTTD miss: no sign at all after "of" ("> of 810"); a bare number with no
        # "of" is no task
        _comment(309, 49, _flyspray_comment(819, _closed("Duplicate", "of 810"))),
        _comment(310, 50, _flyspray_comment(820, _closed("Duplicate", "810 trains stop here"))),
    ]
    store.write_page(REPO, issues=issue_rows(REPO, issues), comments=comment_rows(REPO, comments))
    with store:
        table = build_links(store, LinkConfig())
    assert _targets(table.links) == {
        302: (301, True),
        304: (811, False),
        306: (301, True),
        307: (301, True),
        309: (301, True),
    }
    assert table.counters["evidence:tracker_resolution"] == 5
    assert table.counters["dropped:unmapped_old_ticket"] == 1
    assert ticket_of(_flyspray(18, "word " * 1000)) == "18"  # the header is the body's last line
    assert comment_was_migrated(_flyspray_comment(18, "words " * 200))  # signed at its end
    assert not comment_was_migrated("The FlySpray task 18 had this too.")


RT = "https://rt-archive.example.org/widgets/Ticket/Display.html?id={}"


def _rt(old: int, status: str = "resolved") -> str:
    """A ticket as a Request Tracker export wrote it: the header, then nothing of its own (the
    mails follow as comments)."""
    header = f"Migrated from [rt.example.org#{old}]({RT.format(old)}) (status was '{status}')"
    return f"{header}\n\nSearchable as RT{old}$"


def _rt_mail(sender: str, words: str) -> str:
    return f"### From {sender}\n\n{words}"


def test_request_trackers_copied_mails_are_mapped_through_the_headers(tmp_path: Path) -> None:
    # conv-38's perl5 miss: "I presume this is duplicate of \#73890" (the export escapes every
    # "#"), then the closer's status change; RT's 810 is GitHub #401 here, 811 none
    store = Store.open(tmp_path / "store", create=True)
    issues = [
        _issue(401, _rt(810)),
        _issue(402, _rt(812, "rejected")),
        _issue(403, _rt(813, "rejected")),
        _issue(404, _rt(814, "rejected")),
        _issue(405, _rt(815)),
        _issue(406, _rt(816, "rejected")),
        _issue(407, _rt(817)),
    ]
    comments = [
        _comment(401, 61, _rt_mail("@alice", "Widgets crash on resize\\.")),
        _comment(402, 62, _rt_mail("@bob", "I presume this is duplicate of \\#810")),
        _comment(402, 63, "@bob \\- Status changed from 'new' to 'rejected'"),
        _comment(403, 64, _rt_mail("bob@example.org", "Duplicate of RT #810\\.")),
        _comment(404, 65, _rt_mail("@bob", "This is a duplicate of \\#811")),  # unmapped
        # near misses: a ticket merely mentioned, and RT's own number of the thread
        _comment(405, 66, _rt_mail("@bob", "See also \\#810 for the resize code\\.")),
        _comment(406, 67, _rt_mail("@bob", "Rejected: not a bug, see RT816\\.")),
        # a comment written on GitHub since, by a person: its "#810" is GitHub's (none here)
        _comment(407, 68, "Duplicate of #810", login="carol", created="2021-01-02T00:00:00Z"),
    ]
    store.write_page(REPO, issues=issue_rows(REPO, issues), comments=comment_rows(REPO, comments))
    with store:
        table = build_links(store, LinkConfig())
    assert _targets(table.links) == {402: (401, True), 403: (401, True), 404: (811, False)}
    assert table.counters["mapped_old_ticket"] == 2
    assert table.counters["dropped:unmapped_old_ticket"] == 1
    assert ticket_of(_rt(18)) == "18"
    assert comment_was_migrated(_rt_mail("@alice", "words"))
    assert comment_was_migrated(_rt_mail("alice@example.org", "words"))
    assert not comment_was_migrated("### From the docs\n\nIt says so.")


JIRA = "https://issues.example.org/jira"


def _jira(key: str, text: str, *links: tuple[str, str]) -> str:
    """An issue as Apache's JIRA import wrote it: the opener's line, the description, and
    JIRA's issue links with their types."""
    body = (
        f"**[Alice]({JIRA}/secure/ViewProfile.jspa?name=alice)** opened **[{key}]({JIRA}/browse/"
        f"{key}?redirect=false)** and commented\n\n{text}\n\n---\n\n**Affects:** 2.4\n"
    )
    if links:
        body += "\n**Issue Links:**\n" + "".join(
            f'- [{k}]({JIRA}/browse/{k}) Some title\n (_**"{t}"**_)\n' for k, t in links
        )
    return body + "\n2 votes, 3 watchers"


def test_jiras_duplicates_link_is_mapped_through_the_headers(tmp_path: Path) -> None:
    # conv-26's maven-pmd-plugin miss: the import kept JIRA's '"duplicates"' link to WID-18,
    # which is GitHub #401 here; the link types that say anything else are no record
    store = Store.open(tmp_path / "store", create=True)
    issues = [
        _issue(401, _jira("WID-18", "Reports for empty modules.", ("WID-20", "is duplicated by"))),
        _issue(402, _jira("WID-20", "Empty report pages.", ("WID-18", "duplicates"))),
        _issue(403, _jira("WID-21", "Empty CPD pages.", ("WID-18", "relates to"))),  # near miss
        _issue(404, _jira("WID-22", "Empty PMD pages.", ("WID-99", "duplicates"))),  # unmapped
        # two originals named: no single one
        _issue(405, _jira("WID-23", "Both.", ("WID-18", "duplicates"), ("WID-19", "duplicates"))),
        # another project's key maps through that project's headers only
        _issue(406, _jira("WID-24", "Site pages.", ("OTHER-18", "duplicates"))),
        _issue(407, _jira("OTHER-18", "Site pages are empty.")),
        _issue(408, _jira("WID-25", "Still open.", ("WID-18", "duplicates")), state="open"),
        # an ordinary thread quoting the opener's words, not the import's header
        _issue(409, "I opened [WID-18](https://issues.example.org/jira/browse/WID-18) before."),
    ]
    store.write_page(REPO, issues=issue_rows(REPO, issues), comments=[])
    with store:
        table = build_links(store, LinkConfig())
    assert _targets(table.links) == {402: (401, True), 404: (99, False), 406: (407, True)}
    assert table.counters["evidence:tracker_resolution"] == 3
    assert table.counters["dropped:unmapped_old_ticket"] == 1
    body = _jira("WID-20", "See #7.", ("WID-18", "duplicates"))
    assert (ticket_of(body), old_number(body)) == ("WID-20", None)  # its "#7" is GitHub's
    assert ticket_of(issues[-1]["body"]) is None


def test_google_code_headers_and_copied_comments() -> None:
    long = _google_code(18, "word " * 1000)
    assert ticket_of(long) == "18"  # the header is the body's last line
    assert comment_was_migrated(_status("Fixed"))
    assert not comment_was_migrated("From alice on 2011-07-19: it crashes, see #18.")


@pytest.mark.parametrize(
    ("title", "kept"),
    [
        ("Mattermost 5.26.0", False),  # conv-27's NethServer closes
        ("Upgrade to OpenVPN 2.4.8", False),  # and eduVPN's
        ("Bump widget to v1.2", False),
        ("[deps] Update libfoo to 3.1", False),
        ("The editor crashes on resize", True),  # the near miss: an ordinary report
        ("Crash in 1.2.3 when saving a file twice", True),
    ],
)
def test_a_release_request_obsoleted_by_the_next_is_its_successor(title: str, kept: bool) -> None:
    th = replace(
        thread(c("maint", "Obsoleted by #12", "MEMBER", minute=500), closed_minute=500),
        title=title,
    )
    reading = extract_thread(th)
    assert (canonical(reading.links) is not None) is kept
    assert reading.counters["dropped:release_successor"] == (0 if kept else 1)


def test_a_named_target_wins_over_the_number_an_untargeted_close_borrowed() -> None:
    # conv-27's starship close: "as a duplicate" after "see #1716 and the linked PR #2334",
    # then the comment's own "Duplicates #1716"
    words = (
        "We can't do it yet because of an upstream issue, see #11 and the linked PR #13 for more "
        "details. Since we already have an issue for this I am going to close this as a "
        "duplicate.\n\nDuplicates #11"
    )
    reading = extract_thread(thread(c("maint", words, "MEMBER", minute=500), closed_minute=500))
    chosen = canonical(reading.links)
    assert chosen is not None and chosen.target_number == 11
    assert {lk.target_number for lk in reading.links} == {11}
    assert reading.counters["dropped:antecedent_not_named"] == 1
    # without a named one the number before the words still is the target
    alone = extract_thread(thread(c("maint", "Subsumed in #13, closing as duplicate.", "MEMBER")))
    assert {lk.target_number for lk in alone.links} == {13}


@pytest.mark.parametrize(
    ("words", "target"),
    [
        # conv-28's home-assistant/iOS close
        ("Closing this in favor of re-opening #12", 12),
        # conv-28's thunderbird close: the reason after the bare predicate, the issue before it
        (
            "These symptoms match the ones reported in #12\nI'm gonna close it as duplicate since "
            "some work is already in progress to fix the issue.",
            12,
        ),
        # the near misses: another issue's duplicate on a line addressed to someone (conv-28's
        # bluebird), and a list of duplicated records by bare number (conv-28's filament list)
        ("@bob #13 Duplicate of #12", None),
        (
            "Here are the duplicates I found:\n24049 is a duplicate of 24083\n"
            "24043 is a duplicate of 24078",
            None,
        ),
    ],
)
def test_conv28_closes_and_near_misses(words: str, target: int | None) -> None:
    reading = extract_thread(thread(c("maint", words, "MEMBER", minute=500), closed_minute=500))
    chosen = canonical(reading.links)
    assert (chosen.target_number if chosen is not None else None) == target


def test_google_exporters_merged_into_is_the_trackers_record(tmp_path: Path) -> None:
    # conv-29's funcparserlib miss: Google's own exporter kept each issue's number, so its
    # "- Merged into: #29" is GitHub's #29; the same line without the exporter's, or on an issue
    # open again, is no record
    exported = "\n\nOriginal issue reported on code.google.com by `alice` on 26 May 2011 at 11:22"
    store = Store.open(tmp_path / "store", create=True)
    issues = [
        _issue(25, "```\nSphinx is nice.\n```" + exported + "\n- Merged into: #29"),
        _issue(26, "Docs please.\n\n- Merged into: #29"),  # a list item, no exporter's line
        _issue(27, "Sphinx docs." + exported + "\n- Merged into: #29", state="open"),
        _issue(28, "Self." + exported + "\n- Merged into: #28"),
        _issue(29, "Convert the docs." + exported),
    ]
    store.write_page(REPO, issues=issue_rows(REPO, issues), comments=[])
    with store:
        table = build_links(store, LinkConfig())
    assert _targets(table.links) == {25: (29, True)}
    assert table.counters["evidence:tracker_resolution"] == 1
    assert table.counters["dropped:self_link"] == 1


def _bare(words: str, *, closer: str = "m", late: float = 1, **kw: Any) -> Thread:
    """The member `m` says `words` an hour in; `closer` closes the issue `late` minutes after."""
    return thread(c("m", words, "MEMBER", 60), closed_by=closer, closed_minute=60 + late, **kw)


@pytest.mark.parametrize(
    ("case", "th", "target"),
    [
        # conv-25..29's alt-tab, vant, vert.x and bigbluebutton closes: the closer's whole last
        # word is the other issue
        ("a bare number", _bare("#12"), 12),
        ("a bare link", _bare(URL12), 12),
        ("a bare link in angle brackets, a full stop", _bare(f"<{URL12}>."), 12),
        # near misses: other words beside it, another repository, a pull request, someone
        # else's close, a close long after, a later word by someone else, an open issue, a bot
        ("a word beside it", _bare("See #12"), None),
        ("a fix named", _bare("Fixed in #12"), None),
        ("two issues", _bare("#12 #13"), None),
        ("another repository's issue", _bare("https://github.com/other/lib/issues/12"), None),
        ("a pull request", _bare(f"https://github.com/{REPO}/pull/12"), None),
        ("closed by someone else", _bare("#12", closer="reporter"), None),
        ("closed weeks later", _bare("#12", late=LATER), None),
        ("the issue itself", _bare(f"https://github.com/{REPO}/issues/10"), None),
        ("still open", _bare("#12", state="open"), None),
        (
            "a later word by someone else",
            thread(
                c("m", "#12", "MEMBER", 60),
                c("reporter", "Thanks!", "NONE", 60.5),
                closed_by="m",
                closed_minute=61,
            ),
            None,
        ),
        (
            "a bot's bare number",
            thread(c(BOT, "#12", "NONE", 60), closed_by=BOT, closed_minute=60.1),
            None,
        ),
    ],
)
def test_the_closers_bare_pointer(case: str, th: Thread, target: int | None) -> None:
    reading = extract_thread(th)
    chosen = canonical(reading.links)
    assert (chosen.target_number if chosen is not None else None) == target, case
    assert reading.counters["evidence:closer_pointer"] == (target is not None), case
    if chosen is not None:
        assert Signal.CLOSER_POINTER.value in chosen.signals


def test_the_stage_reads_a_thread_whose_only_word_is_a_bare_pointer(tmp_path: Path) -> None:
    # no cue word anywhere: the screen must still hand the thread to the reader
    store = Store.open(tmp_path / "store", create=True)
    closed = "2020-05-01T10:01:00Z"
    issues = [
        _issue(12, "The window stays after closing.", login="alice", closed=closed),
        _issue(30, "Ghost window after close.", login="bob", closed=closed, closed_by="m"),
        _issue(31, "Ghost window again.", login="carol", closed=closed, closed_by="m"),
    ]
    said = {"login": "m", "assoc": "MEMBER", "created": "2020-05-01T10:00:00Z"}
    comments = [
        _comment(30, 9_000_000_001, "#12", **said),
        _comment(31, 9_000_000_002, "Same cause as the window bug, see #12 too.", **said),
    ]
    store.write_page(REPO, issues=issue_rows(REPO, issues), comments=comment_rows(REPO, comments))
    with store:
        table = build_links(store, LinkConfig())
    assert _targets(table.links) == {30: (12, True)}
    assert table.counters["evidence:closer_pointer"] == 1


ANCHORED12 = f"{URL12}#issue-781412721"  # GitHub's link to an issue's first post
BLANK_FORM = (
    "- [x] I have searched open and closed issues for duplicates\n\n---\n\n### Bug Description\n\n"
    "### Steps to Reproduce\n\n1.  step one\n2.  step two\n\nActual Result:\n\nExpected Result:\n\n"
    "## Environment\n\n- App version:\n- OS version: \n"
)


@pytest.mark.parametrize(
    ("case", "th", "target", "counter"),
    [
        # conv-36's operator-sdk close: the body is nothing but the earlier issue's link
        ("a body that is only a link", thread(body=ANCHORED12, title="Scots"), 12, "link_only"),
        ("a body that is only #N", thread(body="#12"), 12, "link_only"),
        # conv-36's oauth2-proxy closes: a request to reopen it, in the title or the body
        (
            "a title asking to reopen it",
            thread(body=URL12, title="Please reopen #12"),
            12,
            "reopen_request",
        ),
        (
            "a short body asking to reopen it",
            thread(body=f"Please could you reopen 12?\n\n{ANCHORED12}", title="Reopen 12"),
            12,
            "reopen_request",
        ),
        (
            "a title asking, an empty body",
            thread(body="", title="Reopen #12 please"),
            12,
            "reopen_request",
        ),
        # near misses: open, two issues, a pull request, another repository's issue, itself,
        # more to say than the link, a long story that mentions reopening, a reply disputing
        ("still open", thread(body=URL12, state="open"), None, None),
        ("two issues", thread(body=f"{URL12} #13"), None, None),
        ("a pull request", thread(body=f"https://github.com/{REPO}/pull/12"), None, None),
        ("another repository's", thread(body="https://github.com/other/lib/issues/12"), None, None),
        ("itself", thread(body=f"https://github.com/{REPO}/issues/10"), None, None),
        ("more to say", thread(body=f"The window stays after closing, like {URL12}"), None, None),
        (
            "a long story mentioning reopening",
            thread(
                body="After I reopen the lid the window stays black and the log fills with "
                f"errors about the GPU, which {URL12} also shows in its screenshots."
            ),
            None,
            None,
        ),
        # conv-34's Signal-Desktop and gitextensions closes: the title is the reference, the
        # issue form below it left blank
        ("a title that is only #N, no body", thread(body="", title="#12"), 12, "link_only"),
        (
            "a title that is only the link, a blank form",
            thread(body=BLANK_FORM, title=ANCHORED12),
            12,
            "link_only",
        ),
        ("a title with words, no body", thread(body="", title="Crash like #12"), None, None),
        (
            "a title that is only #N, a sentence",
            thread(body="It crashes.", title="#12"),
            None,
            None,
        ),
        (
            "a title that is only #N, a filled form",
            thread(
                body=BLANK_FORM.replace("1.  step one", "1.  open the settings page twice"),
                title="#12",
            ),
            None,
            None,
        ),
        (
            "a reply disputing it",
            thread(
                c("m", "No, this is not the same bug.", "MEMBER", 60),
                body=URL12,
                title="Please reopen #12",
            ),
            None,
            None,
        ),
        # conv-39's mumble false link: a title naming work on the linked issue
        (
            "a backport's title over the link",
            thread(body=URL12, title="Backport fix for issue 12 to 1.2.11."),
            None,
            None,
        ),
        ("a follow-up's title", thread(body=URL12, title="Follow-up: tests for 12"), None, None),
        # conv-41's grpc false links: the title opens with the work to do on the linked issue
        ("work on it elsewhere", thread(body="#12", title="Address #12 for Node"), None, None),
        (
            "an investigation",
            thread(body="#12", title="Check if #12 affects node.js and update the docs"),
            None,
            None,
        ),
        # the same words after the number restate it: still a second report
        ("a title naming it", thread(body="#12", title="#12 check fails again"), 12, "link_only"),
        # a title that restates the problem is still a second report of it
        ("a restating title", thread(body=URL12, title="Window stays black"), 12, "link_only"),
    ],
)
def test_an_issue_that_is_only_an_earlier_ones_link_or_asks_to_reopen_it(
    case: str, th: Thread, target: int | None, counter: str | None
) -> None:
    reading = extract_thread(th)
    chosen = canonical(reading.links)
    assert (chosen.target_number if chosen is not None else None) == target, case
    assert reading.counters["evidence:link_only_issue"] == (counter == "link_only"), case
    assert reading.counters["evidence:reopen_request"] == (counter == "reopen_request"), case


def test_the_stage_reads_an_issue_that_is_only_a_link_or_a_reopen_request(tmp_path: Path) -> None:
    # no cue word anywhere: the screen must still hand these threads to the reader
    store = Store.open(tmp_path / "store", create=True)
    closed = "2020-05-01T10:01:00Z"
    issues = [
        _issue(12, "The window stays after closing.", login="alice", closed=closed),
        _issue(30, ANCHORED12, login="bob", closed=closed, closed_by="m"),
        _issue(31, "Could you reopen 12?\n\n" + URL12, login="carol", closed=closed),
        _issue(32, ANCHORED12, login="dave", state="open"),  # open: nothing
        {**_issue(33, BLANK_FORM, login="erin", closed=closed), "title": "#12"},
    ]
    store.write_page(REPO, issues=issue_rows(REPO, issues), comments=[])
    with store:
        table = build_links(store, LinkConfig())
    assert _targets(table.links) == {30: (12, True), 31: (12, True), 33: (12, True)}
    assert table.counters["evidence:link_only_issue"] == 2
    assert table.counters["evidence:reopen_request"] == 1


@pytest.mark.parametrize(
    ("words", "target"),
    [
        # conv-30's closes: the noun "duplication", "in favor for:", "#N already tracks this",
        # Portuguese "duplicata acidental de #N"
        ("Closing - this is a duplication of #12", 12),
        ("Closing this in favor for: https://github.com/acme/widgets/issues/12", 12),
        ("Closing since #12 already tracks this", 12),
        ("Duplicata acidental de #12.", 12),
        # the near misses: a report listing other issues' marks, one per line with an arrow
        # (conv-30's claude-code false link), and the noun about code
        (
            "Chains found:\n\n- Issue #13 → marked as duplicate of #12\n"
            "- Issue #12 → marked as duplicate of #13",
            None,
        ),
        ("- Issue #13 -> closed as a duplicate of #12", None),
        ("There is some duplication of #12's parser logic here.", None),
        ("Closing since #12 already tracks this metric.", None),
    ],
)
def test_conv30_closes_and_near_misses(words: str, target: int | None) -> None:
    said = c("maint", words, "MEMBER", minute=500)
    reading = extract_thread(thread(said, closed_by="maint", closed_minute=500))
    chosen = canonical(reading.links)
    assert (chosen.target_number if chosen is not None else None) == target
