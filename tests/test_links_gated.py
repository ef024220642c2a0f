"""evidence.gated: a regex behind its literal words finds exactly the regex's matches, on made
texts that probe the merge of alternatives and on every text of a small paper world."""

from __future__ import annotations

import re

import pytest

from issues_sts.evidence import cues as C
from issues_sts.evidence import refs as R
from issues_sts.evidence.gated import Gated, alternative_needs, lowered, top_level
from issues_sts.evidence.vocabulary import RULES


def _spans(matches: object) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group(0)) for m in matches]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("regex", "expected"),
    [
        ("a|b(c|d)|[|]", ["a", "b(c|d)", "[|]"]),
        (r"[]|x]|[^]|]|\|z", ["[]|x]", "[^]|]", r"\|z"]),
        (r"(?:x|y)z", ["(?:x|y)z"]),
    ],
)
def test_top_level_splits_outside_groups_and_classes(regex: str, expected: list[str]) -> None:
    assert top_level(regex) == expected


def test_needs_are_words_every_match_holds() -> None:
    assert alternative_needs(r"dup|\w+\s+of") == [(("dup",),), ()]
    assert alternative_needs(r"(?i)Same\s+(?:bug|issue)") == [(("same",), ("bug", "issue"))]
    assert alternative_needs(r"\bsee\b(?=\s*#\d+\s+for)") == [(("see",), ("for",))]
    assert alternative_needs(r"(?<=\bof )(\d+)|#(\d+)", min_run=1) == [(("of ",),), (("#",),)]
    assert alternative_needs(r"(?<!not )dup(?:licate)?") == [(("dup",),)]  # not what is absent


MADE = [
    "",
    "Closing as a duplicate of #12.",
    "This is now #4. It was already reported in #3, closing in favour of #3.",
    "dup dup. this bug is #5.\nthis is now https://x",
    "CLOSING in FAVOR of #9; Superseded by #10",
    "keep tracking it in #7 and continued in #8",
    "a dupe of it. \u017fame as #3 (long s), and a dotless \u0131ssue",
    "Continuing this in #4. continue this in #5. Reopened as #6",
    # sentence starts, which the gate reads as two alternatives (the string's start; a
    # sentence's end or a line's start): each way in, and the ways that are not one
    "this is now #4",
    ".  this is now #4",
    "Fixed!\n  this is now #4? \nThis bug is #5.",
    "done.this is now #4 and x.\tthis bug is #6!",
    "\n\nreplaced by #3. It was absorbed into #4.",
    "?? this is now https://x ... this is now #5\n",
]


@pytest.mark.parametrize("pattern", [C._WORDING, C._TRACKED_ELSEWHERE, C._NEW_PR, R._BARE])
def test_the_same_matches_on_made_texts(pattern: re.Pattern[str]) -> None:
    gate = Gated(pattern, min_run=1 if pattern is R._BARE else 3)
    texts = MADE + [t for rule in RULES for t in (*rule.examples, *rule.near_misses)]
    for text in texts:
        low = lowered(text)
        assert _spans(gate.finditer(text, low)) == _spans(pattern.finditer(text)), text
        found, gated = pattern.search(text), gate.search(text, low)
        assert (found and found.span()) == (gated and gated.span()), text


def test_an_alternative_at_a_sentence_start_is_read_as_two() -> None:
    # the made texts above would not probe the split if the gate stopped making it
    gate = Gated(C._WORDING)
    compiled = sum(len(parts) for parts, _ in gate._alternatives)
    assert compiled > len(top_level(C._WORDING.pattern))


def test_text_a_fold_could_fool_is_read_without_gates() -> None:
    """Under IGNORECASE "\u017f" matches "s", but "\u017fame".lower() holds no "same"."""
    text = "\u017fame as #3"
    assert lowered(text) is None
    assert _spans(Gated(C._SAME).finditer(text, lowered(text))) == _spans(C._SAME.finditer(text))
    assert _spans(C._SAME.finditer(text))  # the plain regex does match it


def test_the_same_matches_on_a_paper_worlds_texts() -> None:
    from issues_sts.evidence.text import clean
    from issues_sts.sandbox.worlds.paper import PaperConfig, iter_paper_world

    gates = [(p, Gated(p)) for p in (C._WORDING, C._TRACKED_ELSEWHERE, C._SAME, C.ROLLED_UP)]
    texts = [
        clean(obj.get("body") or "")
        for chunk in iter_paper_world(PaperConfig(scale=0.001, repos=("microsoft/vscode",)))
        for obj in chunk.data.issues + chunk.data.comments
    ]
    assert len(texts) > 500
    for text in texts:
        low = lowered(text)
        for pattern, gate in gates:
            assert _spans(gate.finditer(text, low)) == _spans(pattern.finditer(text)), text[:200]
