"""Reference extraction and duplicate wording, one realistic comment per row."""

from __future__ import annotations

import pytest

from issues_sts.evidence.patterns import KEYWORD, SLASH, WORDING, find_claims, find_refs

REPO = "acme/widgets"
SELF = 10

REF_CASES = [
    # (case, text, [(repo, number, kind)])
    ("relative", "see #12", [(REPO, 12, "unknown")]),
    ("cross repo", "tracked in other/tool#7", [("other/tool", 7, "unknown")]),
    ("issue url", "https://github.com/acme/widgets/issues/12", [(REPO, 12, "issue")]),
    (
        "url query and fragment stripped",
        "https://github.com/acme/widgets/issues/12?q=1#issuecomment-99",
        [(REPO, 12, "issue")],
    ),
    (
        "url fragment only",
        "https://github.com/acme/widgets/issues/12#issuecomment-4567",
        [(REPO, 12, "issue")],
    ),
    ("pull url", "https://github.com/acme/widgets/pull/30/files", [(REPO, 30, "pull")]),
    ("other repo url", "https://github.com/other/tool/issues/5.", [("other/tool", 5, "issue")]),
    (
        "markdown link uses the url",
        "[#12](https://github.com/acme/widgets/issues/99)",
        [(REPO, 99, "issue")],
    ),
    (
        "markdown link with words",
        "[this one](https://github.com/acme/widgets/issues/12)",
        [(REPO, 12, "issue")],
    ),
    (
        "non-github url masked",
        "http://example.org/page#123 and gist https://gist.github.com/a/b#file-1",
        [],
    ),
    ("html entity is not a ref", "&#123; and C#1", []),
    ("GH- prefix", "GH-44", [(REPO, 44, "unknown")]),
    (
        "several",
        "#1, #2 and other/tool#3",
        [(REPO, 1, "unknown"), (REPO, 2, "unknown"), ("other/tool", 3, "unknown")],
    ),
]


@pytest.mark.parametrize(("case", "text", "expected"), REF_CASES, ids=[c[0] for c in REF_CASES])
def test_find_refs(case: str, text: str, expected: list[tuple[str, int, str]]) -> None:
    assert [(r.repo, r.number, r.kind) for r in find_refs(text, REPO)] == expected


CLAIM_CASES = [
    # (case, comment, [(number, cue, negated, hedged)])
    ("native keyword", "Duplicate of #12", [(12, KEYWORD, False, False)]),
    (
        "keyword with url",
        "Duplicate of https://github.com/acme/widgets/issues/12",
        [(12, KEYWORD, False, False)],
    ),
    ("keyword needs line start", "This is a Duplicate of #12", [(12, WORDING, False, False)]),
    (
        "closing as a duplicate",
        "Thanks! Closing as a duplicate of #12.",
        [(12, WORDING, False, False)],
    ),
    ("dupe of", "Dupe of #12", [(12, WORDING, False, False)]),
    ("dup of", "dup of #12", [(12, WORDING, False, False)]),
    (
        "duplicate of url",
        "This is a duplicate of https://github.com/acme/widgets/issues/12#issuecomment-1",
        [(12, WORDING, False, False)],
    ),
    ("closing in favor of", "Closing in favor of #12", [(12, WORDING, False, False)]),
    ("closed in favour of", "I closed this in favour of #12.", [(12, WORDING, False, False)]),
    ("slash duplicate", "/duplicate #12", [(12, SLASH, False, False)]),
    (
        "slash duplicate of url",
        "/duplicate of https://github.com/acme/widgets/issues/12",
        [(12, SLASH, False, False)],
    ),
    ("slash dup", "/dup #12", [(12, SLASH, False, False)]),
    (
        "markdown link",
        "Duplicate of [#12](https://github.com/acme/widgets/issues/12)",
        [(12, KEYWORD, False, False)],
    ),
    ("cross repo", "dupe of other/tool#7", [(7, WORDING, False, False)]),
    ("filler words", "Closing as a dupe of the older issue #12", [(12, WORDING, False, False)]),
    (
        "list of targets",
        "dupe of #12, #13 and #14",
        [(12, WORDING, False, False), (13, WORDING, False, False), (14, WORDING, False, False)],
    ),
    ("hedge probably", "This is probably a duplicate of #12", [(12, WORDING, False, True)]),
    ("hedge possible", "Possible duplicate of #12", [(12, WORDING, False, True)]),
    ("hedge might be", "This might be a dup of #12", [(12, WORDING, False, True)]),
    ("hedge looks like", "Looks like a dupe of #12", [(12, WORDING, False, True)]),
    ("hedge question", "Dupe of #12?", [(12, WORDING, False, True)]),
    ("hedge after the ref", "Dup of #12, I think.", [(12, WORDING, False, True)]),
    (
        "hedge in a relative clause about the target is not a hedge",
        "This is a dupe of #12 which I suspect was closed by accident.",
        [(12, WORDING, False, False)],
    ),
    ("short trailing hedge", "Dupe of #12 I think.", [(12, WORDING, False, True)]),
    (
        "a long-standing bug",
        "This is actually a duplicate of a long-standing bug, #12.",
        [(12, WORDING, False, False)],
    ),
    (
        "remark in parentheses is not a hedge",
        "Closing as a dupe of #12 (I believe a macro bug)",
        [(12, WORDING, False, False)],
    ),
    ("not a duplicate of", "This is not a duplicate of #12", [(12, WORDING, True, False)]),
    (
        "isn't a dupe of",
        "It isn't a dupe of #12, the backtrace differs.",
        [(12, WORDING, True, False)],
    ),
    (
        "not actually a dupe",
        "Not actually a dupe of #12, my mistake.",
        [(12, WORDING, True, False)],
    ),
    ("don't think", "I don't think this is a dup of #12.", [(12, WORDING, True, False)]),
    (
        "trailing but not",
        "Thought it might be a dupe of #12 but I don't think so.",
        [(12, WORDING, True, True)],
    ),
    (
        "conditional keeps the link",
        "Closing as a duplicate of #12. Please reopen if you think it is not a duplicate.",
        [(12, WORDING, False, False)],
    ),
    ("conditional negation is neither", "Reopen if you think this is not a duplicate of #12", []),
    (
        "conditional positive is hedged",
        "If so, this is a duplicate of #12",
        [(12, WORDING, False, True)],
    ),
    (
        "parenthetical in the gap",
        "Probably a duplicate (implementation-wise) of #12",
        [(12, WORDING, False, True)],
    ),
    (
        "adjectives in the gap",
        "Closing as a dupe of the more modern #12",
        [(12, WORDING, False, False)],
    ),
    ("question mark in the gap", "Possible duplicate? #12", [(12, WORDING, False, True)]),
    ("dropping in favor of", "Dropping in favor of #12", [(12, WORDING, False, False)]),
    (
        "in favor of the associated RFC",
        "Closing in favor of the associated RFC: https://github.com/o/rfcs/pull/12",
        [(12, WORDING, False, False)],
    ),
    ("in favor of as an opinion", "I'm in favor of #12 landing first.", []),
    ("number without hash", "Dupe of 4567.", [(4567, WORDING, False, False)]),
    ("superseded by", "Closing, superseded by #12.", [(12, WORDING, False, False)]),
    ("a count is not a number", "This is a duplicate of 100 other reports", []),
    (
        "antecedent: in favor of that",
        "This is covered by #12, so closing in favor of that.",
        [(12, WORDING, False, False)],
    ),
    (
        "antecedent: closing as dup",
        "Subsumed in #12, closing as duplicate.",
        [(12, WORDING, False, False)],
    ),
    (
        "may or may not is a hedge",
        "So this may or may not be a dup of #12.",
        [(12, WORDING, False, True)],
    ),
    (
        "whether or not is a hedge",
        "Whether or not a dup of #12, it crashes.",
        [(12, WORDING, False, True)],
    ),
    (
        "not convinced negates",
        "I'm not convinced this is a dupe of #12.",
        [(12, WORDING, True, False)],
    ),
    (
        "no longer think negates",
        "I no longer think this is a dup of #12.",
        [(12, WORDING, True, False)],
    ),
    (
        "particularly of",
        "Closing this as a dupe (particularly of #12).",
        [(12, WORDING, False, False)],
    ),
    # hard negatives
    ("related to", "Related to #12", []),
    ("see", "See #12 for the design discussion.", []),
    ("fixes", "Fixes #12", []),
    ("duplicated by is reverse", "This is duplicated by #12", []),
    ("other subject", "Note that #12 was a duplicate of #13.", []),
    ("code duplication", "There is a lot of duplicate code in #12", []),
    ("not a dup alone", "not a dup", []),
    (
        "self reference kept for the stage to drop",
        "Duplicate of #10",
        [(10, KEYWORD, False, False)],
    ),
]


@pytest.mark.parametrize(("case", "text", "expected"), CLAIM_CASES, ids=[c[0] for c in CLAIM_CASES])
def test_find_claims(case: str, text: str, expected: list[tuple[int, str, bool, bool]]) -> None:
    got = [
        (c.target.number, c.cue, c.negated, c.hedged) for c in find_claims(text, REPO, SELF).claims
    ]
    assert got == expected


def test_untargeted_denial_and_affirmation() -> None:
    assert find_claims("Actually this isn't a dup.", REPO, SELF).denies
    assert find_claims("Yes, closing as dup.", REPO, SELF).affirms
    reopen = find_claims("Please reopen if you think it is not a duplicate.", REPO, SELF)
    assert not reopen.denies and not reopen.affirms


def test_skips_are_reported() -> None:
    reading = find_claims(
        "Note that #12 was a duplicate of #13. This is duplicated by #14.", REPO, SELF
    )
    assert sorted(reading.skips) == ["other_subject", "reverse_wording"]
