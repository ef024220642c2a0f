"""What counts as evidence that an issue is a duplicate: the ground floor every stage reads.

    from issues_sts.evidence import KEYWORD_LINE, says_duplicate
    says_duplicate("Closing as a duplicate of #12.")          # True

Layout: `kinds` (the one enum of evidence kinds, `Signal`), `vocabulary` (the one
duplicate-evidence vocabulary: named rules with their kinds, counters, screens and regexes;
duplicate labels), `text` (what of a comment to ignore), `refs` (references to issues),
`cues` (the regexes that find a claim's cue), `context` (what the sentence around a cue says
of it), `claim` (what a reading finds), `patterns` (the claims in one cleaned comment),
`replies` (what a later comment says about earlier claims), `gated` (the reader's regexes run
only where their words occur), `screen` (the crawler's question: could this comment be read as
a claim?).

The crawler, the store and the link stage all ask this package; it imports nothing of
theirs (tests/test_layering.py).
"""

from __future__ import annotations

from issues_sts.evidence.screen import says_duplicate
from issues_sts.evidence.vocabulary import (
    DUPLICATE_STATE_REASON,
    KEYWORD_LINE,
    is_duplicate_label,
    labels_say_duplicate,
)

__all__ = [
    "DUPLICATE_STATE_REASON",
    "KEYWORD_LINE",
    "is_duplicate_label",
    "labels_say_duplicate",
    "says_duplicate",
]
