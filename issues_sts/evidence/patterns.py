"""Reading duplicate claims out of one cleaned comment: references, cues, polarity, hedges.

Two small layers:

* `find_refs(text, repo)` -> every issue/PR reference with its span: full GitHub URLs
  (query strings and fragments dropped; `/pull/N` marked as a pull request), markdown
  links (the URL counts, not the link text), `owner/repo#N`, and `#N` resolved against
  the thread's repository. Non-GitHub URLs are masked so that `#123` in
  `http://example.org/page#123` is never a reference.
* `find_claims(text, repo)` -> `Claim`s: a duplicate cue ("duplicate of", "dupe of", "dup",
  "closing in favor of", the native "Duplicate of #N" keyword, `/duplicate` slash commands)
  bound to the references that follow it, with negation ("not a duplicate of #N"),
  hedges ("probably", "looks like", a question) and conditionals ("if you think it is
  not a duplicate") recorded. Text that has no claim still reports why a cue was skipped
  (`skips`), so the stage can count every dropped candidate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from issues_sts.evidence.gated import Gated, lowered
from issues_sts.evidence.replies import disagrees
from issues_sts.evidence.vocabulary import KEYWORD_LINE, SLASH_LINE

_URL = re.compile(r"https?://[^\s<>\"'\])]+")
_GH_ISSUE_URL = re.compile(
    r"^https?://(?:www\.)?github\.com/([A-Za-z0-9][\w.-]*)/([\w.-]+)/(issues|pull|pulls)/(\d+)(?=$|[/?#.,;:!)])",
    re.I,
)
_MD_LINK = re.compile(r"\[([^\]\n]*)\]\(\s*<?(https?://[^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_CROSS = re.compile(r"(?<![\w/.@-])([A-Za-z0-9][\w.-]*)/([\w.-]+)#(\d+)\b")
_CROSS_HINT = re.compile(r"/[\w.-]+#\d")
_SHORT = re.compile(r"(?<![\w&#/])(?:#|GH-)(\d+)\b", re.I)
_BARE = re.compile(
    r"\b(?:issue|bug)\s+(?:no\.?\s*)?(\d{2,})\b"
    r"|(?<=\bof )(\d{3,6})(?=\s*(?:[.,;:!?)]\s|[.,;:!?)]?$|\n|and\b|or\b))",
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


# -- cues ------------------------------------------------------------------------------
# Words without which no text can carry a claim come from the one vocabulary
# (`vocabulary.RULES`): the crawler, the store and the stage screen with it, and every cue
# below must contain one of them (tests/test_links_vocabulary.py feeds every rule's examples
# to all of them).

KEYWORD = "duplicate_keyword"
SLASH = "slash_command"
WORDING = "wording"
SAME_AS = "same_as"

# the rules read line by line own their regexes (`vocabulary.Rule.pattern`)
_KEYWORD = KEYWORD_LINE
_SLASH = SLASH_LINE
_WORDING = re.compile(
    r"\b(?:dup|dups|dupe|dupes|duplicate|duplicates|duplicated)\b"
    r"|\b(?:clos(?:e|es|ed|ing)|drop(?:s|ped|ping)?|abandon(?:s|ed|ing)?)\b(?:\]\([^)\s]*\))?[^.\n]{0,30}?"
    r"\bin\s+favou?r\s+of\b"
    # "opened twice, closing for #N" (a short "closing in favour of"; "closing for now" is not)
    r"|\bclos(?:e|es|ed|ing)\s+(?:this\s+)?(?:one\s+)?for(?=\s(?:#\d|https?://))"
    r"|\bsuper(?:s|c)eded\s+by\b|\bsubsumed\s+(?:by|in)\b"
    # "absorbed into #N" closing an issue: about this issue (a sentence of its own, or "it was")
    r"|(?:^|[.!?]\s+|\n)\s*(?:(?:this|it)\s+(?:is|was|has\s+been|got)\s+)?absorbed\s+(?:into|by|in)\b"
    # "Replaced with #N." closing an old issue for a newer one; only about this issue (a
    # sentence of its own, or "this was replaced by"), not "X was replaced with Y in #N"
    r"|(?:^|[.!?]\s+|\n)\s*(?:(?:this|it)\s+(?:is|was|has\s+been|got)\s+)?replaced\s+(?:with|by)\b"
    # "Let's continue to track this under #N": the discussion moves to the other issue
    r"|\b(?:continue|keep)\s+(?:to\s+)?track(?:ing)?\s+(?:this|it)\s+(?:under|in|at|over\s+(?:in|at))\b"
    # "Already reported in #N": the report that came first
    r"|\b(?:already|previously)\s+(?:been\s+)?(?:reported|filed|opened)\b(?:\s+(?:in|at|as|by|here|over\s+(?:in|at))\b)?"
    # "This has been reported in #N": about this issue, naming where
    r"|\b(?:this|it)(?:\s+issue|\s+bug)?\s+(?:has|had|was)\s+(?:also\s+)?been\s+reported\s+(?:in|at|as|over\s+(?:in|at))\b"
    # "Consolidating to tracking issue #N": this issue is folded into another
    r"|\bconsolidat(?:e|es|ed|ing)\s+(?:(?:this|it|these)\s+)?(?:in)?to\b"
    # a successor without duplicate wording: "continued in #N", "Reopened as #N", "Rebased in #N",
    # "This is now #N"
    r"|\b(?:continued|reopened|re-?submitted|rebased|re-?filed|re-?created)\s+(?:as|in|at|into)\b"
    # "Continuing this in #N where we can try out docker"
    r"|(?:^|[.!?]\s+|\n)\s*(?:(?:i'?m|we'?re|let'?s)\s+)?continu(?:ing|e)\s+(?:this|it|the\s+discussion)\s+"
    r"(?:in|at|over\s+(?:in|at))\b"
    r"|(?:^|[.!?]\s+|\n)\s*this\s+is\s+now\b(?=\s*(?:#|https?://))"
    # "This bug is #N." (a sentence of its own): the same bug, already filed
    r"|(?:^|[.!?]\s+|\n)\s*this\s+(?:bug|issue)\s+is\b(?=\s*#\d+\s*(?:[.!]|$))",
    re.I,
)
_SUCCESSOR = re.compile(
    r"continued|reopened|re-?submitted|rebased|re-?filed|re-?created|this\s+is\s+now|new\s+(?:pr|pull)"
    r"|(?:propos|open|submitt|filed)\w*\s+(?:pull|pr)\b|^see$|continuing|continue",
    re.I,
)
# Only in a pull request: "Created new PR #N" (in an issue a new PR is usually the fix, not a
# successor)
_NEW_PR = re.compile(
    r"\b(?:created|opened|submitted|made)?\s*(?:a\s+)?new\s+(?:pr|pull\s+request)\b(?:\s+(?:is|at|in))?"
    # "Obsolete, now proposing pull #N instead", "See #N for the rebased and finished off version"
    r"|\b(?:proposing|proposed|opened|opening|submitted|submitting|filed)\s+(?:pull(?:\s+request)?|pr)\b"
    r"(?=\s*#\d+\s+instead\b)"
    r"|\bsee\b(?=\s*#\d+\s+for\s+the\s+(?:[\w-]+\s+(?:and\s+)?){0,3}?(?:rebased|updated|revised|reworked)\b)",
    re.I,
)
# Only in a pull request: "Landing with #N", "Rolled into #N", "This was merged in #N": its
# commits went in with another pull request (a rollup). In an issue the same words name the fix.
_ROLLED_UP = re.compile(
    r"(?:^|[.!?]\s+|\n|\b(?:this|it)\s+(?:(?:was|has\s+been|got|is|will\s+be)\s+)?(?:now\s+)?)\s*"
    r"(?:landed|landing|merged|rolled|included|incorporated|folded|taken\s+care\s+of|"
    # "Doing this manually as part of <pull URL>"
    r"doing\s+(?:this\s+|it\s+)?(?:manually\s+)?)\s*(?:up\s+)?"
    r"(?:in|into|with|as|via|as\s+part\s+of)\b(?=\s*(?:#\d|https?://))",
    re.I,
)
# "this is the same bug as #N": a duplicate claim when it is about this issue.
_SAME = re.compile(
    r"\bsame\s+(?:(?:exact|underlying|basic|old|general)\s+)?(?:(?:bug|issue|problem|thing|error|ice|crash|"
    r"failure|one|ticket|report|request|regression|segfault)\s+)?(?:as|with|to)\b",
    re.I,
)
_SAME_SUBJECT = re.compile(r"\b(?:this|it|it's|its|this's|these|here)\b", re.I)
# Words allowed between a cue and the reference it governs ("dupe of the older issue #4").
_FILLER_WORDS = """of the a an this that issue issues bug bugs ticket report one existing older
    old original earlier previous same see at in to with is it's its as basically essentially just
    mostly probably likely possibly maybe perhaps i think believe of: tracked upstream already
    combination some both either here over pr pull request against more modern newer general generic
    other main broader canonical umbrella tracking meta larger bigger long standing known open
    associated rfc new follow-up followup combined updated rebased version merged landed rolled
    rollup squashed
    particularly specifically especially mainly mostly primarily
    correct right proper real actual better solution approach proposal"""
_FILLER = frozenset(_FILLER_WORDS.split())
_GAP_TOKEN = re.compile(r"[\w']+|[^\w\s]")
_GAP_PUNCT = frozenset(":,;(-—.#[*_?")
_LIST_SEP = re.compile(r"^[\s,;/&+*_()]*(?:(?:and|or|and/or|plus)\b[\s,;/&+*_()]*)?$", re.I)
_HEDGE = re.compile(
    r"\b(?:probabl[ey]|possibl[ey]|possibility|might|may|maybe|perhaps|looks?\s+like|seems?|"
    r"i\s+think|i\s+believe|i\s+guess|i\s+assume|i\s+suppose|my\s+guess|suspect|could\s+be|likely|"
    r"not\s+sure|potential(?:ly)?|"
    r"appears?\s+to|similar|sort\s+of|kind\s+of|almost)\b",
    re.I,
)
_NEGATION = re.compile(
    # "may or may not be a dup of #N" and "whether or not" hedge; they do not deny
    r"(?<!than )(?<!or )(?<!or may )(?<!or might )(?<!or could )\b(?:not|isn'?t|wasn'?t|aren'?t|"
    r"no\s+longer|never|nor|no)\b(?:\s+\w+){0,2}\s+(?:an?\s+)?\W*$"
    r"|\b(?:don'?t|do\s+not|doesn'?t|does\s+not|no\s+longer)\s+(?:think|believe|seem|look|sound)\b"
    r"[^.!?\n]{0,40}$"
    r"|\b(?:not|less)\s+convinced\b[^.!?\n]{0,40}$"
    # "I wouldn't say this is a duplicate of that"; "Is this really a duplicate of #N?"
    r"|\b(?:wouldn'?t|would\s+not)\s+(?:say|call|consider)\b[^.!?\n]{0,40}$"
    r"|\b(?:is|was)\s+(?:this|it|that)\s+really\s+(?:an?\s+)?\W*$",
    re.I,
)
_TRAILING_NEGATION = re.compile(
    r"^[^.!?\n]{0,40}?\bbut\s+(?:(?:i\s+)?(?:don'?t|do\s+not)\s+think\s+so|(?:it'?s|it\s+is|this\s+is)\s+not\b"
    r"|apparently\s+not|no\b|not\s+(?:really|quite)\b)",
    re.I,
)
_CONDITIONAL = re.compile(r"\b(?:if|unless|whether|in\s+case)\b", re.I)
_REVERSE_AFTER = re.compile(r"^\s*by\b", re.I)
_SUBJECT_VERB = re.compile(
    r"^\s*(?:(?:is|was|seems|looks|appears|has\s+been|got|being|also|really|probably|likely|"
    r"actually|just|maybe|effectively|basically|essentially|now|definitely|clearly|certainly|obviously|surely|"
    r"indeed|still|then|in\s+fact|most\s+likely|almost\s+certainly|pretty\s+much)\s+)+(?:to\s+be\s+|like\s+)?"
    r"(?:an?\s+)?\W*$",
    re.I,
)
_ANAPHOR = re.compile(
    r"^\s*(?:of\s+)?(?:that\s+(?:one|issue|bug|ticket|pr|pull\s+request|rfc|report)\b|that\b"
    # a bare "that" points back at an issue only when no other noun follows ("in favor of that
    # process")
    r"(?=\s*(?:[^\w\s]|$)|\s+(?:since|because|as|instead|then|for|and|which|one|though|now|here|to|so|but|too|anyway)\b)"
    r"|the\s+(?:other|former|latter|older|original)(?:\s+(?:one|issue|bug|ticket))?\b"
    r"|thereof\b)(?!\s+(?:is|was|has)\b)",  # "points to #16562, so closing as a dupe thereof"
    re.I,
)
# "I cannot tell for sure if this is a duplicate of #N": the writer asks, even without a "?"
_UNCERTAIN = re.compile(
    r"\b(?:(?:can'?t|cannot|could\s*n'?o?t|can\s+not)\s+(?:\w+\s+){0,2}?tell|not\s+(?:\w+\s+)?sure|unsure|"
    r"(?:don'?t|do\s+not|didn'?t)\s+know|wonder(?:ing)?)\s+(?:\w+\s+){0,2}?(?:if|whether)\b",
    re.I,
)
# "closed #20 as dupe of #17": the reference before the cue is the subject
_MARKED_AS = re.compile(r"\b(?:closed|closing|close|marked|marking|mark)\s+$", re.I)
_AS_BEFORE = re.compile(r"^\s*as\s+(?:an?\s+)?(?:\w+\s+)?$", re.I)
# "Is 2 here a duplicate of #4 or is it a distinct bug?": an open question, not a claim
_OPEN_ALTERNATIVE = re.compile(
    r"^[^.!?\n]{0,20}?\bor\s+(?:is\s+(?:it|this)\s+|are\s+they\s+)?(?:an?\s+)?(?:distinct|different|separate|new|"
    r"unrelated|independent|its\s+own)\b",
    re.I,
)
# "a dup of those (two issues)", "dupe of both": several earlier references; the first named is the
# canonical
_PLURAL_ANAPHOR = re.compile(
    r"^\s*(?:of\s+)?(?:those|these|them|both(?:\s+of\s+(?:those|these|them))?)"
    r"(?:\s+(?:two|three|both))?(?:\s+(?:issues|bugs|tickets|ones|reports))?\b(?!\s+(?:is|are|was|were|have)\b)",
    re.I,
)
# "the running-twice part is a dup of #N": the claim is about a part of this issue, not the issue
_PART_SUBJECT = re.compile(
    r"\b(?:part|half|aspect|portion|piece|bullet|item|point|(?:at\s+least\s+)?(?:one|some|two|several)\s+of\s+"
    r"(?:these|them|those|the\s+\w+)|(?:the\s+)?(?:other|first|second|third|last)\s+"
    r"(?:bug|issue|problem|one|case|example)|that\s+(?:error|message|crash|warning|panic|bug|issue|test|example|case))"
    r"(?:\s+(?:on|in|of)\s+(?:this|the)\s+(?:list|issue|report))?\s+"
    r"(?:\([^)]*\)\s*)?(?:is|was|seems|looks|might\s+be|may\s+be|could\s+be)\b[^.!?\n]*$",
    re.I,
)
# "there is a more recent duplicate issue #N": #N is another copy, not this issue's canonical
_OTHER_COPY_BEFORE = re.compile(
    r"\b(?:newer|more\s+recent|later|another|other)\s+$"
    # "I've filed a duplicate #N"
    r"|\b(?:filed|opened|created|submitted|made)\s+(?:a|an|the)\s+(?:\w+\s+)?$"
    r"|\bfrom\s+(?:the\s+|a\s+)?$"  # "comment copied from duplicate #N"
    r"|\b(?:fix(?:es|ed)?|clos(?:es|ed|e))\s+(?:the\s+|a\s+)?$",  # "Also fixes dup #N"
    re.I,
)
_OF_AFTER = re.compile(r"^\s*(?:of|to)\b", re.I)
# "Duplicates: #5, #7": a list of this issue's duplicates (they point here), not its canonical
_INBOUND_LIST = re.compile(
    r"^[ \t]*(?:[-*][ \t]*)?(?:(?:other|known|related)[ \t]+)?(?:duplicates|dupes)[ \t]*:$", re.I
)
# "This bug has a lot of duplicates ... #5 #7", "its dupes #5": a determiner makes it the noun,
# those point here
_INBOUND_NOUN_BEFORE = re.compile(
    r"\b(?:these|those|its|many|several|some|other|known|more|lots?\s+of|has|have|all)\s+(?:\w+\s+)?$",
    re.I,
)
_PLURAL_NOUN = re.compile(r"(?:duplicates|dupes)$", re.I)
# "dup of #N, which seems fixed now": the claim itself says the target is fixed
_TARGET_FIXED = re.compile(
    r"^[\s,)]*(?:which|that|and\s+(?:it|that))\s+(?:\w+\s+){0,3}?(?:fixed|resolved)\b", re.I
)
_BARE_PREDICATE = re.compile(
    r"^\s*(?:here|then|now|again|too|instead|for\s+now)?\s*(?:[.,;:!)]|$)", re.I
)
_PREDICATE_BEFORE = re.compile(
    r"(?:\bas|\b(?:is|looks\s+like|seems\s+like|seems\s+to\s+be|be))\s+(?:an?\s+)?(?:\w+\s+)?$",
    re.I,
)
_NOUN_BEFORE = re.compile(
    # "close due to duplicate": the reason given for a close
    r"\bclos(?:e|ed|ing)\s+(?:it\s+|this\s+)?(?:due\s+to|because\s+of|for\s+being)\s+(?:an?\s+)?$|"
    r"\b(?:a|an|the|as|another|definitely|clearly|certainly|obviously)\s+(?:(?:real|true|exact|clear|obvious|"
    r"complete|total|simple|actual|likely|probable|possible)\s+)?$"
    r"|(?:^|[.!?,;:]\s*)$",  # the cue opens its clause: "Duplicate, closing.", "Agreed, duplicate."
    re.I,
)
# "This has been reported before, closing.": a duplicate close that names no target.
_REPORTED_BEFORE = re.compile(
    r"\b(?:this|it)(?:\s+issue|\s+bug)?\s+(?:has|have|had|was|is)\s+(?:already\s+)?(?:been\s+)?reported"
    r"(?:\s+(?:before|already|earlier|elsewhere))?\b",
    re.I,
)
_UNTARGETED_AFTER = re.compile(
    r"^\s*(?:here|then|now|again|too|instead|after\s+all|at\s+all|though|either|for\s+now|really)?\s*"
    r"(?:[.,;:!)?]|$|\n)|^\s*of\s+(?:that|it|those|these|them|both)\b"
    # "duplicate to another issue (linked). Close this one.": the target is the link posted before
    r"|^\s*(?:of|to|with)\s+(?:another|an\s+(?:earlier|existing|older)|the\s+(?:linked|above|previous|mentioned))"
    r"\s+(?:issue|one|bug|report)\b(?:\s*\((?:linked|above)\))?\s*(?:[.,;:!]|$)"
    # "not a dup exactly, but made obsolete by": a qualified denial
    r"|^\s*(?:exactly|per\s+se|as\s+such|strictly(?:\s+speaking)?|quite)\b",
    re.I,
)
_PARENTHESES = re.compile(r"\([^()]*\)")
_SENTENCE_END = re.compile(r"(?:[.!?](?=\s)|\n\s*\n)")
_MAX_GAP_TOKENS = 7


@dataclass(frozen=True)
class Claim:
    """One statement about a target: positive ("dup of #N") or negative ("not a dup of #N")."""

    target: Ref
    cue: str  # KEYWORD | SLASH | WORDING
    negated: bool
    hedged: bool
    position: int  # order of statements within the comment
    antecedent: bool = (
        False  # the target came before the cue ("covered by #4, closing in favor of that")
    )
    earlier_post: bool = False  # the target is the one reference of an earlier comment
    question: bool = False  # the claim is asked, not stated ("Maybe a dup of #4?")
    target_fixed: bool = (
        False  # the claim says the target is fixed ("dup of #4, which is fixed now")
    )
    successor: bool = False  # said without duplicate wording ("continued in #4", "Reopened as #4")
    cue_text: str = ""  # the words the cue matched (which vocabulary rule it is)
    first_person: bool = (
        False  # "I met the same problem as #4": about this issue only from its author
    )
    also: bool = False  # "also a dupe of #4": a further target next to one already agreed


@dataclass
class Reading:
    claims: list[Claim] = field(default_factory=list)
    skips: list[str] = field(default_factory=list)  # why a cue yielded no claim
    denies: bool = False  # an untargeted "not a duplicate"
    affirms: bool = False  # an untargeted, unhedged "duplicate" ("closing as dup")
    affirms_hedged: bool = (
        False  # an untargeted hedged one ("This does seem like a duplicate. Closing.")
    )
    affirm_at: int = (
        -1
    )  # where the first untargeted affirming cue starts (references before it may be its target)
    plural: bool = False  # the untargeted cue points back at several issues ("a dupe of those")


def _sentence_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    before = [m.end() for m in _SENTENCE_END.finditer(text, 0, start)]
    after = _SENTENCE_END.search(text, end)
    return (before[-1] if before else 0), (after.end() if after else len(text))


def _gap_ok(gap: str) -> bool:
    tokens = _GAP_TOKEN.findall(gap.lower())
    words = [t for t in tokens if t not in _GAP_PUNCT]
    return len(words) <= _MAX_GAP_TOKENS and all(t in _FILLER or t in _GAP_PUNCT for t in tokens)


_BARE_DUP = re.compile(r"dup|dupe|dupes|duplicate|duplicates|duplicated", re.I)
_FOR = re.compile(r"^\s*for\b", re.I)
_DESCRIBED = re.compile(r"^\s*(?:of\s+|by\s+|in\s+)?(?:the|a|an|this|that|our|its|your)\b", re.I)


def _introduces(gap: str, cue_text: str) -> bool:
    """ "subsumed by the new tracker, which includes the last changes: #4": a described
    object, then a colon introducing the reference, all in one sentence."""
    words = _GAP_TOKEN.findall(gap)
    return (
        gap.rstrip().endswith(":")
        and len(words) <= 18
        and not _SENTENCE_END.search(gap)
        and "\n" not in gap
        # after a bare "duplicated" the words may be its noun ("duplicated functionality in X: #4")
        and (bool(_DESCRIBED.match(gap)) or not _BARE_DUP.fullmatch(cue_text))
    )


def _governed_refs(
    text: str, refs: list[Ref], cue_end: int, strict: bool, cue_text: str = ""
) -> list[Ref]:
    """The references a cue ending at `cue_end` points at: the first one after an allowed
    gap, then any that follow it as a list ("#1, #2 and #3")."""
    following = [r for r in refs if r.start >= cue_end]
    if not following:
        return []
    first = following[0]
    gap = _PARENTHESES.sub(
        " ", text[cue_end : first.start]
    )  # "duplicate (implementation-wise) of #4"
    if _BARE_DUP.fullmatch(cue_text):
        gap = _FOR.sub(" ", gap)  # "a duplicate for #4" (not "in favour of a solution for #4")
    if (strict and gap.strip()) or not (_gap_ok(gap) or _introduces(gap, cue_text)):
        return []
    chosen = [first]
    for ref in following[1:]:
        if not _LIST_SEP.match(text[chosen[-1].end : ref.start]):
            break
        chosen.append(ref)
    return chosen


def is_hedged_reply(text: str) -> bool:
    """A reply that hedges ("Could be due to the same underlying cause.")."""
    return bool(_HEDGE.search(text))


def _is_hedged(text: str, cue_start: int, end: int) -> bool:
    """Hedges count in the claim's sentence up to its reference, plus a short tail, never
    inside parentheses (a remark like "(I believe because of X)" is about the cause, not
    the duplicate); a question mark closing the sentence hedges it too."""
    s, e = _sentence_bounds(text, cue_start, end)
    # after the reference only a short tail counts ("dup of #4, I think"), not a relative
    # clause about the target ("dup of #4 which I suspect was closed by accident")
    claim = _PARENTHESES.sub(" ", text[s:end]) + " " + _PARENTHESES.sub(" ", text[end:e])[:12]
    return bool(_HEDGE.search(claim)) or "?" in text[end : e + 1]


# "Closing as this is either not supported, a duplicate of #N, or blocked by #M": one
# possibility among others, not a claim
_EITHER = re.compile(r"\beither\b", re.I)
_OR = re.compile(r"^[^.!?\n]*?,?\s+or\b", re.I)


_EITHER_WAY = re.compile(
    r"\bclose\s+(?:one|either)(?:\s+of\s+(?:them|these|the\s+two|us))?(?:\s+as\s+(?:a\s+)?dup\w*)?\b"
    r"|\bwhichever\s+(?:one\s+)?(?:has|is)\b",
    re.I,
)


def _one_of_several(before: str, after: str) -> bool:
    return bool(_EITHER.search(before) and _OR.search(after))


# "I'm tempted to close this as a dupe of #N, but ...", "This would be a dupe of #N though
# I'll leave this open": the writer names the duplicate and decides against closing for it
_DECLINED_BEFORE = re.compile(r"\b(?:tempted|inclined)\s+to\b", re.I)
_DECLINED_AFTER = re.compile(
    r"\b(?:i'?ll|i\s+will|we'?ll|we\s+will|let'?s|i'?m\s+going\s+to|going\s+to)\s+(?:just\s+)?"
    r"(?:leave|keep)\s+(?:this|it)\s+(?:one\s+|issue\s+)?open\b",
    re.I,
)


def _declined(text: str, m: re.Match[str]) -> bool:
    s, e = _sentence_bounds(text, m.start(), m.end())
    return bool(_DECLINED_BEFORE.search(text[s : m.start()]) or _DECLINED_AFTER.search(text[s:e]))


_PARENTHETICAL = re.compile(r"^\s*\(\s*(?:which\s+is\s+|itself\s+|also\s+)?(?:an?\s+)?$", re.I)


def _classify(text: str, refs: list[Ref], m: re.Match[str], self_number: int) -> str | None:
    """Why this cue is not a claim by the thread about itself, or None when it is."""
    s, _ = _sentence_bounds(text, m.start(), m.end())
    if _REVERSE_AFTER.match(text[m.end() :]):
        return "reverse_wording"  # "duplicated by #N": #N is the copy, this is the original
    if any(m.start() <= r.start and r.end <= m.end() and r.number != self_number for r in refs):
        return "other_subject"  # "(closed #A in favor of PR #B)": what was closed is #A
    if _declined(text, m):
        return "declined"
    subject = [r for r in refs if s <= r.start and r.end <= m.start()]
    if (
        subject
        and subject[-1].number != self_number
        and _SUBJECT_VERB.match(text[subject[-1].end : m.start()])
    ):
        return "other_subject"  # "#A was a duplicate of #B", said in a third thread
    if (
        subject
        and subject[-1].number != self_number
        and _AS_BEFORE.match(text[subject[-1].end : m.start()])
        and _MARKED_AS.search(text[s : subject[-1].start])
    ):
        return "other_subject"  # "you closed #A as dupe of #B"
    if (
        subject
        and subject[-1].number != self_number
        and _PARENTHETICAL.match(text[subject[-1].end : m.start()])
    ):
        return "other_subject"  # "essentially #A (duplicate of #B)": says what #A is
    if _PART_SUBJECT.search(text[s : m.start()]):
        return "other_subject"  # "the second part is a dup of #B": only a part of this issue
    if _OTHER_COPY_BEFORE.search(text[s : m.start()]) and not _OF_AFTER.match(text[m.end() :]):
        return "reverse_wording"
    if (
        _PLURAL_NOUN.search(m.group(0))
        and _INBOUND_NOUN_BEFORE.search(text[s : m.start()])
        and not _OF_AFTER.match(text[m.end() :])
    ):
        return "reverse_wording"  # "Should we close some of these duplicates? #5 #7"
    line = text.rfind("\n", 0, m.start()) + 1
    if _INBOUND_LIST.match(text[line : m.end()] + text[m.end() :].lstrip(" \t")[:1]):
        return "reverse_wording"  # "Duplicates: #5, #7" lists the issues that duplicate this one
    return None


_RHETORICAL = re.compile(
    r"^\s*(?:@[\w-]+\s*:?\s*)?(?:isn'?t|is\s+not|wasn'?t|aren'?t)\s+(?:this|it|that)\b", re.I
)


def _polarity(text: str, m: re.Match[str], end: int) -> tuple[bool, bool, bool]:
    """(negated, conditional, hedged) of the cue `m` whose governed text ends at `end`."""
    s, e = _sentence_bounds(text, m.start(), m.end())
    negated = bool(_NEGATION.search(text[max(s, m.start() - 60) : m.start()]))
    if negated and _RHETORICAL.match(text[s : m.start()]) and "?" in text[end : e + 1]:
        negated = (
            False  # "Isn't this a duplicate of #N? If not, please re-open": a question that asserts
        )
    negated = negated or bool(_TRAILING_NEGATION.match(text[end:e]))
    conditional = bool(_CONDITIONAL.search(text[s : m.start()]))
    return negated, conditional, conditional or _is_hedged(text, m.start(), end)


# "<url> was accidentally filed too; I'm closing this one as a dup because that issue uses the
# right jargon": the reason names the issue just mentioned
_BECAUSE_THAT = re.compile(
    r"^\s*,?\s*(?:because|since|as)\s+(?:that|the\s+other|the\s+(?:older|newer|original))\s+"
    r"(?:one|issue|bug|ticket|report)\b",
    re.I,
)


def _antecedent(text: str, refs: list[Ref], m: re.Match[str], self_number: int) -> Ref | None:
    """The reference an untargeted cue points back at: "covered by #4, so closing in favor
    of that", "Subsumed in #7, closing as duplicate." (this or the previous sentence)."""
    after = text[m.end() :]
    if _PLURAL_ANAPHOR.match(
        after
    ):  # "(Closing as a dup of those two issues.)": the first one named
        named = [r for r in refs if r.end <= m.start() and r.number != self_number]
        return named[0] if named else None
    if not (
        _ANAPHOR.match(after)
        or _BECAUSE_THAT.match(after)
        or (
            _BARE_PREDICATE.match(after)
            and _PREDICATE_BEFORE.search(text[max(0, m.start() - 40) : m.start()])
        )
    ):
        return None
    s, _ = _sentence_bounds(text, m.start(), m.end())
    prev, _ = _sentence_bounds(text, max(0, s - 2), max(0, s - 1)) if s > 0 else (0, 0)
    before = [
        r
        for r in refs
        if r.start >= prev
        and r.end <= m.start()
        and r.number != self_number
        and not names_a_fix(text, r)
    ]
    return before[-1] if before else None


# "also fixed by #38737. Closing as duplicate.": the fix is not what it duplicates
_FIX_BEFORE = re.compile(
    r"\b(?:fixed|resolved|addressed|solved)\s+(?:\w+\s+)?(?:by|in|via|with)\s*(?:pr\s*|pull\s+request\s*)?$",
    re.I,
)


def names_a_fix(text: str, ref: Ref) -> bool:
    """Is `ref` named as the fix ("fixed by #N", "resolved in #N")?"""
    return bool(_FIX_BEFORE.search(text[max(0, ref.start - 40) : ref.start]))


def _denies_untargeted(text: str, m: re.Match[str]) -> bool:
    """A negated bare predicate ("it is not a duplicate.") points back at no issue: it is a
    denial of the thread's claims, whatever reference the sentence before happened to name.
    ("not a dup of that one" names its antecedent and stays a targeted negation.)"""
    after = text[m.end() :]
    if _ANAPHOR.match(after) or _PLURAL_ANAPHOR.match(after):
        return False
    return _polarity(text, m, m.end())[0]


def _read_untargeted(text: str, m: re.Match[str], reading: Reading) -> None:
    """A cue with no reference still says something about earlier claims in the thread,
    when it is "a dup" as a noun closing its clause ("closing as dup.", "not a dupe
    after all"), not a verb or adjective ("cannot duplicate this", "duplicate code")."""
    # "the RFC @bob linked is where discussion happens, so closing this in favor of that": the
    # issue it points back at is in an earlier comment
    favour_of_that = bool(re.search(r"\bof$", m.group(0), re.I) and _ANAPHOR.match(text[m.end() :]))
    if not favour_of_that and not (
        _NOUN_BEFORE.search(text[max(0, m.start() - 30) : m.start()])
        and _UNTARGETED_AFTER.match(text[m.end() :])
    ):
        return
    negated, conditional, hedged = _polarity(text, m, m.end())
    if conditional:
        return
    if negated:
        reading.denies = True  # "Actually this isn't a dup." retracts earlier claims
    elif not hedged:
        reading.affirms = True  # "Yes, closing as dup." confirms earlier claims
        reading.affirm_at = m.start() if reading.affirm_at < 0 else reading.affirm_at
    else:
        reading.affirms_hedged = True  # firm enough when its author closes the issue right away
        reading.affirm_at = m.start() if reading.affirm_at < 0 else reading.affirm_at
    reading.plural = reading.plural or bool(_PLURAL_ANAPHOR.match(text[m.end() :]))


def _retract_on_second_thoughts(text: str, reading: Reading) -> None:
    """A later sentence of the same comment that says the issues differ ("Update: they are
    not exactly the same") takes the comment's positive claims back."""
    positive = [c for c in reading.claims if not c.negated]
    if not positive:
        return
    _, tail = _sentence_bounds(text, positive[-1].target.start, positive[-1].target.end)
    if disagrees(text[tail:]):
        reading.claims = [replace(c, negated=True) for c in reading.claims]
        reading.skips.append("retracted_in_same_comment")


# "Probably is the same bug as #N": the subject (this issue) left out
_SUBJECTLESS = re.compile(
    r"^\s*(?:(?:probably|possibly|likely|maybe|perhaps|also|actually|definitely|really)\s+)*"
    r"(?:is|looks\s+like|seems\s+(?:to\s+be|like)|might\s+be|could\s+be|must\s+be)\s+(?:just\s+)?(?:the\s+)?$",
    re.I,
)


# "I met the same problem with #N", "I'm having the same issue as #N": the writer's problem
_FIRST_PERSON = re.compile(
    r"\bi(?:'?m|\s+am|'?ve|\s+have)?\s+(?:also\s+|just\s+|now\s+)?(?:met|meet|have|had|got|get|hit|encountered|"
    r"faced|face|see|saw|ran\s+into|run\s+into|having|seeing|getting|experiencing)\s+(?:exactly\s+)?(?:the\s+)?$",
    re.I,
)


def _first_person(text: str, m: re.Match[str]) -> bool:
    s, _ = _sentence_bounds(text, m.start(), m.end())
    return bool(_FIRST_PERSON.search(text[s : m.start()]))


# "(also a dupe of #B)", "it's also the same as #B": a further target
_ALSO_BEFORE = re.compile(r"\balso\s+(?:(?:be|is|was|it'?s)\s+)?(?:an?\s+)?$", re.I)
# "Isn't it possible to do the same as in #N?": the same action, not the same issue
_DO_THE_SAME = re.compile(
    r"\b(?:do|does|did|doing|done|try|tried)\s+(?:(?:exactly|just|basically)\s+)?(?:the\s+)?$", re.I
)


def _about_this(text: str, m: re.Match[str]) -> bool:
    """ "Same as #N" speaks of this issue when its sentence says "this"/"it", or is short
    ("Probably the same as #N"), not "That error message is the same as #N"."""
    s, _ = _sentence_bounds(text, m.start(), m.end())
    before = text[s : m.start()]
    if _DO_THE_SAME.search(before):
        return False
    return (
        bool(_SAME_SUBJECT.search(before))
        or len(before.split()) <= 2
        or bool(_SUBJECTLESS.match(before))
    )


# "#4082 supersedes.", "This seems like #5768 would subsume it": the reference right before
# the verb is what replaces this issue (only "this"/"it" or nothing may follow the verb).
_SUBJECT_SUBSUMES = re.compile(
    r"[\s)\]>]*(?:(?:would|will|should|now|probably|likely|basically|effectively)\s+)*"
    r"(?:supersedes?|subsumes?)\b(?:\s+(?:this|it)(?:\s+(?:one|issue|bug))?)?\s*(?:[.,;:!?]|$)",
    re.I,
)


def _subsumed_by(text: str, refs: list[Ref], self_number: int) -> list[tuple[Ref, re.Match[str]]]:
    """(reference, verb match) for every "#N supersedes (this)" in the text."""
    out = []
    for ref in refs:
        m = _SUBJECT_SUBSUMES.match(text, ref.end) if ref.number != self_number else None
        if m is not None and not [r for r in refs if ref.end <= r.start < m.end()]:
            out.append((ref, m))
    return out


_CUES = (
    (_KEYWORD, KEYWORD, True),
    (_SLASH, SLASH, True),
    (_WORDING, WORDING, False),
    (_SAME, SAME_AS, False),
)
_PR_CUES = ((_NEW_PR, WORDING, False), (_ROLLED_UP, WORDING, False))
# each cue's regex behind its words (the same matches, see gated.py), and the other regexes
# a comment is searched with from its start
_GATES = {
    pattern: Gated(pattern)
    for pattern in (
        *(p for p, _, _ in _CUES + _PR_CUES),
        _SUBJECT_SUBSUMES,
        _REPORTED_BEFORE,
    )
}
_UNGATED = frozenset({_SAME})  # "same" is in most texts the reader reads: its gate costs more


def find_claims(text: str, repo: str, self_number: int, *, pull_request: bool = False) -> Reading:
    """Every duplicate claim in one cleaned comment (see module docstring)."""
    reading = Reading()
    low = lowered(text)
    cues = [
        (
            pattern,
            cue,
            strict,
            list(
                pattern.finditer(text)
                if pattern in _UNGATED
                else _GATES[pattern].finditer(text, low)
            ),
        )
        for pattern, cue, strict in _CUES + (_PR_CUES if pull_request else ())
    ]
    # references matter only around a cue or a "#N supersedes": most texts have neither
    wanted = any(found for *_, found in cues) or _GATES[_SUBJECT_SUBSUMES].may_match(low)
    refs = find_refs(text, repo, bare=True, low=low) if wanted else []
    used: set[int] = set()
    for pattern, cue, strict, found in cues:
        for m in found:
            first_person = cue == SAME_AS and _first_person(text, m)
            if m.start() in used or (
                cue == SAME_AS and not first_person and not _about_this(text, m)
            ):
                continue
            targets = _governed_refs(text, refs, m.end(), strict, m.group(0))
            if cue in (KEYWORD, SLASH, SAME_AS) and not targets:
                continue  # "Duplicate of" then prose: let the wording pass look at it
            used.update(range(m.start(), m.end()))
            reason = _classify(text, refs, m, self_number)
            antecedent = (
                _antecedent(text, refs, m, self_number) if not targets and reason is None else None
            )
            if antecedent is not None and _denies_untargeted(text, m):
                # "After updating with #4 this still occurs. I no longer think it is a duplicate.":
                # #4 was not what it duplicated; the sentence takes the thread's claims back
                reading.skips.append("wording_without_target")
                _read_untargeted(text, m, reading)
                continue
            stated = [
                c.target for c in reading.claims if not c.negated and c.target.end <= m.start()
            ]
            if (
                antecedent is not None
                and stated
                and antecedent.number not in {t.number for t in stated}
            ):
                # "definitely a dup of #4, not so sure about #5. Regardless, closing as a
                # duplicate":
                # the comment's own claim, not the last number before the cue
                antecedent = stated[-1]
            if antecedent is not None:
                targets = [antecedent]
            elif not targets:
                reading.skips.append(reason or "wording_without_target")
                if reason is None:
                    _read_untargeted(text, m, reading)
                continue
            if reason is not None:
                reading.skips.extend([reason] * len(targets))
                continue
            end = max(targets[-1].end, m.end())
            negated, conditional, hedged = _polarity(text, m, end)
            if conditional and negated:
                # "reopen if you think this is not a duplicate of #N": neither a link nor a
                # retraction
                reading.skips.extend(["conditional_negation"] * len(targets))
                continue
            if _OPEN_ALTERNATIVE.match(text[end:]):
                reading.skips.extend(["open_question"] * len(targets))
                continue
            begins, e = _sentence_bounds(text, m.start(), end)
            if _one_of_several(text[begins : m.start()], text[end:e]):
                reading.skips.extend(["one_of_several"] * len(targets))
                continue
            if _EITHER_WAY.search(text):
                # "Same as #N. ... please close one of them as duplicate": no direction
                reading.skips.extend(["either_way"] * len(targets))
                continue
            question = (
                "?" in text[end : e + 1]
                or text[:end].endswith("?")  # a URL swallows its "?"
                or bool(_UNCERTAIN.search(text[max(begins, m.start() - 60) : m.start()]))
            )
            successor = pattern is _ROLLED_UP or bool(_SUCCESSOR.search(m.group(0)))
            if successor and len(targets) > 1:
                reading.skips.extend(
                    ["split_into_several"] * len(targets)
                )  # "continued in #4 and #5"
                continue
            for ref in targets:
                reading.claims.append(
                    Claim(
                        ref,
                        cue,
                        negated,
                        hedged,
                        m.start(),
                        antecedent is not None,
                        question=question,
                        target_fixed=bool(_TARGET_FIXED.match(text[ref.end :])),
                        successor=successor,
                        cue_text=m.group(0),
                        first_person=first_person,
                        also=bool(_ALSO_BEFORE.search(text[max(0, m.start() - 30) : m.start()])),
                    )
                )
    for ref, m in _subsumed_by(text, refs, self_number):
        negated, conditional, hedged = _polarity(text, m, m.end())
        if conditional:
            reading.skips.append("conditional_negation" if negated else "conditional")
            continue
        _, e = _sentence_bounds(text, m.start(), m.end())
        if "?" in text[m.end() - 1 : e + 1] and re.search(r"\bor\b", text[m.end() : e]):
            reading.skips.append(
                "open_question"
            )  # "Does #N subsume this, or is there something left?"
            continue
        reading.claims.append(
            Claim(
                ref,
                WORDING,
                negated,
                hedged,
                ref.start,
                antecedent=True,
                question="?" in text[ref.end : m.end() + 1],
                cue_text=m.group(0).strip(),
            )
        )
    reading.claims.sort(key=lambda c: (c.position, c.target.start))
    # one claim per reference: "Subsumed in #12, closing as duplicate" reads #12 twice
    reading.claims = list({c.target.start: c for c in reversed(reading.claims)}.values())[::-1]
    _retract_on_second_thoughts(text, reading)
    reported = _GATES[_REPORTED_BEFORE].search(text, low)
    if reported is not None and not reading.claims and not reading.denies:
        negated, conditional, _ = _polarity(text, reported, reported.end())
        reading.affirms = reading.affirms or not (negated or conditional)
    return reading


# "#N is tracking full support for this. Please follow that.", "We have opened an item for this:
# <url>. Please stay tuned to that thread.": the issue is closed to be followed elsewhere. Only a
# claim when the comment names exactly one issue and its author closes the issue (the extractor
# checks the close).
_TRACKED_ELSEWHERE = re.compile(
    # "#N is tracking ...": the reference right before; "this is tracked in #N": about this issue,
    # not "the design"
    r"(?:#\d+|/issues/\d+)[)\]>]*\s+is\s+tracking\b"
    r"|\b(?:this|it)(?:\s+issue|\s+one|\s+bug)?\s+(?:is|will\s+be|was)\s+(?:now\s+|already\s+|being\s+|best\s+|better\s+)*"
    r"tracked\s+(?:in|by|at|under|over\s+(?:in|at)|there)\b"
    # "I opened an issue in onnx/models (<url>) to track it": the issue this one is followed in
    r"|\b(?:opened|created|filed|raised)\s+(?:an?\s+|the\s+)?(?:new\s+|separate\s+)?(?:issue|bug|ticket)\b"
    r"(?:[^.!?\n]|[.?](?=\S)){0,120}?\bto\s+track\s+(?:it|this)\b"
    r"|\btrack(?:ing)?\s+(?:it|this|the\s+\w+)\s+(?:in|there|at|over\s+there)\b"
    r"|\bplease\s+follow\s+(?:that|the\s+other|this|it)\b|\bstay\s+tuned\s+(?:to|on|in)\s+(?:that|the\s+other)\b"
    # "an upstream issue, tracked at <url>", "tracked upstream: <url>", "Tracking in #N."
    r"|\btracked\s+upstream\b|\b(?:issue|bug|problem),?\s+tracked\s+(?:in|at|by|under)\b"
    r"|(?:^|[.!?]\s+|\n)\s*(?:now\s+)?tracking\s+(?:in|at|under)\b"
    # "Let's track this in #N", "we'll use #N to track it"
    r"|\blet'?s\s+track\s+(?:it\s+|this\s+)?(?:in|at|under|over\s+(?:in|at))\b"
    r"|\buse\s+(?:#\d+|https?://\S+)\s+to\s+track\b"
    # "Please follow #N for updates", "please subscribe to #N": the reference right after
    r"|\bplease\s+(?:follow|subscribe\s+to|watch|track|refer\s+to)\s+(?=#\d|https?://|[\w.-]+/[\w.-]+#\d)"
    # a triage bot's "Please look at the following meta issue: <url>. Please refer to that issue
    # for updates."
    r"|\bplease\s+refer\s+to\s+(?:that|the\s+(?:other|meta|tracking|following))(?:\s+meta)?\s+issue\s+for\b",
    re.I,
)


_TRACKED_GATE = Gated(_TRACKED_ELSEWHERE)


def tracked_elsewhere(text: str, repo: str, self_number: int) -> Ref | None:
    """The one issue a comment says this one is followed in ("tracked in #N"), if it names one."""
    low = lowered(text)
    cue = _TRACKED_GATE.search(text, low)
    if cue is None or _NEGATION.search(text[: cue.start()][-60:]):
        return None
    refs = [
        r
        for r in find_refs(text, repo, low=low)
        if not (r.repo.lower() == repo.lower() and r.number == self_number)
    ]
    if len({(r.repo.lower(), r.number) for r in refs}) != 1 or refs[0].kind == "pull":
        return None
    return refs[0]
