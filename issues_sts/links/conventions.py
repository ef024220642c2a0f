"""Who said it, and when the issue closed: the checks behind issue 32's conventions.

Two repository conventions carry a duplicate's target in words that other rules already read,
but whose weight depends on the context:

- a triage bot states the duplicate ("This issue is a duplicate of #N. Please refer to that
  issue for updates.") and closes the issue within seconds: it acts for the team that typed the
  command (often deleted, so the bot's words are the only ones naming the target). The same
  words from a bot that did not close the issue right after, or closed it for another reason,
  remain a suggestion;
- a team member folds the issue into another at the close ("Consolidating to tracking issue
  #N", "tracked in #N", "closing in favour of the tracking issue #N"). The same words from
  someone outside the team, far from the close or on an issue left open are no link.

The close checked is the issue's last one: its time, its actor and the issue's own
`state_reason` (a GraphQL `ClosedEvent.stateReason` cannot say DUPLICATE; the issue's
`stateReason(enableDuplicate: true)` can, and it answers for the last close).
"""

from __future__ import annotations

import re

from issues_sts.evidence.cues import SLASH
from issues_sts.evidence.patterns import Claim, Reading, find_refs
from issues_sts.evidence.replies import closes_otherwise
from issues_sts.evidence.vocabulary import rule_of
from issues_sts.links.model import MAINTAINER_ASSOCIATIONS, LinkConfig, Post, Signal, Thread
from issues_sts.links.scoring import is_bot, parse_time


def bot_closes_on(post: Post, thread: Thread, cfg: LinkConfig, text: str) -> bool:
    """The bot that wrote `post` closed the issue (its last close) within
    `cfg.bot_close_window_minutes` of it, and its words give no other reason for the close."""
    if not is_bot(post.author, cfg) or thread.state != "closed":
        return False
    if (post.author or "").lower() != (thread.closed_by or "").lower():
        return False
    said, closed = parse_time(post.created_at), parse_time(thread.closed_at)
    if said is None or closed is None:
        return False
    # the bot may close a second before it comments, or just after
    near = abs((closed - said).total_seconds()) <= 60.0 * cfg.bot_close_window_minutes
    return near and not closes_otherwise(text) and _BOT_OTHER_REASON.search(text) is None


# a bot's own words giving its close another reason: "closed because it has been inactive"
_BOT_OTHER_REASON = re.compile(
    r"\binactiv|\bstale\b|\bno\s+(?:recent\s+)?activity\b|\black\s+of\s+(?:activity|response)\b"
    r"|\bmore\s+info(?:rmation)?\s+(?:is\s+)?needed\b|\bneeds?\s+more\s+info",
    re.I,
)


def one_target(reading: Reading, text: str, thread: Thread) -> bool:
    """The bot names one issue ("Possible duplicate of #12, closing." acts on it when the bot
    closes right after); a list of several ("Possible duplicates: #12, #13") only suggests."""
    named = {
        (r.repo.lower(), r.number)
        for r in find_refs(text, thread.repo)
        if (r.repo.lower(), r.number) != (thread.repo.lower(), thread.number)
    }
    return any(not c.negated for c in reading.claims) and len(named) == 1


def command_acted_on(claim: Claim, thread: Thread) -> bool:
    """A triage command ("/dup #N", "/duplicate of #N") on an issue that then closed speaks for
    the team: the triage tooling acts only on the commands of those allowed to triage (and the
    command's author often shows as a plain contributor), so a bystander's later "this is not a
    duplicate of #N" does not take it back. On an issue left open nobody acted on it."""
    return claim.cue == SLASH and not claim.negated and thread.state == "closed"


# "closing in favour of the tracking issue #N", "the meta issue at #N": an umbrella issue
_TRACKING_BEFORE = re.compile(
    r"\b(?:tracking|meta|umbrella|parent|epic)\s+(?:issue|bug|ticket)\s*(?:at\s+|in\s+)?[:(]?\s*$",
    re.I,
)


def is_consolidation(claim: Claim, text: str) -> bool:
    """Does `claim` fold the issue into another ("consolidating to #N", "continue to track this
    in #N", "in favour of the tracking issue #N")?"""
    rule = rule_of(claim.cue_text, claim.cue)
    if rule.signal is Signal.CONSOLIDATION:
        return True
    before = text[max(0, claim.target.start - 40) : claim.target.start]
    return rule.signal is Signal.IN_FAVOUR and bool(_TRACKING_BEFORE.search(before))


def in_favour(claim: Claim) -> bool:
    """ "Closing in favour of ...": a rule of its own before issue 32, read whoever says it."""
    return rule_of(claim.cue_text, claim.cue).signal is Signal.IN_FAVOUR


def on_the_team(post: Post, thread: Thread) -> bool:
    """A maintainer, member or collaborator (GitHub's author association), or whoever closed the
    issue (old archives show core developers as plain contributors)."""
    if (post.author_association or "").upper() in MAINTAINER_ASSOCIATIONS:
        return True
    return bool(post.author) and post.author == thread.closed_by and thread.state == "closed"


def consolidation_drop(post: Post, thread: Thread, cfg: LinkConfig) -> str | None:
    """Why a consolidation does not count (its counter), or None when it does: said by the team
    at the (last) close."""
    if not on_the_team(post, thread):
        return "dropped:consolidation_not_by_team"
    said, closed = parse_time(post.created_at), parse_time(thread.closed_at)
    if thread.state != "closed" or closed is None or said is None:
        return "dropped:consolidation_issue_open"
    hours = (closed - said).total_seconds() / 3600.0
    if not -cfg.consolidation_after_close_hours <= hours <= cfg.close_window_hours:
        return "dropped:consolidation_away_from_close"
    return None
