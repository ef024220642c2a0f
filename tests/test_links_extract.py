"""Thread-level rules of issue 3, one small realistic thread per row."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from issues_sts.links import LinkConfig, extract_thread, extract_thread_links
from issues_sts.links.model import Signal, Thread
from tests.links_helpers import by_target, c, canonical, ev, thread

# (case, thread, expected canonical target or None)
CANONICAL_CASES: list[tuple[str, Thread, int | None]] = [
    ("graphql event names the canonical", thread(events=(ev("marked_as_duplicate", 12),)), 12),
    (
        "unmarked cancels the event",
        thread(
            events=(
                ev("marked_as_duplicate", 12, minute=90),
                ev("unmarked_as_duplicate", 12, minute=95),
            )
        ),
        None,
    ),
    (
        "last event wins",
        thread(
            events=(
                ev("marked_as_duplicate", 12, minute=90),
                ev("marked_as_duplicate", 13, minute=95),
            )
        ),
        13,
    ),
    (
        "event beats a drive-by's comment",
        thread(c("bystander", "dupe of #14", minute=80), events=(ev("marked_as_duplicate", 12),)),
        12,
    ),
    (
        "keyword by a maintainer who closes",
        thread(c("maint", "Duplicate of #12", "MEMBER", 100), closed_by="maint", closed_minute=100),
        12,
    ),
    (
        "keyword and the event disagree: the event wins",
        thread(
            c("bystander", "Duplicate of #15", minute=80), events=(ev("marked_as_duplicate", 12),)
        ),
        12,
    ),
    (
        "maintainer wording",
        thread(
            c("maint", "Closing as a duplicate of #12.", "OWNER", 100),
            closed_by="maint",
            closed_minute=101,
        ),
        12,
    ),
    (
        "slash command by a bot",
        thread(
            c("triage-bot[bot]", "/duplicate #12", "NONE", 100),
            closed_by="triage-bot[bot]",
            closed_minute=100,
        ),
        12,
    ),
    (
        "hedged wording is still evidence",
        thread(c("maint", "This is probably a dup of #12", "MEMBER")),
        12,
    ),
    (
        "reference in quoted reply ignored",
        thread(c("user2", "> Duplicate of #12\n\nNo, this is a different crash.")),
        None,
    ),
    ("reference in code ignored", thread(c("user2", "```\n// Duplicate of #12\n```")), None),
    (
        "html comment ignored",
        thread(body="<!-- Duplicate of #12 -->\nThe app crashes on start."),
        None,
    ),
    (
        "template placeholder ignored",
        thread(c("user2", "Duplicate of #\n\nFixes #{issue number}")),
        None,
    ),
    (
        "not a duplicate of N is no link",
        thread(c("maint", "This is not a duplicate of #12.", "MEMBER")),
        None,
    ),
    (
        "reopen-if-not-duplicate keeps the link",
        thread(
            c(
                "maint",
                "Closing as a duplicate of #12. Please reopen if you think it is not a duplicate.",
                "MEMBER",
                100,
            ),
            closed_by="maint",
            closed_minute=100,
        ),
        12,
    ),
    (
        "same author retargets: latest wins",
        thread(
            c("maint", "Dupe of #12", "MEMBER", 60),
            c("maint", "Oops, wrong one: dupe of #13", "MEMBER", 70),
        ),
        13,
    ),
    (
        "later retraction by the same person",
        thread(
            c("maint", "Dupe of #12", "MEMBER", 60),
            c("maint", "Not actually a dupe of #12, my mistake.", "MEMBER", 70),
        ),
        None,
    ),
    (
        "untargeted denial by a maintainer retracts",
        thread(c("user2", "dup of #12", "NONE", 60), c("maint", "This isn't a dup.", "MEMBER", 70)),
        None,
    ),
    (
        "a drive-by's denial does not overrule the maintainer",
        thread(
            c("maint", "Closing as a dupe of #12", "MEMBER", 60),
            c("user3", "this is not a dup of #12", "NONE", 70),
            closed_by="maint",
            closed_minute=60,
        ),
        12,
    ),
    (
        "maintainer after a drive-by with another target",
        thread(c("user2", "dupe of #14", "NONE", 50), c("maint", "Duplicate of #12", "MEMBER", 60)),
        12,
    ),
    (
        "a later firm retarget by someone else wins",
        thread(
            c("maint", "Duplicate of #12", "MEMBER", 50),
            c("user2", "Actually this is a dupe of #14", "NONE", 60),
        ),
        14,
    ),
    (
        "a later hedged suggestion does not displace a firm claim",
        thread(
            c("maint", "Duplicate of #12", "MEMBER", 50),
            c("user2", "Maybe also a dupe of #14?", "NONE", 60),
        ),
        12,
    ),
    (
        "a dispute after the final close does not undo it",
        thread(
            c("u", "Dupe of #12", "NONE", 50),
            c("v", "No, the two bugs are different.", "NONE", 20_000),
            closed_minute=100,
        ),
        12,
    ),
    ("self link dropped", thread(c("maint", "Duplicate of #10", "MEMBER")), None),
    (
        "related-to is not a link",
        thread(c("maint", "Related to #12, see also #13", "MEMBER")),
        None,
    ),
    ("label alone has no target", thread(labels=("r: duplicate",), state_reason="duplicate"), None),
    (
        "another maintainer retargets later: the latest wins",
        thread(
            c("m1", "Closing as dup of #12", "MEMBER", 60),
            c("m2", "Actually this is a dup of #13", "MEMBER", 70),
        ),
        13,
    ),
    (
        "same-bug wording by the closer",
        thread(
            c("m", "Same bug as #12. Closing.", "MEMBER", 100), closed_by="m", closed_minute=100
        ),
        12,
    ),
    (
        "same reason is not a claim",
        thread(c("m", "Closing for the same reason as #12", "MEMBER")),
        None,
    ),
    (
        "closing as dup after a comment naming one issue",
        thread(
            c("u", "This looks like #12 to me", "NONE", 60),
            c("m", "Closing as dup.", "MEMBER", 70),
            closed_by="m",
            closed_minute=70,
        ),
        12,
    ),
    (
        "'Agreed, duplicate.' after a suggestion",
        thread(
            c("u", "This might be a duplicate of #12.", "NONE", 60),
            c("m", "Agreed, duplicate.", "MEMBER", 100),
            state="open",
        ),
        12,
    ),
    (
        "'reported before, closing' after a comment naming one issue",
        thread(
            c("u", "I think #12 describes the same problem.", "NONE", 60),
            c("m", "This has been reported before, closing.", "MEMBER", 100),
            closed_by="m",
            closed_minute=100,
        ),
        12,
    ),
    (
        "'Duplicate, closing.' after a comment naming one issue",
        thread(
            c("u", "Looks like #12.", "NONE", 60),
            c("m", "Duplicate, closing.", "MEMBER", 100),
            closed_by="m",
            closed_minute=100,
        ),
        12,
    ),
    (
        "'a duplicate of that' points at this comment's own reference",
        thread(
            c("u", "cc #13", "NONE", 60),
            c(
                "m",
                "While #12 is newer, it has more detail, so I'm closing this as a "
                "duplicate of that.",
                "MEMBER",
                100,
            ),
            closed_by="m",
            closed_minute=100,
        ),
        12,
    ),
    (
        "'some are already reported' is not about this issue",
        thread(c("reporter", "See #13. At least some of these are already reported.", "NONE", 60)),
        None,
    ),
    (
        "'cannot duplicate' is reproduction, not a claim",
        thread(
            c("u", "See #12.", "NONE", 60),
            c("m", "I cannot duplicate this on macOS.", "MEMBER", 100),
            closed_by="m",
            closed_minute=100,
        ),
        None,
    ),
    (
        "... not when that comment names two",
        thread(c("u", "Maybe #12 or #13", "NONE", 60), c("m", "Closing as dup.", "MEMBER", 70)),
        None,
    ),
    (
        "reopening retracts",
        thread(
            c("m", "Closing as dup of #12", "MEMBER", 60),
            c("m", "Reopening, this is a different crash.", "MEMBER", 70),
            state="open",
        ),
        None,
    ),
    (
        "a merge-bot close sinks a weak suggestion",
        thread(c("u", "Maybe the same bug as #12", "NONE"), closed_by="bors"),
        None,
    ),
    (
        "a later fix report sinks a hedged suggestion",
        thread(c("u", "Probably a dup of #12", "NONE", 60), c("dev", "Fixed by #40", "NONE", 90)),
        None,
    ),
    (
        "... but not the closer's own claim",
        thread(
            c("m", "Probably a dup of #12, closing", "NONE", 60),
            c("dev", "Fixed by #40", "NONE", 90),
            closed_by="m",
            closed_minute=60,
        ),
        12,
    ),
    (
        "a later fix report sinks a weak suggestion",
        thread(
            c("u", "Maybe the same bug as #12", "NONE", 60), c("dev", "Fixed by #40", "NONE", 90)
        ),
        None,
    ),
    ("... which stands without them", thread(c("u", "Maybe the same bug as #12", "NONE", 60)), 12),
    (
        "an uncontested hedged suggestion counts",
        thread(c("u", "Possibly a dup of #12", "NONE", 60)),
        12,
    ),
    (
        "a suggestion in a still-open issue is not enough",
        thread(c("u", "Possibly a dup of #12", "NONE", 60), state="open"),
        None,
    ),
    (
        "... a maintainer's word in an open issue is",
        thread(c("m", "Dup of #12", "MEMBER", 60), state="open"),
        12,
    ),
    (
        "a reply disagreeing retracts a suggestion",
        thread(
            c("u", "Possibly a dup of #12", "NONE", 60),
            c("reporter", "No, the two bugs are independent.", "NONE", 70),
        ),
        None,
    ),
    (
        "'they are otherwise independent' is not a disagreement",
        thread(
            c("m", "Dup of #12", "MEMBER", 60),
            c("m", "The values are freed, but they are otherwise independent.", "MEMBER", 70),
        ),
        12,
    ),
    (
        "'not really a dupe of that bug' retracts",
        thread(
            c("u", "This is sort of a duplicate of #12.", "NONE", 60),
            c("u", "Then it's not really a dupe of that bug as this existed before.", "NONE", 70),
        ),
        None,
    ),
    (
        "a reply agreeing confirms",
        thread(
            c("u", "Dup of #12?", "NONE", 60),
            c("v", "Yes, though more discussion here.", "NONE", 70),
        ),
        12,
    ),
    (
        "... not when the fix report names the target",
        thread(c("u", "dup of #12", "NONE", 60), c("dev", "#12 is fixed now", "NONE", 90)),
        12,
    ),
    (
        "emphasised negation",
        thread(c("m", "**Not** a dupe of #12, it still crashes.", "MEMBER")),
        None,
    ),
    ("multi-target: the first named", thread(c("m", "Dupe of #13 and #12", "MEMBER")), 13),
    (
        "a weak body claim is not enough",
        thread(body="Maybe a duplicate of #12? The app crashes on start."),
        None,
    ),
]


@pytest.mark.parametrize(
    ("case", "th", "expected"), CANONICAL_CASES, ids=[c[0] for c in CANONICAL_CASES]
)
def test_canonical(case: str, th: Thread, expected: int | None) -> None:
    chosen = canonical(extract_thread_links(th))
    assert (chosen.target_number if chosen else None) == expected


def _conf(th: Thread, target: int = 12) -> float:
    return by_target(extract_thread_links(th))[target].confidence


# (case, stronger thread, weaker thread): the first must be more confident than the second
ORDER_CASES: list[tuple[str, Thread, Thread]] = [
    (
        "maintainer outranks drive-by",
        thread(c("m", "dup of #12", "MEMBER")),
        thread(c("u", "dup of #12", "NONE")),
    ),
    (
        "collaborator outranks drive-by",
        thread(c("m", "dup of #12", "COLLABORATOR")),
        thread(c("u", "dup of #12", "CONTRIBUTOR")),
    ),
    (
        "issue author confirming outranks drive-by",
        thread(c("reporter", "Yes, dup of #12", "NONE")),
        thread(c("u", "Yes, dup of #12", "NONE")),
    ),
    (
        "closing actor adds weight",
        thread(c("u", "dup of #12"), closed_by="u"),
        thread(c("u", "dup of #12"), closed_by="x"),
    ),
    (
        "close soon after adds weight",
        thread(c("u", "dup of #12", minute=60), closed_by="x", closed_minute=70),
        thread(c("u", "dup of #12", minute=60), closed_by="x", closed_minute=60 * 24 * 30),
    ),
    (
        "hedge lowers",
        thread(c("m", "dup of #12", "MEMBER")),
        thread(c("m", "probably a dup of #12", "MEMBER")),
    ),
    (
        "state_reason raises",
        thread(c("u", "dup of #12"), state_reason="duplicate"),
        thread(c("u", "dup of #12")),
    ),
    (
        "duplicate label raises",
        thread(c("u", "dup of #12"), labels=("triage/duplicate",)),
        thread(c("u", "dup of #12")),
    ),
    (
        "keyword outranks wording",
        thread(c("u", "Duplicate of #12")),
        thread(c("u", "I think same bug, dup of #12")),
    ),
    (
        "a still-open issue is weaker",
        thread(c("u", "dup of #12")),
        thread(c("u", "dup of #12"), state="open"),
    ),
    (
        "a merge-bot close lowers",
        thread(c("u", "dup of #12"), closed_by="x"),
        thread(c("u", "dup of #12"), closed_by="bors"),
    ),
    (
        "a later fix report lowers",
        thread(c("u", "dup of #12", minute=60)),
        thread(c("u", "dup of #12", minute=60), c("v", "This is fixed now.", minute=70)),
    ),
    (
        "a yes right after confirms",
        thread(c("u", "dup of #12?", minute=60), c("v", "Yep.", minute=61)),
        thread(c("u", "dup of #12?", minute=60)),
    ),
    (
        "two people agreeing",
        thread(c("u", "dup of #12", minute=60), c("v", "yes, dup of #12", minute=61)),
        thread(c("u", "dup of #12", minute=60)),
    ),
    (
        "a later untargeted 'closing as dup' by the closer confirms",
        thread(
            c("u", "probably a dup of #12", minute=60), c("m", "Yes, closing as dup.", "MEMBER", 61)
        ),
        thread(c("u", "probably a dup of #12", minute=60)),
    ),
]


@pytest.mark.parametrize(("case", "strong", "weak"), ORDER_CASES, ids=[c[0] for c in ORDER_CASES])
def test_confidence_order(case: str, strong: Thread, weak: Thread) -> None:
    assert _conf(strong) > _conf(weak)


SIGNAL_CASES: list[tuple[str, Thread, Callable[[set[str]], bool]]] = [
    (
        "graphql",
        thread(events=(ev("marked_as_duplicate", 12),)),
        lambda s: Signal.GRAPHQL_EVENT.value in s,
    ),
    ("hedged recorded", thread(c("m", "probably a dup of #12", "MEMBER")), lambda s: "hedged" in s),
    (
        "closer recorded",
        thread(c("m", "dup of #12"), closed_by="m"),
        lambda s: "author_closed_issue" in s,
    ),
    (
        "labels recorded",
        thread(c("m", "dup of #12"), labels=("Resolution-Duplicate",)),
        lambda s: "duplicate_label" in s,
    ),
    (
        "drive-by recorded",
        thread(c("u", "dup of #12")),
        lambda s: "drive_by" in s and "comment_wording" in s,
    ),
]


@pytest.mark.parametrize(("case", "th", "check"), SIGNAL_CASES, ids=[c[0] for c in SIGNAL_CASES])
def test_signals_recorded(case: str, th: Thread, check: Callable[[set[str]], bool]) -> None:
    assert check(set(by_target(extract_thread_links(th))[12].signals))


def test_several_references_are_all_kept_with_evidence() -> None:
    th = thread(c("u", "dupe of #14", "NONE", 50), c("m", "Duplicate of #12", "MEMBER", 60))
    links = by_target(extract_thread_links(th))
    assert set(links) == {12, 14}
    assert links[14].excluded_reason == "not_canonical"
    assert links[14].evidence_url.endswith("issuecomment-50")


def test_retargeted_link_is_kept_as_superseded() -> None:
    th = thread(
        c("m", "Dupe of #12", "MEMBER", 60), c("m", "Sorry, I meant dupe of #13", "MEMBER", 70)
    )
    assert by_target(extract_thread_links(th))[12].excluded_reason == "superseded"


def test_unknown_target_is_counted_never_guessed() -> None:
    reading = extract_thread(thread(labels=("duplicate",)))
    assert reading.links == []
    assert reading.counters["duplicate_unknown_target"] == 1
    rest = extract_thread(thread(events=(ev("marked_as_duplicate", None, source="rest"),)))
    assert rest.counters["duplicate_unknown_target"] == 1


def test_rest_event_confirms_the_keyword_comment() -> None:
    th = thread(
        c("m", "Duplicate of #12", "NONE", 60),
        events=(ev("marked_as_duplicate", None, "m", 60, "rest"),),
    )
    assert "event_confirmed" in by_target(extract_thread_links(th))[12].signals


def test_drop_counters() -> None:
    th = thread(
        c("u", "Duplicate of #10"),
        c("v", "not a dup of #12"),
        c("w", "> dup of #13\nhm"),
        c("x", "Note that #20 was a duplicate of #21."),
    )
    counters = extract_thread(th).counters
    assert counters["dropped:self_link"] == 1
    assert counters["dropped:negated"] == 1
    assert counters["dropped:in_code_quote_or_comment"] == 1
    assert counters["dropped:other_subject"] == 1


def test_min_confidence_is_policy() -> None:
    th = thread(c("u", "probably a dup of #12"))
    assert canonical(extract_thread_links(th, LinkConfig(min_confidence=0.99))) is None
    low = by_target(extract_thread_links(th, LinkConfig(min_confidence=0.99)))[12]
    assert low.excluded_reason == "low_confidence"


def test_repo_aliases_resolve_old_names() -> None:
    th = thread(c("m", "dupe of https://github.com/old-owner/widgets/issues/12", "MEMBER"))
    cfg = LinkConfig(repo_aliases=(("old-owner/widgets", "acme/widgets"),))
    link = canonical(extract_thread_links(th, cfg))
    assert link is not None and (link.target_repo, link.target_number) == ("acme/widgets", 12)


def test_config_is_validated() -> None:
    with pytest.raises(ValueError):
        LinkConfig(min_confidence=1.5)
