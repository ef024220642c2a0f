"""What surrounds a cue in its comment: the references it governs, its sentence, negation, hedges
and conditionals, and whether it speaks of this issue at all (another subject, the reverse
direction, a part of the issue, an antecedent named before the cue)."""

from __future__ import annotations

import re
from dataclasses import replace

from issues_sts.evidence.claim import Reading
from issues_sts.evidence.cues import SUBJECT_SUBSUMES
from issues_sts.evidence.refs import Ref
from issues_sts.evidence.replies import disagrees

# (conv-32's lossless-cut close: the owner's "I believe your question is the same as #N", the
# reporter's own report named as "your question")
_SAME_SUBJECT = re.compile(
    r"\b(?:this|it|it's|its|this's|these|here"
    r"|your\s+(?:question|issue|request|problem|report|bug|ticket))\b",
    re.I,
)
# Words allowed between a cue and the reference it governs ("dupe of the older issue #4").
_FILLER_WORDS = """of the a an this that issue issues bug bugs ticket report one existing older
    old original earlier previous same see at in to with is it's its as basically essentially just
    mostly probably likely possibly maybe perhaps i think believe of: tracked upstream already
    combination some both either here over pr pull request against more modern newer general generic
    other main broader canonical umbrella tracking meta larger bigger long standing known open
    associated rfc new follow-up followup combined updated rebased version merged landed rolled
    rollup squashed
    particularly specifically especially mainly mostly primarily
    correct right proper real actual better solution approach proposal
    reopening re opening
    post my own"""
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
NEGATION = re.compile(
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
# "similar if not a duplicate of #N" (conv-7's npm/cli miss, a triager's close): "if not" raises
# the claim ("similar, perhaps even a duplicate"), it neither denies nor makes it conditional;
# the claim is hedged
_IF_NOT_EVEN = re.compile(
    r"\b(?:similar|related|close|identical)(?:\s+to\s+it)?,?\s+if\s+not\s+(?:an?\s+)?(?:exact\s+)?\W*$",
    re.I,
)
_REVERSE_AFTER = re.compile(r"^\s*by\b", re.I)
_SUBJECT_VERB = re.compile(
    # conv-30's claude-code report, a list of other issues' marks: "- Issue #A → marked as
    # duplicate of #B" (an arrow, then "marked as", is the same as "was")
    r"^\s*(?:(?:→|->|=>)\s*(?:marked|closed)\s+as\s+(?:an?\s+)?$|(?:(?:is|was|seems|looks|appears|has\s+been|got|being|also|really|probably|likely|"
    r"actually|just|maybe|effectively|basically|essentially|now|definitely|clearly|certainly|obviously|surely|"
    r"indeed|still|then|in\s+fact|most\s+likely|almost\s+certainly|pretty\s+much)\s+)+(?:to\s+be\s+|like\s+)?"
    r"(?:an?\s+)?\W*$)",
    re.I,
)
_ANAPHOR = re.compile(
    # (conv-31's mapbox close: "in favour of that existing ticket")
    r"^\s*(?:of\s+)?(?:that\s+(?:(?:existing|other|original|older|earlier)\s+)?"
    r"(?:one|issue|bug|ticket|pr|pull\s+request|rfc|report)\b|that\b"
    # a bare "that" points back at an issue only when no other noun follows ("in favor of that
    # process")
    r"(?=\s*(?:[^\w\s]|$)|\s+(?:since|because|as|instead|then|for|and|which|one|though|now|here|to|so|but|too|anyway)\b)"
    r"|the\s+(?:other|former|latter|older|original)(?:\s+(?:one|issue|bug|ticket))?\b"
    r"|thereof\b)(?!\s+(?:is|was|has)\b)",  # "points to #16562, so closing as a dupe thereof"
    re.I,
)
# "I cannot tell for sure if this is a duplicate of #N": the writer asks, even without a "?"
UNCERTAIN = re.compile(
    r"\b(?:(?:can'?t|cannot|could\s*n'?o?t|can\s+not)\s+(?:\w+\s+){0,2}?tell|not\s+(?:\w+\s+)?sure|unsure|"
    r"(?:don'?t|do\s+not|didn'?t)\s+know|wonder(?:ing)?)\s+(?:\w+\s+){0,2}?(?:if|whether)\b",
    re.I,
)
# "closed #20 as dupe of #17": the reference before the cue is the subject
_MARKED_AS = re.compile(r"\b(?:closed|closing|close|marked|marking|mark)\s+$", re.I)
_AS_BEFORE = re.compile(r"^\s*as\s+(?:an?\s+)?(?:\w+\s+)?$", re.I)
# "Is 2 here a duplicate of #4 or is it a distinct bug?": an open question, not a claim
OPEN_ALTERNATIVE = re.compile(
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
# conv-39's Stellarium close: "Yet another duplicate. See #N for more." The sentence is only
# the noun, about this issue, and ends there ("There is another duplicate. See #N" has a subject
# of its own; "another duplicate #N" names the copy)
_ANOTHER_SENTENCE = re.compile(
    r"\s*(?:(?:this|it)\s+is\s+|it['\u2019]s\s+)?(?:just\s+)?(?:yet\s+)?another\s+", re.I
)
_SENTENCE_END = re.compile(r"\s*[.!](?:\s|$)")
# "there is a more recent duplicate issue #N": #N is another copy, not this issue's canonical
_OTHER_COPY_BEFORE = re.compile(
    r"\b(?:newer|more\s+recent|later|another|other)\s+$"
    # "I've filed a duplicate #N"
    r"|\b(?:filed|opened|created|submitted|made)\s+(?:a|an|the)\s+(?:\w+\s+)?$"
    r"|\bfrom\s+(?:the\s+|a\s+)?$"  # "comment copied from duplicate #N"
    r"|\b(?:fix(?:es|ed)?|clos(?:es|ed|e))\s+(?:the\s+|a\s+)?$"  # "Also fixes dup #N"
    r"|\bits\s+$",  # "I will close this and its duplicate (#N)" (conv-3's flutter 34989)
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
# "any duplicates of #N", "no dupes of #N": whether copies of #N exist
_ANY_BEFORE = re.compile(r"\b(?:any|no)\s+(?:other\s+|more\s+|real\s+)?$", re.I)
# "dup of #N, which seems fixed now": the claim itself says the target is fixed
TARGET_FIXED = re.compile(
    r"^[\s,)]*(?:which|that|and\s+(?:it|that))\s+(?:\w+\s+){0,3}?(?:fixed|resolved)\b", re.I
)
_BARE_PREDICATE = re.compile(
    r"^\s*(?:here|then|now|again|too|instead|for\s+now)?\s*(?:[.,;:!)]|$"
    # conv-28's thunderbird close: "... the same reported in #N\nI'm gonna close it as duplicate
    # since some work is already in progress": the reason given, not the target
    r"|(?:since|because)\s+(?!(?:it|this)\s+is\s+(?:a\s+)?(?:dup|the\s+same))(?!\S*\s*#\d))",
    re.I,
)
_PREDICATE_BEFORE = re.compile(
    r"(?:\bas|\b(?:is|looks\s+like|seems\s+like|seems\s+to\s+be|be))\s+(?:an?\s+)?(?:\w+\s+)?$"
    # conv-27's EDDI close: "Closing due to #1224 duplicate." (the issue before the noun)
    r"|\bclos(?:e|ed|ing)\s+(?:it\s+|this\s+)?(?:due\s+to|because\s+of|as)\s+(?:#\d+|https?://\S+)\s+$",
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
_UNTARGETED_AFTER = re.compile(
    r"^\s*(?:here|then|now|again|too|instead|after\s+all|at\s+all|though|either|for\s+now|really)?\s*"
    r"(?:[.,;:!)?]|$|\n)|^\s*of\s+(?:that|it|those|these|them|both)\b"
    # "duplicate to another issue (linked). Close this one.": the target is the link posted before
    r"|^\s*(?:of|to|with)\s+(?:another|an\s+(?:earlier|existing|older)|the\s+(?:linked|above|previous|mentioned))"
    r"\s+(?:issue|one|bug|report)\b(?:\s*\((?:linked|above)\))?\s*(?:[.,;:!]|$)"
    # "not a dup exactly, but made obsolete by": a qualified denial
    r"|^\s*(?:exactly|per\s+se|as\s+such|strictly(?:\s+speaking)?|quite)\b"
    # "This is a duplicate issue, so I am closing it." (conv-16's iris-grib close): the noun
    # the word qualifies, its clause ending there
    r"|^\s*(?:issue|bug|report|ticket)\s*(?:[.,;:!]|$)",
    re.I,
)
_PARENTHESES = re.compile(r"\([^()]*\)")
_SENTENCE_END = re.compile(r"(?:[.!?](?=\s)|\n\s*\n)")
_MAX_GAP_TOKENS = 7


def sentence_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    before = [m.end() for m in _SENTENCE_END.finditer(text, 0, start)]
    after = _SENTENCE_END.search(text, end)
    return (before[-1] if before else 0), (after.end() if after else len(text))


def _gap_ok(gap: str) -> bool:
    tokens = _GAP_TOKEN.findall(gap.lower())
    words = [t for t in tokens if t not in _GAP_PUNCT]
    return len(words) <= _MAX_GAP_TOKENS and all(t in _FILLER or t in _GAP_PUNCT for t in tokens)


_BARE_DUP = re.compile(r"dup|dupe|dupes|duplicate|duplicates|duplicated", re.I)
_FOR = re.compile(r"^\s*for\b", re.I)
_IF_FOR_OF = re.compile(r"^\s*if\s*$", re.I)
_CLAUSE_END = re.compile(r"^[)\]]*\s*(?:[.,;!]|$)")
_PLEASE_LOOK = re.compile(
    r"^\s*[.,;:!-]?\s*please\s+(?:check|see|refer\s+to|look\s+at|go\s+to)\s*:?\s*$", re.I
)
# conv-26's reload close: "This is a duplicate and answered in #N"
_AND_DONE_IN = re.compile(
    r"^\s*,?\s*and\s+(?:already\s+|was\s+|is\s+|has\s+been\s+)?(?:answered|discussed|covered"
    r"|addressed|explained|tracked|solved|resolved)\s+(?:in|at|by|over\s+in)\s*:?\s*$",
    re.I,
)
# the bare word opens its sentence, maybe after "This is a" ("This removes the duplicate,
# please check #N for the fix" is about code)
_OPENS_SENTENCE = re.compile(
    r"(?:^|[.!?:]\s+|\n)\s*(?:(?:this|it)(?:\s+is|'s)\s+(?:a\s+)?)?(?:\*\*)?$", re.I
)
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


# "duplicate of the following issue ... <url>": the cue says where its target is, however
# many words describe it first
_FOLLOWING = re.compile(r"\s*(?:of\s+)?the\s+following\s+(?:issue|bug|ticket|report|one)\b", re.I)
# "a duplicate of the problem described in <url>" (conv-11's bitwarden miss): the words say the
# issue right after them holds the original
_DESCRIBED_IN = re.compile(
    r"^\s*(?:of\s+)?the\s+(?:problem|issue|bug|crash|behaviou?r|feature|request|error)\s+"
    r"(?:described|reported|discussed|mentioned|tracked)\s+(?:in|at|here)\s*:?\s*$",
    re.I,
)
# "This duplicates the earlier BookStack integration request in #N" (conv-34's dify-plugins
# close): the verb, then the earlier report described in a few words of its own, the issue
# right after "in". The adjective and the report noun both must be there ("This duplicates the
# code in #N", "the earlier HTTP handler in #N" are about code)
_EARLIER_REPORT_IN = re.compile(
    r"^\s*the\s+(?:earlier|existing|original|older|previous|prior)\s+(?:[\w.+-]+\s+){0,4}?"
    r"(?:request|issue|report|ticket|bug(?:\s+report)?|proposal|feature\s+request)\s+"
    r"(?:in|at|from)\s*:?\s*$",
    re.I,
)


def governed_refs(
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
        # conv-13's PowerToys miss: "Duplicate if <url>, tracked in #N", "if" typed for "of";
        # only with the issue ending its clause ("duplicate if #4 is the same crash" is a
        # condition)
        if _IF_FOR_OF.match(gap) and _CLAUSE_END.match(text[first.end :]):
            gap = " "
        # conv-24's Wox close: "Duplicate. Please check #N" (the bare word, then where to look)
        if (_PLEASE_LOOK.match(gap) or _AND_DONE_IN.match(gap)) and _OPENS_SENTENCE.search(
            text[: cue_end - len(cue_text)]
        ):
            gap = " "
    if _FOLLOWING.match(gap) and len(gap) <= 300 and "?" not in gap:
        return [first]  # "a duplicate of the following issue, which has a workaround: <url>"
    if _DESCRIBED_IN.match(gap):
        return [first]  # "a duplicate of the problem described in <url>"
    if cue_text.casefold() == "duplicates" and _EARLIER_REPORT_IN.match(gap):
        return [first]  # "This duplicates the earlier BookStack integration request in #4"
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
    s, e = sentence_bounds(text, cue_start, end)
    # after the reference only a short tail counts ("dup of #4, I think"), not a relative
    # clause about the target ("dup of #4 which I suspect was closed by accident")
    claim = _PARENTHESES.sub(" ", text[s:end]) + " " + _PARENTHESES.sub(" ", text[end:e])[:12]
    return bool(_HEDGE.search(claim)) or "?" in text[end : e + 1]


# "Closing as this is either not supported, a duplicate of #N, or blocked by #M": one
# possibility among others, not a claim
_EITHER = re.compile(r"\beither\b", re.I)
_OR = re.compile(r"^[^.!?\n]*?,?\s+or\b", re.I)


EITHER_WAY = re.compile(
    r"\bclose\s+(?:one|either)(?:\s+of\s+(?:them|these|the\s+two|us))?(?:\s+as\s+(?:a\s+)?dup\w*)?\b"
    r"|\bwhichever\s+(?:one\s+)?(?:has|is)\b",
    re.I,
)


def one_of_several(before: str, after: str) -> bool:
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
    s, e = sentence_bounds(text, m.start(), m.end())
    return bool(_DECLINED_BEFORE.search(text[s : m.start()]) or _DECLINED_AFTER.search(text[s:e]))


_PARENTHETICAL = re.compile(r"^\s*\(\s*(?:which\s+is\s+|itself\s+|also\s+)?(?:an?\s+)?$", re.I)


# conv-27's loopover request: 'include the winning PR in the close comment (e.g. "Closed as a
# duplicate of #1234, which ...")': a quoted example of words to write, opened within the
# sentence before the cue and not yet closed
_EXAMPLE_QUOTE = re.compile(
    r"\b(?:e\.\s?g\.|for\s+example|for\s+instance|such\s+as|i\.\s?e\.)[,:]?\s*[\"“][^\"”\n]*$",
    re.I,
)


# what may come before another issue that opens a line: nothing, or the people it is addressed
# to ("@bob #1722 Duplicate of #989", conv-28's bluebird drive-by)
_MENTIONS_ONLY = re.compile(r"\s*(?:@[\w-]+[,:]?\s+)*")
# a line that opens with a bare number as the subject: "24049 is a duplicate of 24083" (conv-28's
# filament database, a list of duplicated records); a list item "1. This is ..." is no subject
_NUMBER_SUBJECT = re.compile(r"\s*\d{2,}\s+(?:is|was)\s+(?:also\s+)?(?:an?\s+)?$", re.I)


def classify(text: str, refs: list[Ref], m: re.Match[str], self_number: int) -> str | None:
    """Why this cue is not a claim by the thread about itself, or None when it is."""
    s, _ = sentence_bounds(text, m.start(), m.end())
    if _REVERSE_AFTER.match(text[m.end() :]):
        return "reverse_wording"  # "duplicated by #N": #N is the copy, this is the original
    if any(m.start() <= r.start and r.end <= m.end() and r.number != self_number for r in refs):
        return "other_subject"  # "(closed #A in favor of PR #B)": what was closed is #A
    if _declined(text, m):
        return "declined"
    if _EXAMPLE_QUOTE.search(text[max(0, m.start() - 200) : m.start()]):
        return "quoted_example"
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
    line = text.rfind("\n", 0, m.start()) + 1
    if (
        subject
        and subject[-1].number != self_number
        and subject[-1].start >= line
        and _MENTIONS_ONLY.fullmatch(text[line : subject[-1].start])
        and not text[subject[-1].end : m.start()].strip(" \t:-")
    ):
        return "other_subject"  # a line "#103 Duplicate of #16" (conv-25's drive-by): #103's
    if _NUMBER_SUBJECT.match(text[line : m.start()]):
        return "other_subject"  # "24049 is a duplicate of 24083": records, not issues
    if _PART_SUBJECT.search(text[s : m.start()]):
        return "other_subject"  # "the second part is a dup of #B": only a part of this issue
    if (
        _OTHER_COPY_BEFORE.search(text[s : m.start()])
        and not _OF_AFTER.match(text[m.end() :])
        and not (
            _ANOTHER_SENTENCE.fullmatch(text[s : m.start()])
            and _SENTENCE_END.match(text[m.end() :])
        )
    ):
        return "reverse_wording"
    if (
        _PLURAL_NOUN.search(m.group(0))
        and _ANY_BEFORE.search(text[s : m.start()])
        and _OF_AFTER.match(text[m.end() :])
    ):
        # conv-41's Kiro false link: "I don't find any duplicates of #966" asks after copies of
        # #966, not about this issue ("closing this and other duplicates of #N" is about it)
        return "reverse_wording"
    if (
        _PLURAL_NOUN.search(m.group(0))
        and _INBOUND_NOUN_BEFORE.search(text[s : m.start()])
        and not _OF_AFTER.match(text[m.end() :])
    ):
        return "reverse_wording"  # "Should we close some of these duplicates? #5 #7"
    if _INBOUND_LIST.match(text[line : m.end()] + text[m.end() :].lstrip(" \t")[:1]):
        return "reverse_wording"  # "Duplicates: #5, #7" lists the issues that duplicate this one
    return None


_RHETORICAL = re.compile(
    r"^\s*(?:@[\w-]+(?![\w-])\s*:?\s*)?(?:isn'?t|is\s+not|wasn'?t|aren'?t)\s+(?:this|it|that)\b",
    re.I,
)


def polarity(text: str, m: re.Match[str], end: int) -> tuple[bool, bool, bool]:
    """(negated, conditional, hedged) of the cue `m` whose governed text ends at `end`."""
    s, e = sentence_bounds(text, m.start(), m.end())
    if _IF_NOT_EVEN.search(text[s : m.start()]):
        return False, False, True
    negated = bool(NEGATION.search(text[max(s, m.start() - 60) : m.start()]))
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


def antecedent_of(text: str, refs: list[Ref], m: re.Match[str], self_number: int) -> Ref | None:
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
    s, _ = sentence_bounds(text, m.start(), m.end())
    prev, _ = sentence_bounds(text, max(0, s - 2), max(0, s - 1)) if s > 0 else (0, 0)
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


def denies_untargeted(text: str, m: re.Match[str]) -> bool:
    """A negated bare predicate ("it is not a duplicate.") points back at no issue: it is a
    denial of the thread's claims, whatever reference the sentence before happened to name.
    ("not a dup of that one" names its antecedent and stays a targeted negation.)"""
    after = text[m.end() :]
    if _ANAPHOR.match(after) or _PLURAL_ANAPHOR.match(after):
        return False
    return polarity(text, m, m.end())[0]


def read_untargeted(text: str, m: re.Match[str], reading: Reading) -> None:
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
    negated, conditional, hedged = polarity(text, m, m.end())
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


def retract_on_second_thoughts(text: str, reading: Reading) -> None:
    """A later sentence of the same comment that says the issues differ ("Update: they are
    not exactly the same") takes the comment's positive claims back."""
    positive = [c for c in reading.claims if not c.negated]
    if not positive:
        return
    _, tail = sentence_bounds(text, positive[-1].target.start, positive[-1].target.end)
    if disagrees(text[tail:]):
        reading.claims = [replace(c, negated=True) for c in reading.claims]
        reading.skips.append("retracted_in_same_comment")


def keeps_this_one(text: str, reading: Reading) -> None:
    """A later sentence of the same comment that closes the other issue instead ("Duplicate of
    #63. But here we have a clear description. I close the old one.", conv-41's fmriprep false
    link): the other issue is the copy, this one is kept, so the comment's claims are dropped."""
    positive = [c for c in reading.claims if not c.negated]
    if not positive:
        return
    _, tail = sentence_bounds(text, positive[-1].target.start, positive[-1].target.end)
    if _CLOSES_THE_OTHER.search(text[tail:]):
        reading.claims = [c for c in reading.claims if c.negated]
        reading.skips.extend(["closes_the_other_one"] * len(positive))


# "I close the old one", "I'll close the other one", "closing the older issue instead"
_CLOSES_THE_OTHER = re.compile(
    r"(?:\b(?:i|we)(?:'ll|\s+will|\s+am|'m|\s+are|'re)?\s+|^\s*|[.!]\s+)"
    r"(?:close|closing|closed)\s+(?:the|that)\s+(?:old|older|other|earlier|previous)\s+"
    r"(?:one|issue|ticket|report)\b(?:\s+instead)?\s*(?:[.!]|$)",
    re.I,
)


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


def in_first_person(text: str, m: re.Match[str]) -> bool:
    s, _ = sentence_bounds(text, m.start(), m.end())
    return bool(_FIRST_PERSON.search(text[s : m.start()]))


# "(also a dupe of #B)", "it's also the same as #B": a further target
ALSO_BEFORE = re.compile(r"\balso\s+(?:(?:be|is|was|it'?s)\s+)?(?:an?\s+)?$", re.I)
# "Isn't it possible to do the same as in #N?": the same action, not the same issue
_DO_THE_SAME = re.compile(
    r"\b(?:do|does|did|doing|done|try|tried)\s+(?:(?:exactly|just|basically)\s+)?(?:the\s+)?$", re.I
)


def about_this(text: str, m: re.Match[str]) -> bool:
    """ "Same as #N" speaks of this issue when its sentence says "this"/"it", or is short
    ("Probably the same as #N"), not "That error message is the same as #N"."""
    s, _ = sentence_bounds(text, m.start(), m.end())
    before = text[s : m.start()]
    if _DO_THE_SAME.search(before):
        return False
    return (
        bool(_SAME_SUBJECT.search(before))
        or len(before.split()) <= 2
        or bool(_SUBJECTLESS.match(before))
    )


def subsumed_by(text: str, refs: list[Ref], self_number: int) -> list[tuple[Ref, re.Match[str]]]:
    """(reference, verb match) for every "#N supersedes (this)" in the text."""
    out = []
    for ref in refs:
        m = SUBJECT_SUBSUMES.match(text, ref.end) if ref.number != self_number else None
        if m is not None and not [r for r in refs if ref.end <= r.start < m.end()]:
            out.append((ref, m))
    return out
