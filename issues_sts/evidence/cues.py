"""The reader's cues: the regexes that find where a comment may claim a duplicate. The wording
cue is the vocabulary's rules' own alternatives (`Rule.reads`), joined; GitHub's keyword and the
slash command are their rules' line patterns; the others are read in pull requests only, or
untargeted ("this has been reported before"), or name the target before the verb ("#N
supersedes")."""

from __future__ import annotations

import re

from issues_sts.evidence.gated import Gated
from issues_sts.evidence.vocabulary import (
    ISSUE_ENDS_SENTENCE,
    KEYWORD_LINE,
    SLASH_LINE,
    wording_regex,
)

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
_WORDING = re.compile(wording_regex(), re.I)
SUCCESSOR = re.compile(
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
ROLLED_UP = re.compile(
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
    r"failure|one|ticket|report|request|regression|segfault)\s+)?(?:as|with|to)\b"
    # conv-8's terminal miss: "This sounds like the tab tearoff feature described in #N." (the
    # author said yes); only with the issue ending the sentence ("the feature described in #N
    # would solve this" says what would help)
    r"|\b(?:sounds|looks)\s+like\s+the\s+(?:[\w-]+\s+){0,4}?(?:feature|request|bug|issue|problem|crash)\s+"
    r"(?:described|requested|discussed|proposed)\s+(?:in|at|by)\b" + ISSUE_ENDS_SENTENCE,
    re.I,
)

# "This has been reported before, closing.": a duplicate close that names no target.
REPORTED_BEFORE = re.compile(
    r"\b(?:this|it)(?:\s+issue|\s+bug)?\s+(?:has|have|had|was|is)\s+(?:already\s+)?(?:been\s+)?reported"
    r"(?:\s+(?:before|already|earlier|elsewhere))?\b",
    re.I,
)


# "#4082 supersedes.", "This seems like #5768 would subsume it": the reference right before
# the verb is what replaces this issue (only "this"/"it" or nothing may follow the verb).
SUBJECT_SUBSUMES = re.compile(
    r"[\s)\]>]*(?:(?:would|will|should|now|probably|likely|basically|effectively)\s+)*"
    r"(?:supersedes?|subsumes?)\b(?:\s+(?:this|it)(?:\s+(?:one|issue|bug))?)?\s*(?:[.,;:!?]|$)",
    re.I,
)


CUES = (
    (_KEYWORD, KEYWORD, True),
    (_SLASH, SLASH, True),
    (_WORDING, WORDING, False),
    (_SAME, SAME_AS, False),
)
PR_CUES = ((_NEW_PR, WORDING, False), (ROLLED_UP, WORDING, False))
# each cue's regex behind its words (the same matches, see gated.py), and the other regexes
# a comment is searched with from its start
GATES = {
    pattern: Gated(pattern)
    for pattern in (
        *(p for p, _, _ in CUES + PR_CUES),
        SUBJECT_SUBSUMES,
        REPORTED_BEFORE,
    )
}
UNGATED = frozenset({_SAME})  # "same" is in most texts the reader reads: its gate costs more


# the issue named right after the words: "#N", a URL, "owner/repo#N"
_REF_NEXT = r"(?=#\d|https?://|[\w.-]+/[\w.-]+#\d)"
# "this is", "it was", "this issue's": the words are about this issue
_THIS_IS = r"\b(?:this|it)(?:\s+issue|\s+one|\s+bug)?(?:\s+(?:is|was)|['\u2019]s)\s+"

# "#N is tracking full support for this. Please follow that.", "We have opened an item for this:
# <url>. Please stay tuned to that thread.": the issue is closed to be followed elsewhere. Only a
# claim when the comment names exactly one issue and its author closes the issue (the extractor
# checks the close).
_TRACKED_ELSEWHERE = re.compile(
    # "#N is tracking ...": the reference right before; "this is tracked in #N": about this issue,
    # not "the design"; "closing as a duplicate since it's already tracked on <url>" (a triager's
    # close: conv-2 missed PowerToys 9497 for want of the contraction and "on")
    r"(?:#\d+|/issues/\d+)[)\]>]*\s+is\s+tracking\b"
    # conv-30's icortex close: "Closing since #N already tracks this" (the sentence ends there:
    # "#N tracks this metric" is about something else)
    r"|(?:#\d+|/issues/\d+)[)\]>]*\s+(?:already\s+|now\s+)?tracks\s+(?:this|it)"
    r"(?:\s+(?:one|issue|request|bug|problem))?(?=\s*(?:[.!,;]|$))"
    r"|\b(?:this|it)(?:\s+issue|\s+one|\s+bug)?(?:\s+(?:is|will\s+be|was)|['\u2019]s)\s+(?:now\s+|already\s+|being\s+|best\s+|better\s+)*"
    r"tracked\s+(?:in|on|by|at|under|over\s+(?:in|at)|there)\b"
    # "This is also tracked here: <url>" (conv-7's zed miss): "here" only with the issue after it
    rf"|{_THIS_IS}(?:now\s+|already\s+|also\s+)*tracked\s+here\s*:?\s+{_REF_NEXT}"
    # conv-6's kibana miss: a member's "This is captured by <url>" at the close; only with the
    # issue right after ("captured by the logs of #N" is about something else)
    rf"|{_THIS_IS}(?:now\s+|already\s+)*captured\s+(?:in|by)\s+{_REF_NEXT}"
    # conv-40's OpenSearch close: "Closing as the fix will be tracked in <url>", the close's
    # reason that the work goes on elsewhere (the fix, the work, this, it: "the parser crash is
    # tracked in #N" names another subject)
    r"|\bclos(?:e|ed|ing)\b(?:\s+(?:this|it))?(?:\s+(?:issue|one))?,?\s+(?:as|since|because)\s+"
    r"(?:the\s+(?:fix|work)|this|it)\s+(?:will\s+be|is|gets|will\s+get)\s+(?:now\s+|being\s+)?"
    r"tracked\s+(?:in|on|at|by|under)\b"
    # "I opened an issue in onnx/models (<url>) to track it": the issue this one is followed in
    r"|\b(?:opened|created|filed|raised)\s+(?:an?\s+|the\s+)?(?:new\s+|separate\s+)?(?:issue|bug|ticket)\b"
    r"(?:[^.!?\n]|[.?](?=\S)){0,120}?\bto\s+track\s+(?:it|this)\b"
    # conv-24's dunst close: "I will track this problem in #N"
    # (conv-31's crust-server close: "Closed, track issue in #N")
    r"|\btrack(?:ing)?\s+(?:it|this(?:\s+(?:problem|issue|bug|one))?|the\s+\w+|issue)\s+(?:in|there|at|over\s+there)\b"
    r"|\bplease\s+follow\s+(?:that|the\s+other|this|it)\b|\bstay\s+tuned\s+(?:to|on|in)\s+(?:that|the\s+other)\b"
    # "an upstream issue, tracked at <url>", "tracked upstream: <url>", "Tracking in #N."
    r"|\btracked\s+upstream\b|\b(?:issue|bug|problem),?\s+tracked\s+(?:in|at|by|under)\b"
    r"|(?:^|[.!?]\s+|\n)\s*(?:now\s+)?tracking\s+(?:in|at|under)\b"
    # conv-9's PowerToys miss: a closer's whole comment "tracked in <url>" (the sentence starts
    # with the words, the issue right after them)
    rf"|(?:^|[.!?]\s+|\n)\s*(?:already\s+|now\s+|also\s+)?tracked\s+(?:in|at|by|under|here)\s*:?\s+{_REF_NEXT}"
    # "Let's track this in #N", "we'll use #N to track it"
    r"|\blet'?s\s+track\s+(?:it\s+|this\s+)?(?:in|at|under|over\s+(?:in|at))\b"
    r"|\buse\s+(?:#\d+|https?://\S+)\s+to\s+track\b"
    # "Please follow #N for updates", "please subscribe to #N": the reference right after
    rf"|\bplease\s+(?:follow|subscribe\s+to|watch|track|refer\s+to)\s+{_REF_NEXT}"
    # a triage bot's "Please look at the following meta issue: <url>. Please refer to that issue
    # for updates."
    r"|\bplease\s+refer\s+to\s+(?:that|the\s+(?:other|meta|tracking|following))(?:\s+meta)?\s+issue\s+for\b",
    re.I,
)


TRACKED_GATE = Gated(_TRACKED_ELSEWHERE)
