"""What the cleaner removes, and what it must keep (table-driven)."""

from __future__ import annotations

import pytest

from issues_sts.evidence.patterns import find_refs
from issues_sts.evidence.text import clean

REPO = "acme/widgets"

CASES = [
    # (case, text, reference numbers still visible after cleaning)
    ("plain", "Duplicate of #12", [12]),
    ("fenced code", "Output:\n```\nerror: see #12 for details\n```\nThanks", []),
    ("tilde fence", "~~~rust\n// dup of #12\n~~~\n", []),
    ("unclosed fence", "```\nlog line #12\n", []),
    ("inline code", "The macro `issue!(#12)` expands fine, see #13", [13]),
    ("double-backtick code", "Use ``a`#12`b`` here", []),
    ("quoted reply", "> Duplicate of #12\n\nI disagree, it's different.", []),
    ("nested quote", "> > dupe of #12\n> yes\nNo it is not #14", [14]),
    ("email quote block", "On Mon, X wrote:\n> closing as dup of #12\n", []),
    # GitHub's alerts are the author's own words in a box, not a quoted reply
    ("alert", "> [!NOTE]\n>\n> Closed as a **duplicate**.\n> - See #12\n", [12]),
    ("alert, lower case", "> [!tip]\n> see #12", [12]),
    ("quote after an alert", "> [!NOTE]\n> see #12\n\n> dup of #13\n", [12]),
    ("not an alert", "> [NOTE] dup of #12\n", []),
    ("html comment", "<!-- Duplicate of #12 -->\nMy bug is about the menu.", []),
    (
        "template html comment",
        "<!--\nIf this is a duplicate, write: Duplicate of #123\n-->\nCrash",
        [],
    ),
    ("placeholder braces", "Fixes #{issue number}", []),
    ("placeholder angle", "Duplicate of #<number>", []),
    ("placeholder NNN", "Closes #NNN", []),
    ("placeholder #issue", "Duplicate of #issue", []),
    ("strikethrough", "~~dupe of #12~~ sorry, wrong issue, dupe of #15", [15]),
    # GitHub strikes a single tilde's span too; a path's or an estimate's tilde strikes nothing
    ("one tilde", "~Maybe related to #12?~ Unrelated, dupe of #15", [15]),
    ("home paths", "see ~/.config/a and ~/bin, dupe of #12", [12]),
    ("estimates", "takes ~5 s, ~10 at most; dupe of #12", [12]),
    ("a tilde inside a word", "a~b~c dupe of #12", [12]),
    ("html pre", "<pre>dup of #12</pre> and #16", [16]),
    ("keeps text around code", "dup of `foo` then #17", [17]),
]


@pytest.mark.parametrize(("case", "text", "expected"), CASES, ids=[c[0] for c in CASES])
def test_clean_removes_borrowed_text(case: str, text: str, expected: list[int]) -> None:
    assert [r.number for r in find_refs(clean(text), REPO)] == expected


def test_clean_does_not_fuse_words_across_removed_code() -> None:
    # the code span becomes a neutral token, so "duplicate of" is not followed by "see #12"
    from issues_sts.evidence.patterns import find_claims

    cleaned = clean("This is a duplicate of `HashMap::entry`, see #12")
    assert "CODE" in cleaned
    assert find_claims(cleaned, REPO, 10).claims == []


def test_clean_keeps_an_issue_links_anchor_whole() -> None:
    # GitHub's link to an issue's first post ends "#issue-<id>": no template placeholder (the
    # body that is only such a link is only that link, `pointers.link_only_issue`)
    url = "https://github.com/acme/widgets/issues/12#issue-781412721"
    assert clean(url) == url
    comment = "https://github.com/acme/widgets/issues/12#issuecomment-9"
    assert clean(f"see {comment}") == f"see {comment}"
    assert clean("Fixes #issue and #12").split() == ["Fixes", "and", "#12"]


def test_clean_of_none_and_crlf() -> None:
    assert clean(None) == ""
    assert "\r" not in clean("dup of #1\r\n> quoted #2\r\n")
