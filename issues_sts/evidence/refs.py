"""References to issues and pull requests in one cleaned comment: `find_refs(text, repo)` finds
every one with its span: full GitHub URLs (query strings and fragments dropped; `/pull/N` marked
as a pull request), markdown links (the URL counts, not the link text), `owner/repo#N`, and `#N`
resolved against the thread's repository. Non-GitHub URLs are masked so that `#123` in
`http://example.org/page#123` is never a reference."""

from __future__ import annotations

import re
from dataclasses import dataclass

from issues_sts.evidence.gated import Gated, lowered

_URL = re.compile(r"https?://[^\s<>\"'\])]+")
_GH_ISSUE_URL = re.compile(
    r"^https?://(?:www\.)?github\.com/([A-Za-z0-9][\w.-]*)/([\w.-]+)/(issues|pull|pulls)/(\d+)(?=$|[/?#.,;:!)])",
    re.I,
)
_MD_LINK = re.compile(r"\[([^\]\n]*)\]\(\s*<?(https?://[^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_CROSS = re.compile(r"(?<![\w/.@-])([A-Za-z0-9][\w.-]*)/([\w.-]+)#(\d+)\b")
_CROSS_HINT = re.compile(r"/[\w.-]+#\d")
# "##463" is a typed "#463" (conv-27's fnm close, "Duplicate of ##463."); a third "#" is not
_SHORT = re.compile(r"(?<![\w&#/])(?:##?|GH-)(\d+)\b", re.I)
_BARE = re.compile(
    r"\b(?:issue|bug)\s+(?:no\.?\s*)?(\d{2,})\b"
    r"|(?<=\bof )(\d{3,6})(?=\s*(?:[.,;:!?)]\s|[.,;:!?)]?$|\n|and\b|or\b))"
    # a triage command's bare number, the line's last word: "/duplicate 146" (conv-17's dreck)
    r"|(?:(?<=/duplicate )|(?<=/dupe )|(?<=/dup )|(?<=duplicate_of ))(\d{1,7})(?=[ \t]*$)",
    re.I | re.M,
)


# short references ("#12", "GH-12") need only their "#" or "gh-": words of one character count
_SHORT_GATE = Gated(_SHORT, min_run=1)
_BARE_GATE = Gated(_BARE, min_run=1)


@dataclass(frozen=True)
class Ref:
    """A reference to an issue or pull request; `kind` is what the text says ("pull" from
    a /pull/ URL, "issue" from an /issues/ URL, "unknown" for `#N`)."""

    repo: str
    number: int
    kind: str
    start: int
    end: int


def _url_ref(url: str, repo: str, start: int, end: int) -> Ref | None:
    m = _GH_ISSUE_URL.match(url)
    if m is None:
        return None
    kind = "issue" if m.group(3).lower() == "issues" else "pull"
    return Ref(f"{m.group(1)}/{m.group(2)}", int(m.group(4)), kind, start, end)


def _mask(text: str, spans: list[tuple[int, int]]) -> str:
    """Blank out `spans` (same length, so positions stay valid)."""
    if not spans:
        return text
    parts, last = [], 0
    for start, end in sorted(spans):
        if start < last:
            start = last
        parts.append(text[last:start])
        parts.append(" " * max(0, end - start))
        last = max(last, end)
    parts.append(text[last:])
    return "".join(parts)


def find_refs(text: str, repo: str, *, bare: bool = False, low: str | None = None) -> list[Ref]:
    """All references in `text`, in order. `bare` also accepts "issue 123" (only used
    right after a duplicate cue, where it is unambiguous). `low`: `gated.lowered(text)`,
    when the caller has it."""
    low = lowered(text) if low is None else low
    refs: list[Ref] = []
    taken: list[tuple[int, int]] = []
    for m in _MD_LINK.finditer(text):
        ref = _url_ref(m.group(2), repo, m.start(), m.end())
        if ref is None and not _GH_ISSUE_URL.match(m.group(2)):
            # "[https://github.com/o/r/issues/4](url)": the editor's placeholder href, the URL is
            # the text
            ref = _url_ref(m.group(1).strip(), repo, m.start(), m.end())
        if ref is not None:
            refs.append(ref)
        taken.append(m.span())
    text = _mask(text, taken)
    for m in _URL.finditer(text):
        url = m.group(0).rstrip(
            ".,;:!?"
        )  # a sentence's own full stop or question mark is not the URL's
        ref = _url_ref(url, repo, m.start(), m.start() + len(url))
        if ref is not None:
            refs.append(ref)
        taken.append((m.start(), m.start() + len(url)))
    text = _mask(text, taken)
    for m in _CROSS.finditer(text) if _CROSS_HINT.search(text) else ():
        refs.append(
            Ref(f"{m.group(1)}/{m.group(2)}", int(m.group(3)), "unknown", m.start(), m.end())
        )
        taken.append(m.span())
    text = _mask(text, taken)
    patterns = (_SHORT_GATE, _BARE_GATE) if bare else (_SHORT_GATE,)
    for pattern in patterns:
        for m in pattern.finditer(text, low):
            number = m.group(1) or m.group(m.lastindex or 1)
            refs.append(Ref(repo, int(number), "unknown", m.start(), m.end()))
    return sorted(refs, key=lambda r: r.start)
