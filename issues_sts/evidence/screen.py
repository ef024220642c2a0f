"""The crawler's question, answered by the reader: could this comment be read as evidence?

`vocabulary.screens` is the cheap test (the rules' words); `says_duplicate` runs the link
stage's own reader (`patterns`) on the cleaned text (`text`), so that every comment the stage
can link from is a candidate the crawl asks a timeline for (tests check it per rule).
"""

from __future__ import annotations

from issues_sts.evidence.patterns import find_claims, tracked_elsewhere
from issues_sts.evidence.text import clean
from issues_sts.evidence.vocabulary import screens


def says_duplicate(
    text: str | None, *, repo: str = "x/y", number: int = 0, pull_request: bool | None = None
) -> bool:
    """Does this comment carry duplicate evidence the link stage would read: a positive
    claim ("dup of #N"), an untargeted "closing as dup" that points back at an earlier
    comment, or a bare "duplicate" whose target only the timeline can name? The crawler asks
    this, so every comment the stage can link from is a candidate (tests check it per rule)."""
    if not screens(text):
        return False
    cleaned = clean(text or "")
    if tracked_elsewhere(cleaned, repo, number) is not None:
        return True  # a link when its author closes the issue, which only the store knows
    # a caller that does not know whether the thread is a pull request (the crawl's comment
    # screen) also admits the cues only read in pull requests ("now proposing pull #N instead")
    reading = find_claims(cleaned, repo, number, pull_request=pull_request is not False)
    if any(not c.negated for c in reading.claims) or reading.affirms or reading.affirms_hedged:
        return True
    # "Duplicate." with no number: only the timeline (a GraphQL event) can name the target
    return "wording_without_target" in reading.skips and not reading.denies
