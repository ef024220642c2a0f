"""Regular expressions behind literal gates: the reader's regexes, with the same matches, run
only where they can match.

Most texts the link stage reads carry a cue word ("same") but nothing a given rule looks for,
and Python's `re` tries every alternative of a big alternation at every position of a long
comment (with IGNORECASE it cannot even skip ahead to a literal). `Gated` reads, from the
regex itself, the words every match contains (`alternative_needs`), and:

- runs nothing on a text that lacks them (a few substring tests on its lowercased copy);
- for an alternation without capturing groups, runs only the alternatives whose words occur,
  each on its own, and merges their matches the way the alternation would: the leftmost
  start wins, and at one start the earlier alternative (`finditer`, `search`).

The answers are the regex's own, match for match (tests compare them on every rule's
examples and on generated texts). One caveat of comparing lowercased text is handled: under
IGNORECASE Python also lets U+0131 (dotless i) stand for "i" and U+017F (long s) for "s",
which lowercasing does not produce; a text holding either is read by the plain regex.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from re import _constants as C  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from typing import Any

Needs = tuple[tuple[str, ...], ...]  # all of these groups, each by any one of its words

# characters IGNORECASE matches to an ASCII letter that lowercasing does not turn into it
_FOLDS = re.compile("[\u0131\u017f]")


def lowered(text: str) -> str | None:
    """The text to test needs against: lowercased, or None when a literal gate cannot be
    trusted on it (see the module's docstring)."""
    if not text.isascii() and _FOLDS.search(text):
        return None
    return text.lower()


def top_level(regex: str) -> list[str]:
    """The alternatives of `regex` outside any group or character class
    ("a|b(c|d)|[|]" -> ["a", "b(c|d)", "[|]"])."""
    parts, depth, start = [], 0, 0
    escaped, opened = False, -1  # `opened`: where the character class being read began
    for k, ch in enumerate(regex):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif opened >= 0:
            first = opened + (2 if regex[opened + 1 : opened + 2] == "^" else 1)
            if ch == "]" and k > first:  # "[]a]" and "[^]a]" hold a "]"
                opened = -1
        elif ch == "[":
            opened = k
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(regex[start:k])
            start = k + 1
    return [*parts, regex[start:]]


def _needs_of(items: Any, fold: bool, min_run: int) -> list[tuple[str, ...]]:
    """Words a match of this sequence (or the text around it, for a lookaround) contains:
    each run of `min_run` or more consecutive literal characters, the needs of each group
    and positive lookaround, and one word of each group of alternatives that all have one."""
    needs: list[tuple[str, ...]] = []
    run = ""
    for op, av in [*items, (None, None)]:
        if op is C.LITERAL:
            run += chr(av).lower() if fold else chr(av)
            continue
        if len(run) >= min_run:
            needs.append((run,))
        run = ""
        if op is C.BRANCH:
            words = [_needs_of(b.data, fold, min_run) for b in av[1]]
            if all(words):  # any branch: the first need of each stands for it
                needs.append(tuple(w for b in words for w in b[0]))
        elif op is C.SUBPATTERN:
            needs += _needs_of(av[3].data, fold, min_run)
        elif op is C.ASSERT:  # (?=...), (?<=...): the text holds it next to the match
            needs += _needs_of(av[1].data, fold, min_run)
    return needs


def alternative_needs(regex: str, flags: int = 0, min_run: int = 3) -> list[Needs]:
    """For each top-level alternative of `regex`, the words its every match contains
    (lowercased under IGNORECASE; `min_run`: the shortest literal kept as a word); an empty
    entry: that alternative needs no word."""
    flags |= _parser.parse(regex, flags).state.flags  # a leading (?i) holds for every alternative
    fold = bool(flags & re.IGNORECASE)
    return [
        tuple(dict.fromkeys(_needs_of(_parser.parse(alt, flags).data, fold, min_run)))
        for alt in top_level(regex)
    ]


def meets(low: str, needs: Needs) -> bool:
    for group in needs:
        for word in group:
            if word in low:
                break
        else:
            return False
    return True


# words in most texts: poor first tests of a need
COMMON_WORDS = frozenset(
    "the this that for new now and with has had was been use see let".split()  # noqa: SIM905
)


def _rarest_first(needs: Needs) -> Needs:
    """A text usually fails a need at its rarest word: test those first."""
    return tuple(
        sorted(needs, key=lambda g: (any(w in COMMON_WORDS for w in g), -min(map(len, g))))
    )


# "At a sentence's start": the string's start, after a sentence's end, or a line's start. `re`
# tries such an alternative at every position; written as two, one anchored and one that
# begins with the character class (`re` then skips to those characters), the same matches
# come about twice as fast. Adjacent, in this order, they are tried as the one alternative's
# own branches were.
_SENTENCE_START = r"(?:^|[.!?]\s+|\n)"
_SPLIT_START = (r"\A", r"[.!?\n](?:(?<=[.!?])\s+|(?<=\n))")


def _at_sentence_starts(source: str, flags: int) -> list[str]:
    """`source`, or its two halves when it begins at a sentence's start (`^` is the string's
    start: not under MULTILINE)."""
    if flags & re.MULTILINE or not source.startswith(_SENTENCE_START):
        return [source]
    rest = source[len(_SENTENCE_START) :]
    return [start + rest for start in _SPLIT_START]


class Gated:
    """`pattern`'s `finditer`/`search`, run only where its words occur (see the module)."""

    def __init__(self, pattern: re.Pattern[str], *, min_run: int = 3) -> None:
        self.pattern = pattern
        sources = top_level(pattern.pattern)
        needs = [
            _rarest_first(n) for n in alternative_needs(pattern.pattern, pattern.flags, min_run)
        ]
        # each top-level alternative: its compiled regexes (two at a sentence start) and needs
        self._alternatives = [
            (
                tuple(
                    re.compile(part, pattern.flags)
                    for part in _at_sentence_starts(src, pattern.flags)
                ),
                need,
            )
            for src, need in zip(sources, needs, strict=True)
        ]
        # split only what can be split exactly: no groups to renumber, no empty matches
        self._split = (
            len(sources) > 1
            and pattern.groups == 0
            and all(
                _parser.parse(a.pattern, a.flags).getwidth()[0] > 0
                for parts, _ in self._alternatives
                for a in parts
            )
        )
        self._needs = needs
        self._always = any(not need for need in needs)  # some alternative needs no word

    def may_match(self, low: str | None) -> bool:
        return low is None or self._always or any(meets(low, n) for n in self._needs)

    def _active(self, low: str) -> list[re.Pattern[str]]:
        active: list[re.Pattern[str]] = []
        for parts, need in self._alternatives:  # `meets`, inlined: runs on every post read
            for group in need:
                for word in group:
                    if word in low:
                        break
                else:
                    break
            else:
                active.extend(parts)
        return active

    def finditer(self, text: str, low: str | None = None) -> Iterator[re.Match[str]]:
        """`pattern.finditer(text)`; `low`: `lowered(text)` (None: match without gates)."""
        if low is None or not self._split:
            return self.pattern.finditer(text) if self.may_match(low) else iter(())
        active = self._active(low)
        if len(active) <= 1:
            return active[0].finditer(text) if active else iter(())
        return _merged(text, active)

    def search(self, text: str, low: str | None = None) -> re.Match[str] | None:
        """`pattern.search(text)`, gated as `finditer`."""
        return next(self.finditer(text, low), None)


def _merged(text: str, alternatives: list[re.Pattern[str]]) -> Iterator[re.Match[str]]:
    """The matches `A1|A2|...` would find in `text`, from each alternative's own: the
    leftmost start, and at one start the first alternative (each match is non-empty)."""
    pos = 0
    heads = [alt.search(text) for alt in alternatives]
    while True:
        best: re.Match[str] | None = None
        for k, alt in enumerate(alternatives):
            found = heads[k]
            if found is not None and found.start() < pos:
                found = heads[k] = alt.search(text, pos)
            if found is not None and (best is None or found.start() < best.start()):
                best = found
        if best is None:
            return
        yield best
        pos = best.end()
