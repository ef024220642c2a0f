"""The one duplicate-evidence vocabulary, and today's GitHub phenomena (issue 13).

Every rule's examples go to the crawl's candidate screen and to the link stage: what the
stage links from, the crawler asks a timeline for; near misses never become links. Then one
table per phenomenon of modern threads, each with a positive and a negative case.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest

from issues_sts.crawl.candidates import has_duplicate_wording, rank_candidates
from issues_sts.crawl.feed import strong_evidence
from issues_sts.crawl.rows import comment_rows, issue_rows
from issues_sts.evidence import cues, kinds
from issues_sts.evidence.gated import top_level
from issues_sts.evidence.screen import says_duplicate
from issues_sts.evidence.text import strip_form_fields
from issues_sts.evidence.vocabulary import (
    COUNTERS,
    CUE_REGEX,
    RULE_BY_NAME,
    RULES,
    is_duplicate_label,
    labels_say_duplicate,
    rule_of,
    screens,
)
from issues_sts.links import extract_thread, extract_thread_links
from issues_sts.links.model import LinkConfig, Post, Signal, Thread
from issues_sts.store import DuplicateScreen, Store
from tests.links_helpers import c, canonical, ev, thread

EXAMPLES = [(rule.name, text) for rule in RULES for text in rule.examples]
NEAR_MISSES = [(rule.name, text) for rule in RULES for text in rule.near_misses]


def _closed_by_maintainer(text: str, *, is_pr: bool = False) -> Thread:
    return thread(c("m", text, "MEMBER", 60), closed_by="m", closed_minute=61, is_pr=is_pr)


TRIAGE_BOT = "triage-helper[bot]"


def _said(rule: str, text: str) -> Thread:
    """An example in the context its rule is read in: a maintainer who then closes the issue, or
    a triage bot that closes it seconds later (as not planned, as a bot's close often reads)."""
    declared = RULE_BY_NAME[rule]
    if declared.said_by == "author":  # the reporter's own words, then their own close
        return thread(c("reporter", text, "NONE", 60), closed_by="reporter", closed_minute=61)
    if declared.said_by == "bot":
        return thread(
            c(TRIAGE_BOT, text, "NONE", 60),
            closed_by=TRIAGE_BOT,
            closed_minute=60.1,
            state_reason="not_planned",
        )
    return _closed_by_maintainer(text, is_pr=declared.pull_request_only)


def test_every_rule_has_an_example_and_a_near_miss() -> None:
    for rule in RULES:
        assert rule.near_misses, rule.name
        assert rule.examples, rule.name


@pytest.mark.parametrize(("rule", "text"), EXAMPLES, ids=[f"{r}: {t}" for r, t in EXAMPLES])
def test_crawl_screen_and_link_stage_agree_on_every_example(rule: str, text: str) -> None:
    declared = RULE_BY_NAME[rule]
    reading = extract_thread(_said(rule, text))
    chosen = canonical(reading.links)
    assert chosen is not None and chosen.target_number == 12, "the link stage must link it"
    assert has_duplicate_wording(text), "the crawl must ask for its timeline"
    assert screens(text)
    assert reading.counters[declared.counter] >= 1


@pytest.mark.parametrize(("rule", "text"), NEAR_MISSES, ids=[f"{r}: {t}" for r, t in NEAR_MISSES])
def test_near_misses_make_no_link(rule: str, text: str) -> None:
    is_pr = RULE_BY_NAME[rule].pull_request_only  # read where the rule is read
    th = thread(c("u", text, "CONTRIBUTOR", 60), closed_by="m", closed_minute=61, is_pr=is_pr)
    if RULE_BY_NAME[rule].said_by in ("bot", "author"):  # the words where they would count
        th = _said(rule, text)
    assert canonical(extract_thread_links(th)) is None


@pytest.mark.parametrize("rule", [r.name for r in RULES if r.first_person])
def test_first_person_rules_count_only_from_the_issue_author(rule: str) -> None:
    """ "Sorry, I missed #12 before" is the reporter's own search; a bystander's words, even
    when a maintainer closes right after, are about their own comment."""
    for text in RULE_BY_NAME[rule].examples:
        th = thread(c("bystander", text, "CONTRIBUTOR", 60), closed_by="m", closed_minute=61)
        reading = extract_thread(th)
        assert canonical(reading.links) is None, text
        assert reading.counters["dropped:me_too"] >= 1, text
        assert canonical(extract_thread(_said(rule, text)).links) is not None, text


def test_pull_request_only_rules_make_no_link_in_an_issue() -> None:
    # "Landed in #12." closing an issue names the fix that landed, not a copy of the issue
    for rule in (r for r in RULES if r.pull_request_only):
        for text in rule.examples:
            assert canonical(extract_thread_links(_closed_by_maintainer(text))) is None, text


def test_counters_are_declared() -> None:
    assert all(rule.counter in COUNTERS for rule in RULES)
    th = _closed_by_maintainer("Consolidating to tracking issue #12.")
    emitted = {k for k in extract_thread(th).counters if k.startswith("evidence:")}
    assert emitted and emitted <= set(COUNTERS)
    assert rule_of("consolidating to", "wording").name == "consolidated"


def test_the_store_counts_candidates_with_the_same_vocabulary(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with Store.open(tmp_path / "s", create=True) as store:
        store.upsert_repo("acme/widgets", status="ok")
        issues = [
            {
                "number": n,
                "title": "t",
                "body": "b",
                "labels": labels,
                "state": "closed",
                "html_url": f"https://github.com/acme/widgets/issues/{n}",
            }
            for n, labels in (
                (1, []),
                (2, [{"name": "status:duplicate"}]),
                (3, []),
                (4, [{"name": "dupfile"}]),
            )
        ]
        url = "https://api.github.com/repos/acme/widgets/issues/"
        comments = [
            {"id": 10, "issue_url": url + "1", "body": "Continued in #12."},
            {"id": 11, "issue_url": url + "3", "body": "I cannot reproduce it"},
        ]
        store.write_page(
            "acme/widgets",
            issues=issue_rows("acme/widgets", issues),
            comments=comment_rows("acme/widgets", comments),
        )
        screen = DuplicateScreen(labels_say_duplicate, says_duplicate)
        assert store.repo_counts(screen)[0]["duplicate_candidates"] == 2  # #1 (wording), #2 (label)
        assert store.repo_counts()[0]["duplicate_candidates"] is None  # no screen, no count


def test_the_crawl_ranks_label_spellings_as_the_stage_reads_them() -> None:
    rows = [
        (1, None, None, '["status:duplicate"]'),
        (2, None, None, '["dupfile"]'),
        (3, "duplicate", None, "[]"),
    ]
    assert [c.number for c in rank_candidates(rows, worded=set(), limit=10)] == [3, 1]
    assert strong_evidence({"labels": [{"name": "*duplicate"}]})
    assert not strong_evidence({"labels": [{"name": "deduplication"}]})
    assert is_duplicate_label("Resolution-Duplicate") and not is_duplicate_label("dupfile")


@pytest.mark.parametrize(
    "name",
    [
        "duplicate",
        "Duplicate Issue",
        "closed: duplicate",
        "duplicate 🔁",
        "Duplicate / Invalid",
        "status: duplicate-of",
        "dupe",
        "duplicate or invalid",
        "R-Duplicate",
        "duplicates",
    ],
)
def test_a_label_about_the_issue_says_duplicate(name: str) -> None:
    assert is_duplicate_label(name)


@pytest.mark.parametrize(
    "name",
    [
        "component: duplicate-finder",
        "duplicate detection",
        "dupe-check",
        "area/duplicates-merge",
        "feature: duplicate_removal",
        "deduplication",
        "dupfile",
    ],
)
def test_a_label_naming_a_topic_does_not_say_duplicate(name: str) -> None:
    # conv-40's JabRef thread: an open feature request about the duplicate finder
    assert not is_duplicate_label(name)


def test_is_duplicate_label_reads_the_link_config_pattern() -> None:
    """One function for the crawl (the default pattern) and the link stage (its config's)."""
    cfg = LinkConfig(duplicate_label_pattern=r"^resolved: dupe$")
    assert is_duplicate_label("Resolved: Dupe", cfg) and not is_duplicate_label("duplicate", cfg)
    assert is_duplicate_label("duplicate") and is_duplicate_label("duplicate", LinkConfig())


def test_one_enum_of_evidence_kinds() -> None:
    """A rule's kind and a link's signals are members of the one `Signal`; the rules' own kinds
    come after every kind a link can carry, so a link's `signals` keep their order."""
    assert Signal is kinds.Signal
    assert all(isinstance(rule.signal, Signal) for rule in RULES)
    wording_kinds = [
        Signal.DUP_WORDING,
        Signal.IN_FAVOUR,
        Signal.SUPERSEDED,
        Signal.SUCCESSOR,
        Signal.REPORTED_BEFORE,
    ]
    assert list(Signal)[-len(wording_kinds) :] == wording_kinds
    assert set(wording_kinds) <= {rule.signal for rule in RULES}


def test_each_wording_rule_owns_its_alternatives_of_the_reader_cue() -> None:
    """The reader's wording cue is the rules' own `reads`, joined in the table's order, and a
    rule's examples are found by its own alternatives, not another rule's."""
    assert top_level(cues._WORDING.pattern) == [p for rule in RULES for p in rule.reads]
    for rule in RULES:
        if rule.reads:
            own = re.compile("|".join(rule.reads), re.I)
            assert any(own.search(text) for text in rule.examples), rule.name


def test_cue_regex_is_one_alternation_polars_can_run() -> None:
    import polars as pl

    frame = pl.DataFrame({"body": ["Consolidating to #4", "hello"]})
    assert frame.filter(pl.col("body").str.contains(CUE_REGEX)).height == 1


# -- today's phenomena: (phenomenon, thread, expected canonical) --------------------------
def _labelled(*posts, labels=("status:duplicate",), **kw) -> Thread:  # type: ignore[no-untyped-def]
    return thread(*posts, labels=labels, **kw)


PHENOMENA: list[tuple[str, Thread, int | None]] = [
    # a duplicate label plus a maintainer's pointer
    (
        "label + 'Please see #12'",
        _labelled(c("m", "Please see #12", "MEMBER", 60), closed_by="m", closed_minute=61),
        12,
    ),
    (
        "label + 'Take a look at this - <url>'",
        _labelled(
            c(
                "m",
                "Take a look at this - https://github.com/acme/widgets/issues/12",
                "CONTRIBUTOR",
                60,
            ),
            closed_by="m",
            closed_minute=61,
        ),
        12,
    ),
    (
        "label + 'Can you check these: #12 #13' (first named)",
        _labelled(
            c("m", "Can you check these: #12 #13", "MEMBER", 60), closed_by="m", closed_minute=61
        ),
        12,
    ),
    (
        "no label: 'Please see #12' is only a pointer",
        thread(c("m", "Please see #12", "MEMBER", 60), closed_by="m", closed_minute=61),
        None,
    ),
    (
        # not the maintainer's pointer, but the only issue anyone named: the label answers it
        # (`only_named_pointer`, conv-35's xenia-canary close)
        "label + a drive-by's pointer, the only issue named",
        _labelled(c("u", "Please see #12", "NONE", 60), closed_by="m", closed_minute=61),
        12,
    ),
    (
        "label + a drive-by's pointer beside another issue is not the maintainer's",
        _labelled(
            c("u", "Please see #12", "NONE", 60),
            c("v", "Could be related to #13 too", "NONE", 60.5),
            closed_by="m",
            closed_minute=61,
        ),
        None,
    ),
    (
        # neovim's `closed:duplicate` + "already fixed by #N": the readers' target is the fix
        # (round nv-1), when nothing else is pointed at
        "label + 'Fixed by #40' alone points at the fix",
        _labelled(c("m", "Fixed by #40", "MEMBER", 60), closed_by="m", closed_minute=61),
        40,
    ),
    (
        "label + a pointer and 'Fixed by #40': the pointer, not the fix",
        _labelled(
            c("m", "See #12.", "MEMBER", 50),
            c("m", "Fixed by #40", "MEMBER", 60),
            closed_by="m",
            closed_minute=61,
        ),
        12,
    ),
    (
        "state_reason duplicate + pointer",
        thread(
            c("m", "See #12.", "MEMBER", 60),
            closed_by="m",
            closed_minute=61,
            state_reason="duplicate",
        ),
        12,
    ),
    (
        "GraphQL's stateReason DUPLICATE + pointer",
        thread(
            c("m", "See #12.", "MEMBER", 60),
            closed_by="m",
            closed_minute=61,
            state_reason="DUPLICATE",
        ),
        12,
    ),
    (
        "a REST marked_as_duplicate (no canonical) + pointer",
        thread(
            c("m", "Take a look at #12", "MEMBER", 60),
            closed_by="m",
            closed_minute=61,
            events=(ev("marked_as_duplicate", None, actor="m", minute=61, source="rest"),),
        ),
        12,
    ),
    (
        "... unmarked_as_duplicate afterwards: no pointer applies",
        thread(
            c("m", "Take a look at #12", "MEMBER", 60),
            closed_by="m",
            closed_minute=61,
            events=(
                ev("marked_as_duplicate", 12, actor="m", minute=61),
                ev("unmarked_as_duplicate", 12, actor="m", minute=62),
            ),
        ),
        None,
    ),
    # confirmation as a reply
    (
        "'Is this the same as #12?' answered 'Yes, it's a duplicate'",
        thread(
            c("u", "Is this the same as #12?", "NONE", 60),
            c("m", "Yes, it's a duplicate.", "MEMBER", 70),
            closed_by="m",
            closed_minute=71,
        ),
        12,
    ),
    (
        "... answered 'No, different bug'",
        thread(
            c("u", "Is this the same as #12?", "NONE", 60),
            c("m", "No, this is a different bug.", "MEMBER", 70),
            closed_by="m",
            closed_minute=71,
        ),
        None,
    ),
    # phrasings outside the rust vocabulary
    (
        "'same with #12'",
        thread(c("m", "same with #12", "MEMBER", 60), closed_by="m", closed_minute=61),
        12,
    ),
    (
        "'dups with #12'",
        thread(c("m", "dups with #12", "MEMBER", 60), closed_by="m", closed_minute=61),
        12,
    ),
    (
        "'Duplicate with #12'",
        thread(c("m", "Duplicate with #12", "MEMBER", 60), closed_by="m", closed_minute=61),
        12,
    ),
    (
        "'Consolidating to tracking issue #12'",
        thread(
            c("m", "Consolidating to tracking issue #12", "MEMBER", 60),
            closed_by="m",
            closed_minute=61,
        ),
        12,
    ),
    (
        "'Isn't this a duplicate of #12? If not, please re-open'",
        thread(
            c("m", "Isn't this a duplicate of #12? If not, please re-open.", "MEMBER", 60),
            closed_by="m",
            closed_minute=61,
        ),
        12,
    ),
    (
        "... 'This isn't a duplicate of #12.' denies",
        thread(
            c("m", "This isn't a duplicate of #12.", "MEMBER", 60), closed_by="m", closed_minute=61
        ),
        None,
    ),
    (
        "'same with 1.8' names no issue",
        thread(c("m", "same with 1.8", "MEMBER", 60), closed_by="m"),
        None,
    ),
    # bots that act versus bots that suggest
    (
        "a triage bot closing as a duplicate",
        thread(
            c("triage-bot[bot]", "Closing as a duplicate of #12.", "NONE", 60),
            closed_by="triage-bot[bot]",
            closed_minute=61,
        ),
        12,
    ),
    (
        "a bot's 'Potential duplicates: - #12', nobody acting",
        thread(
            c("github-actions[bot]", "Potential duplicates:\n- #12", "NONE", 60),
            closed_by="reporter",
            closed_minute=61,
        ),
        None,
    ),
    (
        "a bot's 'Consider closing this issue as a duplicate of #12'",
        thread(
            c("github-actions", "Consider closing this issue as a duplicate of #12", "NONE", 60),
            closed_by="m",
            closed_minute=61 * 60,
        ),
        None,
    ),
    # issue forms
    (
        "a form's 'Possible duplicates' field",
        thread(
            body="### Describe the bug\nIt crashes.\n\n### Possible duplicates\n"
            "duplicate of #12\n\n### Version\n1.0",
            closed_by="m",
        ),
        None,
    ),
    (
        "... the same words in prose",
        thread(
            c("m", "duplicate of #12", "MEMBER", 60),
            body="### Describe the bug\nIt crashes.",
            closed_by="m",
            closed_minute=61,
        ),
        12,
    ),
    # hard negatives that used to pass
    (
        "retracted by its author",
        thread(
            c("u", "Duplicate of #12", "CONTRIBUTOR", 60),
            c("u", "Not actually a dupe of #12, my mistake.", "CONTRIBUTOR", 65),
            closed_by="m",
        ),
        None,
    ),
    (
        "rejected by a maintainer",
        thread(
            c("u", "dup of #12?", "NONE", 60),
            c("m", "I would not call it a duplicate.", "MEMBER", 65),
            closed_by="m",
        ),
        None,
    ),
    (
        "open, 'should this be closed in favour of #12?' answered 'No'",
        thread(
            c("u", "Should this be closed in favour of #12?", "NONE", 60),
            c("m", "No.", "MEMBER", 65),
            state="open",
        ),
        None,
    ),
    (
        "an unanswered aside in an open issue",
        thread(c("u", "Maybe a dup of #12?", "NONE", 60), state="open"),
        None,
    ),
]


@pytest.mark.parametrize(("case", "th", "expected"), PHENOMENA, ids=[p[0] for p in PHENOMENA])
def test_phenomenon(case: str, th: Thread, expected: int | None) -> None:
    chosen = canonical(extract_thread_links(th))
    assert (chosen.target_number if chosen else None) == expected


def test_label_pointer_is_a_visible_signal() -> None:
    th = _labelled(c("m", "Please see #12", "MEMBER", 60), closed_by="m", closed_minute=61)
    reading = extract_thread(th)
    assert Signal.LABEL_POINTER.value in reading.links[0].signals
    assert reading.counters["evidence:label_pointer"] == 1


def test_bot_suggestions_are_counted() -> None:
    th = thread(
        c("github-actions[bot]", "Potential duplicates:\n- #12", "NONE", 60), closed_by="reporter"
    )
    assert extract_thread(th).counters["dropped:bot_suggestion"] == 1


def test_form_fields_are_stripped_up_to_the_next_heading() -> None:
    body = "### Bug\nx\n### Related issues\n#12\n### Version\n1.0"
    assert "#12" not in strip_form_fields(body) and "1.0" in strip_form_fields(body)


_COPIED = (
    "Duplicate of https://github.com/acme/widgets/issues/12\n\n"
    "_Originally posted by @maint in "
    "https://github.com/acme/widgets/issues/11#issuecomment-3000000001_"
)


def test_a_body_copied_from_another_threads_comment_is_not_the_reporters_claim() -> None:
    # GitHub's "Reference in new issue": the copied "Duplicate of <url>" said #11 was one
    reading = extract_thread(thread(body=_COPIED, closed_by="m", closed_minute=61))
    assert canonical(reading.links) is None
    assert reading.counters["dropped:copied_comment"] == 1
    # what the reporter wrote below the signature is theirs; a body without one is read as is
    below = thread(body=_COPIED + "\n\nThis one is a dupe of #14.", closed_by="reporter")
    assert [link.target_number for link in extract_thread(below).links] == [14]
    plain = thread(body="Duplicate of #12", closed_by="reporter", closed_minute=61)
    assert canonical(extract_thread(plain).links).target_number == 12  # type: ignore[union-attr]


def test_a_github_alert_is_the_authors_own_words() -> None:
    # winget-pkgs' reporters close their own requests with an alert box (conv-16)
    note = "> [!NOTE]\n>\n> Close with reason: **Duplicate**.\n>\n> - See #12"
    own = thread(c("reporter", note, "NONE", 60), closed_by="reporter", closed_minute=61)
    assert canonical(extract_thread(own).links).target_number == 12  # type: ignore[union-attr]
    quoted = note.replace("> [!NOTE]\n", "")  # the same lines as a plain quote: someone's reply
    reply = thread(c("reporter", quoted, "NONE", 60), closed_by="reporter", closed_minute=61)
    assert canonical(extract_thread(reply).links) is None


def _titled(title: str, *posts: Post, **kw: Any) -> Thread:
    return replace(thread(*posts, body=kw.pop("body", ""), **kw), title=title)


def test_a_closed_issues_title_that_names_its_original_is_read_when_no_post_does() -> None:
    # conv-19's QGIS and matplotlib closes: the title is the only statement, the body empty
    reading = extract_thread(_titled("Duplicate of https://github.com/acme/widgets/issues/12"))
    assert canonical(reading.links).target_number == 12  # type: ignore[union-attr]
    assert reading.counters["evidence:title_statement"] == 1
    said = _titled("Crash on start, a duplicate of #12", closed_by="m")
    assert canonical(extract_thread(said).links).target_number == 12  # type: ignore[union-attr]
    # a post that names a target decides; the title is only the fallback
    told = _titled("Duplicate of #12", c("m", "Duplicate of #14", "MEMBER", 60), closed_by="m")
    assert canonical(extract_thread(told).links).target_number == 14  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("title", "kw"),
    [
        ("Duplicate of #12", {"state": "open"}),  # nobody acted on it
        ("Duplicate of #12?", {}),  # asked
        ("Not a duplicate of #12", {}),
        ("Maybe a duplicate of #12", {}),
        ("Duplicate of #12 or #13", {}),  # which one?
        ("I have the same problem as #12", {}),  # the reporter's own problem, not the issue
        ("Duplicate of #12", {"is_pr": True}),  # a pull request's title names what it redoes
        ("Duplicate rows in the export", {}),  # the word, no target
        # "Reference in new issue" fills the title from the comment the body copies
        ("Duplicate of #12", {"body": _COPIED}),
    ],
)
def test_a_title_that_does_not_firmly_name_one_original_says_nothing(
    title: str, kw: dict[str, Any]
) -> None:
    assert canonical(extract_thread(_titled(title, **kw)).links) is None


def test_the_closers_untargeted_duplicate_statement_makes_their_pointer_the_target() -> None:
    # conv-16's iris-grib close: the words, then the bare number in the next comment
    said = "This is a duplicate issue, so I am closing it."
    th = thread(c("m", said, "NONE", 60), c("m", "#253", "NONE", 60.5), **_CLOSED_BY_M)
    reading = extract_thread(th)
    assert canonical(reading.links).target_number == 253  # type: ignore[union-attr]
    assert reading.counters["evidence:closer_says_duplicate"] == 1
    # a bystander's words are no close; a closer's comment that names an issue itself says
    # what that issue is ("Related discussion ...: #12" is not the original)
    other = thread(c("u", said, "NONE", 60), c("m", "#253", "NONE", 60.5), **_CLOSED_BY_M)
    bystander = extract_thread(other)
    assert bystander.counters["evidence:closer_says_duplicate"] == 0
    # (the closer's bare number, their last word at the close, is a pointer of its own)
    assert bystander.counters["evidence:closer_pointer"] == 1
    spoke_after = thread(
        c("u", said, "NONE", 60),
        c("m", "#253", "NONE", 60.5),
        c("u", "ok", "NONE", 60.7),
        **_CLOSED_BY_M,
    )
    assert canonical(extract_thread(spoke_after).links) is None
    related = "Closing as a duplicate. Related discussion in the forum: #12"
    own = thread(c("m", related, "NONE", 60), **_CLOSED_BY_M)
    assert canonical(extract_thread(own).links) is None
    # long before the close the words were about something else
    late = thread(
        c("m", said, "NONE", 60), c("m", "#253", "NONE", 61), closed_by="m", closed_minute=14400
    )
    assert canonical(extract_thread(late).links) is None


_CLOSED_BY_M = {"closed_by": "m", "closed_minute": 61}


def test_the_closers_untargeted_duplicate_close_points_at_the_one_issue_the_title_names() -> None:
    # conv-22's gatsby close: "share it in the original issue. Closing this as a duplicate."
    said = c(
        "m", "Please add your reproduction to the original issue. Closing this as a duplicate."
    )
    reading = extract_thread(_titled("Is issue #12 really resolved?", said, **_CLOSED_BY_M))
    assert canonical(reading.links).target_number == 12  # type: ignore[union-attr]
    assert reading.counters["evidence:title_pointer"] == 1
    # two issues in the title, a bystander's words, or no duplicate word: nothing
    two = _titled("Is #12 or #13 resolved?", said, **_CLOSED_BY_M)
    assert canonical(extract_thread(two).links) is None
    bystander = c("u", said.body, "NONE", 60)
    by = _titled("Is issue #12 really resolved?", bystander, **_CLOSED_BY_M)
    assert canonical(extract_thread(by).links) is None
    plain = c("m", "Please add your reproduction to the original issue. Closing.")
    assert (
        canonical(extract_thread(_titled("Is #12 resolved?", plain, **_CLOSED_BY_M)).links) is None
    )
    # conv-25's ardupilot close: the title names this repository by its name before a rename
    renamed = _titled(
        "Look here again https://github.com/old-owner/widgets/issues/12",
        c("m", "duplicate.", "MEMBER", 60),
        **_CLOSED_BY_M,
    )
    cfg = LinkConfig(repo_aliases=(("old-owner/widgets", "acme/widgets"),))
    assert canonical(extract_thread(renamed, cfg).links).target_number == 12  # type: ignore[union-attr]
    assert canonical(extract_thread(renamed).links) is None  # another repository's, unknown
    # a pointer in a post comes first
    pointed = c("m", "Closing this as a duplicate.", "MEMBER", 60), c("m", "#14", "MEMBER", 60.5)
    first = _titled("Is issue #12 really resolved?", *pointed, **_CLOSED_BY_M)
    assert canonical(extract_thread(first).links).target_number == 14  # type: ignore[union-attr]


def test_a_body_copied_from_a_comment_in_a_thread_labelled_duplicate_points_at_that_thread() -> (
    None
):
    # conv-23's cryptomator close: a reporter's comment on #12, made a new issue, labelled
    copied = (
        "This is still happening on 2.1.\n\n"
        "_Originally posted by @bob in https://github.com/acme/widgets/issues/12#issuecomment-9_"
    )
    labelled = thread(body=copied, labels=("type:duplicate",))
    reading = extract_thread(labelled)
    assert canonical(reading.links).target_number == 12  # type: ignore[union-attr]
    assert reading.counters["evidence:copied_from_pointer"] == 1
    # without the duplicate label it says nothing; a maintainer's pointer comes first
    assert canonical(extract_thread(thread(body=copied)).links) is None
    pointed = thread(c("m", "See #14", "MEMBER", 60), body=copied, labels=("duplicate",))
    assert canonical(extract_thread(pointed).links).target_number == 14  # type: ignore[union-attr]


def test_a_review_note_made_an_issue_does_not_duplicate_its_pull_request() -> None:
    # conv-41's hapi-fhir close: a reviewer's note on a pull request, made an issue, then its
    # author's untargeted "Closed as duplicate": the pull request is the work under review
    copied = (
        "Please open an issue for this TODO so it does not get lost.\n\n"
        "_Originally posted by @rev in https://github.com/acme/widgets/pull/12#discussion_r9_"
    )
    closed = thread(
        c("rev", "Closed as duplicate", "MEMBER", 60),
        body=copied,
        author="rev",
        closed_by="rev",
        closed_minute=61,
    )
    reading = extract_thread(closed)
    assert canonical(reading.links) is None
    assert reading.counters["dropped:copied_from_pull"] == 1


def test_a_thread_labelled_duplicate_points_at_the_one_issue_its_reporter_named() -> None:
    # conv-24's NuGet close: "Can issue #640 be reopened?" over a link to #640, labelled
    # duplicate, and the team's reply names nothing
    url = "https://github.com/acme/widgets/issues/12"
    body = f"It came back for me; I wrote more at {url}"
    reply = c("m", "Thanks, we will look at it again in a few weeks.", "MEMBER", 60)
    labelled = _titled("Could #12 be opened again?", reply, body=body, labels=("duplicate",))
    reading = extract_thread(labelled)
    assert canonical(reading.links).target_number == 12  # type: ignore[union-attr]
    assert reading.counters["evidence:reporter_pointer"] == 1
    # without the label, with two issues named, or with another repository's: nothing
    assert (
        canonical(extract_thread(_titled("Could #12 be opened again?", reply, body=body)).links)
        is None
    )
    two = _titled("Could #12 be opened again?", reply, body="Also #13.", labels=("duplicate",))
    assert canonical(extract_thread(two).links) is None
    upstream = "https://github.com/other/lib/issues/12"
    other = _titled("Crash", reply, body=f"Upstream: {upstream}", labels=("duplicate",))
    assert canonical(extract_thread(other).links) is None
    # the reporter named it to set it apart (onnxruntime #2119)
    apart = "I checked the similar issue #12, but it couldn't solve my case."
    contrast = _titled("Intermediate outputs", reply, body=apart, labels=("duplicate",))
    reading = extract_thread(contrast)
    assert canonical(reading.links) is None
    assert reading.counters["dropped:reporter_contrasts"] == 1
    # a maintainer's pointer comes first
    pointed = _titled(
        "Could #12 be opened again?",
        c("m", "See #14", "MEMBER", 60),
        body=body,
        labels=("duplicate",),
    )
    assert canonical(extract_thread(pointed).links).target_number == 14  # type: ignore[union-attr]


def test_a_thread_labelled_duplicate_points_at_the_one_issue_anyone_named() -> None:
    # conv-35's xenia-canary close: a bystander's "#236 seems to be similar to what you're
    # asking", the reporter's apology, the duplicate label; nobody who may point pointed
    hint = c("passerby", "#12 looks a lot like what you describe", "NONE", 60)
    sorry = c("reporter", "Oh, my bad, I had even upvoted that one already.", "NONE", 70)
    labelled = thread(hint, sorry, labels=("duplicate",))
    reading = extract_thread(labelled)
    assert canonical(reading.links).target_number == 12  # type: ignore[union-attr]
    assert reading.counters["evidence:only_named_pointer"] == 1
    # the state reason is the record too
    reason = thread(hint, sorry, state_reason="duplicate")
    assert canonical(extract_thread(reason).links).target_number == 12  # type: ignore[union-attr]
    # without the record nobody said duplicate
    assert canonical(extract_thread(thread(hint, sorry)).links) is None
    # two issues named: the record answers neither
    also = c("other", "There is also #13 about a similar hang.", "NONE", 65)
    assert canonical(extract_thread(thread(hint, also, sorry, labels=("duplicate",))).links) is None
    # a pull request or another repository's issue named beside it
    fix = c("other", "The fix is in https://github.com/acme/widgets/pull/14", "NONE", 65)
    assert canonical(extract_thread(thread(hint, fix, labels=("duplicate",))).links) is None
    upstream = c("passerby", "https://github.com/other/lib/issues/12 has this too", "NONE", 60)
    assert canonical(extract_thread(thread(upstream, labels=("duplicate",))).links) is None
    # a suggestion bot's list is no one's pointer (issue 32: a suggestion stays a suggestion)
    bot = c("similar-issues[bot]", "Possibly related: #12", "NONE", 1)
    reading = extract_thread(thread(bot, sorry, labels=("duplicate",)))
    assert canonical(reading.links) is None
    assert reading.counters["dropped:only_named_by_bot"] == 1
    # the sentence sets it apart
    apart = c("passerby", "Unlike #12, this one happens without a game running.", "NONE", 60)
    reading = extract_thread(thread(apart, labels=("duplicate",)))
    assert canonical(reading.links) is None
    assert reading.counters["dropped:only_named_contrasts"] == 1
    # named as the fix (neovim #34019), or years after the close (neovim #3784's late wish)
    fixed = c("passerby", "May have been resolved in #12.", "NONE", 60)
    reading = extract_thread(thread(fixed, labels=("duplicate",)))
    assert canonical(reading.links) is None
    assert reading.counters["dropped:only_named_fix"] == 1
    late = c("passerby", "Hope this gets added one day: #12", "NONE", 10_000 + 2 * 24 * 60)
    assert canonical(extract_thread(thread(late, labels=("duplicate",))).links) is None
    # a maintainer's pointer comes first
    pointed = c("m", "See #15", "MEMBER", 80)
    labelled = thread(hint, pointed, labels=("duplicate",))
    assert canonical(extract_thread(labelled).links).target_number == 15  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "said",
    [
        "Merging with https://github.com/acme/widgets/pull/12.patch applied by hand fails.",
        "Redirect to https://github.com/acme/widgets/issues/12.json returns the old page.",
    ],
)
def test_a_full_stop_inside_a_url_does_not_end_the_sentence(said: str) -> None:
    """Whole-sentence rules ("Merging with #12.", "Redirect to <url>.") want the issue to end
    the sentence: a maintainer's close that goes on after a URL with a dot in it is about
    something else."""
    th = thread(c("m", said, "MEMBER", 60), **_CLOSED_BY_M)
    assert canonical(extract_thread(th).links) is None
    ended = said.split(".patch")[0].split(".json")[0] + "."
    assert canonical(extract_thread(thread(c("m", ended, "MEMBER", 60), **_CLOSED_BY_M)).links)


def test_a_statement_about_a_bystanders_report_is_not_about_this_issue() -> None:
    # conv-21's vscode-jupyter close: "@bob your issue is a duplicate of <url>" answers bob's
    # comment here; said to the issue's author it is this issue's
    url = "https://github.com/acme/widgets/issues/12"
    bob = c("bob", "I see the same kernel crash on Linux.", "NONE", 30)
    said = c("m", f"@bob your issue is a duplicate of {url}", "MEMBER", 60)
    reading = extract_thread(thread(bob, said, **_CLOSED_BY_M))
    assert canonical(reading.links) is None
    assert reading.counters["dropped:addressed_to_bystanders_report"] == 1
    to_author = c("m", f"@reporter your issue is a duplicate of {url}", "MEMBER", 60)
    own = thread(bob, to_author, **_CLOSED_BY_M)
    assert canonical(extract_thread(own).links).target_number == 12  # type: ignore[union-attr]
    plain = thread(bob, c("m", f"@bob this is a duplicate of {url}", "MEMBER", 60), **_CLOSED_BY_M)
    assert canonical(extract_thread(plain).links).target_number == 12  # type: ignore[union-attr]


def test_a_bystanders_own_other_bug_is_not_this_issue_reported_before() -> None:
    # conv-19's false link: "I already reported a bug <url>, could you fix it ..." in a test
    # plan; the author's "I already reported an issue about this: #12" is this issue's
    own = "I already reported a bug https://github.com/acme/widgets/issues/12, could you fix it?"
    th = thread(c("u", own, "MEMBER", 60), **_CLOSED_BY_M)
    assert canonical(extract_thread(th).links) is None
    about = "I already reported an issue about this: #12"
    th = thread(c("reporter", about, "NONE", 60), closed_by="reporter", closed_minute=61)
    assert canonical(extract_thread(th).links).target_number == 12  # type: ignore[union-attr]


@pytest.mark.parametrize("text", [t for _, t in EXAMPLES + NEAR_MISSES])
def test_the_substring_prefilter_never_hides_what_the_screen_regex_finds(text: str) -> None:
    import re

    assert screens(text) == bool(re.search(CUE_REGEX, text))


_SPACES = (" ", "  ", "\n", "\t", " \n ")


def _variants(text: str) -> list[str]:
    """`text` with its spaces as other whitespace, in other cases, and inside longer text."""
    out = [text.replace(" ", space) for space in _SPACES]
    out += [text.upper(), text.title(), f"Some log line\n{text}\nmore words after it"]
    return out


_SCREEN_SAMPLES = [  # one text per alternative of every rule's screen (CUE_REGEX)
    "dup",
    "favour",
    "favor",
    "superseded",
    "supersceded",
    "subsumed",
    "replaced with",
    "replaced by",
    "consolidate",
    "continue to track",
    "keep track",
    "is tracking",
    "tracked in",
    "tracked over",
    "tracking this",
    "track the",
    "please follow",
    "stay tuned",
    "continued as",
    "reopened in",
    "resubmitted at",
    "re-submitted into",
    "rebased as",
    "re-filed in",
    "refiled as",
    "recreated in",
    "re-created as",
    "this is now",
    "new pr",
    "new pull request",
    "same",
    "reported",
    "already filed",
    "already opened",
]


@pytest.mark.parametrize(
    "text",
    [v for t in _SCREEN_SAMPLES + [t for _, t in EXAMPLES + NEAR_MISSES] for v in _variants(t)],
)
def test_the_cue_screen_prefilter_agrees_with_its_regex(text: str) -> None:
    """`CUE.search` skips the regex on texts without a cue word: it must answer as the regex
    does."""
    import re

    from issues_sts.evidence.vocabulary import CUE

    expected = bool(re.search(CUE_REGEX.removeprefix("(?i)"), text.lower()))
    assert (CUE.search(text) is not None) == expected
    assert CUE.matches(text) == expected


def test_every_screen_alternative_has_a_prefilter_word() -> None:
    """The prefilter's words come from the screens themselves; a screen with no literal word
    would switch the prefilter off (correct, but the link stage several times slower)."""
    from issues_sts.evidence.vocabulary import _CUE_NEEDS, required_words

    assert _CUE_NEEDS is not None
    assert required_words(r"favou?r|(?:continued|re-?filed)\s+(?:as|in)|this\s+is\s+now") == (
        (("favo",),),
        (("continued", "filed"),),
        (("this",), ("now",)),
    )
    assert required_words(r"dup|\w+\s+of") is None


def test_the_cue_screen_prefilter_agrees_with_its_regex_on_modern_texts() -> None:
    """Every text of a small paper world (issue forms, logs, bot comments, cue words at their
    realistic rates): the cheap screen answers exactly as the regex."""
    import re

    from issues_sts.evidence.vocabulary import CUE
    from issues_sts.sandbox.worlds.paper import PaperConfig, iter_paper_world

    regex = re.compile(CUE_REGEX.removeprefix("(?i)"))
    texts = [
        obj.get("body") or ""
        for chunk in iter_paper_world(
            PaperConfig(
                scale=0.001, repos=("pytorch/pytorch", "microsoft/vscode", "kubernetes/kubernetes")
            )
        )
        for obj in chunk.data.issues + chunk.data.comments
    ]
    assert len(texts) > 1000
    assert sum(bool(regex.search(t.lower())) for t in texts) > 10
    for text in texts:
        assert CUE.matches(text) == bool(regex.search(text.lower())), text[:200]
