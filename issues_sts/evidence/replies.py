"""What a comment without a duplicate claim says about the claims made before it.

"Reopening" and "No, the two bugs are different" take earlier claims back; "Yes." and
the issue's author thanking for the pointer confirm them; "Fixed by #N" says the issue
ended with a fix of its own. These are small regexes over one cleaned comment; the
extractor (`extract`) decides which earlier statements they apply to.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from issues_sts.evidence.gated import Gated, lowered

_REOPENS = re.compile(
    r"(?:^|[.!?]\s+|\n)\s*(?:(?:i'?m|i\s+am|i'?ve|i\s+have|i'?ll)\s+)?(?:re-?open(?:ing|ed)|just\s+re-?opened)\b"
    # "I'll reopen this for now to track this": a decision, not "I'll reopen it if it comes back"
    r"|\b(?:i'?ll|i\s+will|let\s+me|we'?ll)\s+(?:go\s+ahead\s+and\s+|just\s+)?re-?open\s+(?:this|it)\b"
    r"(?![^.!?\n]{0,60}\b(?:if|when|once|should|unless)\b)",
    re.I,
)
# Another resolution than a duplicate or a fix: "won't fix", "working as intended".
_NOT_A_DUPLICATE_RESOLUTION = (
    r"\bwon'?t\s*fix\b|\bworking\s+as\s+intended\b|\bworks\s+as\s+(?:intended|designed)\b"
    # "Nobody is ever going to fix the current pretty-printer. Closing."
    r"|\b(?:nobody|no\s+one|not)\s+(?:is\s+)?(?:ever\s+)?going\s+to\s+(?:be\s+)?fix"
)
_FIX_REPORT = re.compile(
    r"\b(?:fixed|resolved)\s+(?:by|in|via|with|on|as\s+of|upstream)\b"
    r"|\b(?:is|was|been|be|now|seems|appears|got)\s+(?:\w+\s+)?(?:fixed|resolved)\b"
    r"|(?:^|[.!?]\s+|\n)\s*fixed\b"
    # "it fixes my original issue": a change fixed this issue itself
    r"|\bfix(?:es|ed)\s+(?:this|my|the)\s+(?:original\s+|particular\s+)?(?:issue|bug|problem|crash|case)\b"
    r"|\b(?:the|this|a)\s+fix\s+(?:is|was|has)\s+(?:now\s+)?(?:live|landed|merged|deployed)\b"
    r"|\b(?:resolved|fixed)\s+itself\b"
    r"|\b(?:unable\s+to|can'?t|cannot|could\s+not|couldn'?t)\s+reproduce\b"
    # "No longer reproduces (probably fixed a while ago)"
    r"|\bno\s+longer\s+reproduc|\b(?:probably|likely|apparently)\s+(?:been\s+)?(?:fixed|resolved)\b"
    # another resolution than a duplicate lowers a claim as a fix does
    r"|" + _NOT_A_DUPLICATE_RESOLUTION,
    re.I,
)
# A close that sends the issue somewhere else: "Moved to rust-lang/rust-mode#6"
_MOVED = re.compile(
    r"(?:^|[.!?]\s+|\n)\s*(?:(?:this\s+(?:issue\s+)?)?(?:has\s+been\s+|was\s+)?"
    r"(?:moved|migrated|transferred|refiled))\s+(?:to|over\s+to|in|as)\b",
    re.I,
)
# "No, ...", "Nope", "I don't think so", "Is it?": a bare answer. It takes a claim back only
# when it answers one (the comment just before made it, or the reply quotes it); "No, you don't
# need the docker file" three comments after "Duplicate with #N" answers something else.
_ANSWERS_NO = re.compile(
    r"(?:^|[.!?]\s+|\n)\s*(?:@[\w-]+(?![\w-])\s*:?\s*)?(?:no\s*[,.!](?!\s*"
    # "No, I couldn't make it work": the author answering "did you manage to solve it?" about
    # the problem, not the claim above
    r"i\s+(?:still\s+)?(?:couldn'?t|can'?t|cannot|could\s+not|haven'?t|didn'?t)\s+"
    r"(?:seem\s+to\s+|manage\s+to\s+)?(?:make\s+it\s+work|get\s+it\s+(?:to\s+)?work|solve|fix)\b)"
    r"|nope\b|i\s+don'?t\s+think\s+so\b)"
    r"|^\s*(?:@[\w-]+(?![\w-])\s*:?\s*)?(?:is\s+it|are\s+they|really)\s*\?",
    re.I,
)
# Sentence punctuation after "not the same": ASCII, a colon ("Not the same: #N is about X"),
# and the full-width forms of CJK text ("not the same，#N uses ...").
_AFTER = r"[;:,.!)\uff0c\u3002\uff1a\uff1b\uff01]"
_DISAGREES = re.compile(
    r"\b(?:don'?t|do\s+not)\s+think\s+(?:this|it|that|they)\s+(?:is|are)\s+(?:the\s+same|related)\b"
    r"|\b(?:the\s+two|these|both|the)\s+(?:bugs|issues|problems|ones|crashes|errors|reports)\s+(?:are|seem|look)"
    r"\s+(?:\w+\s+)?(?:independent|different|unrelated|distinct|separate)\b"
    r"|\b(?:is|seems|looks)\s+(?:\w+\s+)?(?:like\s+)?(?:an?\s+)?(?:different|separate|distinct|unrelated)\s+"
    r"(?:bug|issue|problem|thing|cause)\b"
    r"|\bnot\s+(?:exactly\s+|quite\s+|really\s+)?(?:the\s+)?same(?:\s+(?:bug|issue|problem|thing))?\s*(?:"
    + _AFTER
    + "|$)"
    r"|\bnot\s+(?:the\s+)?same\s+(?:bug|issue|problem|thing)\b"
    # "Not quite a dup, but cleaning up #N will fix this too": a qualified denial
    r"|\bnot\s+(?:quite|exactly|really|strictly)\s+a\s+(?:dup|dupe|duplicate)\b"
    # the claimer's own change of mind: "Actually, this is a bug in `rust-openssl`"
    r"|^\s*actually,?\s+(?:this|it)\s+(?:is|was|looks\s+like|seems\s+to\s+be)\s+(?:a\s+bug|an\s+issue|a\s+problem)"
    r"\s+(?:in|with)\b"
    # "This was about X failing, not the build process."
    r"|^\s*(?:@[\w-]+(?![\w-])\s*:?\s*)?this\s+(?:issue\s+|bug\s+|one\s+)?(?:is|was)\s+(?:about|regarding)\b[^.!?\n]{0,80}\bnot\b"
    # a reply that opens with doubt about the suggestion: "I'm not sure, and here's why"
    # "#4 looks similar but it's not necessarily a duplicate"
    r"|\bnot\s+necessar(?:il)?y\s+(?:an?\s+)?(?:dup|dupe|duplicate)\b"
    # "#4 does not sound like a duplicate of this issue"
    r"|\b(?:does|did)(?:n'?t|\s+not)\s+(?:sound|seem|look)\s+like\s+(?:an?\s+)?(?:dup|dupe|duplicate)\b"
    # "I don't see how they are related" (conv-11's Signal miss: the author's answer to "Maybe a
    # dupe of #N?")
    r"|\b(?:don'?t|do\s+not|can'?t|cannot)\s+see\s+how\s+(?:they|these|the\s+two|those|both)\s+"
    r"(?:are|would\s+be|could\s+be)\s+(?:related|the\s+same|connected|linked)\b"
    # "#4 does not have this issue": the suggested issue is another problem
    r"|\b(?:does|did)(?:n'?t|\s+not)\s+have\s+(?:this|the\s+same|that)\s+(?:issue|problem|bug)\b"
    # "Indeed, but I think it's easier to continue here": the other issue is closed, not this one
    r"|\b(?:continue|keep\s+(?:the\s+discussion|discussing|things|tracking(?:\s+it)?))\s+(?:it\s+)?"
    r"(?:here|in\s+this\s+(?:one|issue|thread))\b"
    r"|\bclose\s+the\s+other\s+(?:one|issue)\b"
    r"|^\s*(?:@[\w-]+(?![\w-])\s*:?\s*)?i'?m\s+not\s+(?:so\s+|entirely\s+|really\s+|quite\s+)?sure"
    r"(?=\s*(?:[,.!;:]|and\b|about\s+(?:that|this)\b|(?:that'?s|it'?s|this\s+is)\s+(?:the\s+case|right|true)\b))",
    re.I,
)
_AGREES = re.compile(
    r"^\s*(?:@[\w-]+(?![\w-])\s*:?\s*)?(?!yes\s+and\s+no\b)(?:(?:yes|yep|yeah|yup|indeed|agreed|right(?!\s+now)|correct|confirmed|you'?re\s+right|"
    r"(?:looks|seems)\s+(?:like\s+it|so)|that'?s\s+(?:right|it|correct))\b|sure(?=\s*(?:[,.!]|$))"
    # "Probably the same.": a short reply that takes the suggestion up ("same here" is a me-too)
    r"|(?:(?:probably|likely|definitely|certainly|indeed|yes,?)\s+)?(?:it'?s\s+|that'?s\s+)?(?:the\s+)?same"
    r"(?:\s+(?:thing|bug|issue|problem|one))?\s*(?:[.!]|$))",
    re.I,
)
# The claimer taking their own word back, with no reason given: "I take it back, I'm not sure
# what's going on here", "Hmm, actually, I could be mistaken." It opens the comment; said of a
# claim by someone else it is no answer to it (the link stage applies it to the poster's own
# claims only).
_TAKES_BACK = re.compile(
    r"^\s*(?:@[\w-]+(?![\w-])\s*:?\s*)?(?:(?:hmm+|oh|ok(?:ay)?|wait)\s*[,.!]*\s*)?(?:actually\s*,?\s*)?"
    r"(?:i\s+take\s+(?:it|that)\s+back\b|scratch\s+that\b"
    # "I could be mistaken." as the whole thought; "I could be wrong, but this is the same
    # crash" hedges what follows instead of withdrawing what came before
    r"|i\s+(?:could|may|might)\s+be\s+(?:wrong|mistaken)(?=\s*(?:[.!]|$)|\s+about\s+(?:that|this|it)\b))",
    re.I,
)
# The reporter acknowledging a pointer: "Great, thanks!", "Ah, makes sense."
_ACKNOWLEDGES = re.compile(
    r"^\s*(?:@[\w-]+(?![\w-])\s*:?\s*)?(?:(?:ah|oh)\s*[,!.]?\s*)?(?:great|thanks|thank\s+you|thx|ok(?:ay)?\s*[,!.]|"
    r"makes\s+sense|good\s+(?:catch|find|point)|cool|indeed)\b",
    re.I,
)


@dataclass(frozen=True)
class Outcome:
    """What a comment without a claim says about the claims before it."""

    reopens: bool  # "Reopening, ..." undoes a duplicate close
    reports_fix: bool  # "Fixed by #N" / "this is fixed now": it ended with a fix of its own
    disagrees: bool  # "No, the two bugs are independent."
    agrees: bool  # "Yes." (to the suggestion just above)
    acknowledges: bool = False  # "Great, thanks!" (counts when the issue's author says it)
    answers_no: bool = False  # "No, ..." / "Is it?": disagreement when it answers a claim
    takes_back: bool = False  # "I take it back": the poster withdraws their own earlier claims


_OTHER_RESOLUTION = re.compile(_NOT_A_DUPLICATE_RESOLUTION + r"|\bnot\s+a\s+\W?bug\b", re.I)
# the regexes searched through a whole reply, behind their words (the same answers, gated.py)
_REOPENS_GATE, _FIX_GATE, _DISAGREES_GATE, _OTHER_GATE, _MOVED_GATE = (
    Gated(p) for p in (_REOPENS, _FIX_REPORT, _DISAGREES, _OTHER_RESOLUTION, _MOVED)
)


@functools.lru_cache(maxsize=256)  # the extractor asks about one reply several times
def find_outcome(text: str) -> Outcome:
    low = lowered(text)
    return Outcome(
        _REOPENS_GATE.search(text, low) is not None,
        _FIX_GATE.search(text, low) is not None,
        _DISAGREES_GATE.search(text, low) is not None,
        bool(_AGREES.match(text)),
        bool(_ACKNOWLEDGES.match(text)),
        bool(_ANSWERS_NO.search(text)),
        bool(_TAKES_BACK.match(text)),
    )


def closes_otherwise(text: str) -> bool:
    """A closing comment that gives the close another reason than a duplicate: "moved to
    other/repo#N", "won't fix", "not a bug". A fix is no such reason: "possibly a dup of #N,
    which seems fixed" answered "Seems to be fixed" is the duplicate's own fix."""
    low = lowered(text)
    return _OTHER_GATE.search(text, low) is not None or _MOVED_GATE.search(text, low) is not None


def disagrees(text: str) -> bool:
    """Some sentence of `text` says the issues are not the same ("Update: not the same after all",
    "No, different bug" later in the comment that made the claim)."""
    return _DISAGREES_GATE.search(text, lowered(text)) is not None or bool(_ANSWERS_NO.search(text))
