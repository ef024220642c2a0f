"""Confidence of a duplicate claim: small pure functions over who said what, and when.

A claim's score is a sum of log-odds weights (`LinkConfig.w_*`): a base for its cue
(keyword > slash command > wording), plus the author's standing (maintainer, the issue's
own author confirming, the person who closed the issue), a close shortly after the
comment, the issue's `state_reason`/labels saying "duplicate", minus hedges and
drive-by authorship. Confidence is the sigmoid of the score, so weights compose and
every contribution is visible in the link's `signals`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from datetime import datetime

from issues_sts.evidence.patterns import KEYWORD, SAME_AS, SLASH, Claim
from issues_sts.evidence.vocabulary import is_duplicate_label
from issues_sts.links.model import MAINTAINER_ASSOCIATIONS, LinkConfig, Post, Signal, Thread


@dataclass(frozen=True)
class Scored:
    score: float
    signal: Signal  # the target-carrying signal of this claim
    signals: tuple[Signal, ...]  # everything that contributed


def parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def is_bot(login: str | None, cfg: LinkConfig) -> bool:
    """An automation account: a `*[bot]` login (GitHub Apps; the crawl gives GraphQL's `Bot`
    actors REST's suffix) or one of `cfg.bot_accounts`, whatever the case of its letters."""
    if not login:
        return False
    name = str(login).lower()
    return name.endswith("[bot]") or name in _lowered(cfg.bot_accounts)


@functools.lru_cache(maxsize=8)
def _lowered(accounts: tuple[str, ...]) -> frozenset[str]:
    return frozenset(a.lower() for a in accounts)


def sigmoid(score: float) -> float:
    return 1.0 / (1.0 + math.exp(-score))


def thread_says_duplicate(thread: Thread, cfg: LinkConfig) -> list[Signal]:
    """The issue-level signals that say *that* it is a duplicate (not of what)."""
    found = []
    if (thread.state_reason or "").lower() == "duplicate":
        found.append(Signal.STATE_REASON)
    if any(is_duplicate_label(label, cfg) for label in thread.labels):
        found.append(Signal.LABEL)
    return found


def closed_by_merge(thread: Thread, cfg: LinkConfig) -> bool:
    return thread.state == "closed" and (thread.closed_by or "") in cfg.merge_bots


def closed_soon_after(thread: Thread, when: str, cfg: LinkConfig) -> bool:
    """The issue was (last) closed within the window after `when`, by a person."""
    start, closed = parse_time(when), parse_time(thread.closed_at)
    if start is None or closed is None or thread.state != "closed" or closed_by_merge(thread, cfg):
        return False
    hours = (closed - start).total_seconds() / 3600.0
    return (
        -0.05 <= hours <= cfg.close_window_hours
    )  # a close a few seconds before the comment posts


def standing(post: Post, thread: Thread, cfg: LinkConfig) -> list[tuple[Signal, float]]:
    """Who the author is, relative to this thread."""
    found: list[tuple[Signal, float]] = []
    if (post.author_association or "").upper() in MAINTAINER_ASSOCIATIONS:
        found.append((Signal.MAINTAINER, cfg.w_maintainer))
    if post.kind == "comment" and post.author and post.author == thread.author:
        found.append((Signal.ISSUE_AUTHOR, cfg.w_issue_author))
    # the issue body was written before anyone looked: its author closing it much later says nothing
    # about it
    if (
        post.author
        and post.author == thread.closed_by
        and thread.state == "closed"
        and post.kind == "comment"
    ):
        found.append((Signal.CLOSING_ACTOR, cfg.w_closing_actor))
    return found


# Cues of issue 32's conventions: set by the extractor once it has checked who said the words and
# when the issue closed (the words alone are those of other rules).
BOT_CLOSE = "bot_close"
CONSOLIDATION = "consolidation"


# A target-carrying cue's own signal and the `LinkConfig` weight of its base score. A wording cue
# has neither: its signal is who said it (`_base`), its weight `w_wording`.
CUE_BASE: dict[str, tuple[Signal, str]] = {
    KEYWORD: (Signal.DUPLICATE_KEYWORD, "w_keyword"),
    SLASH: (Signal.SLASH_COMMAND, "w_slash"),
    BOT_CLOSE: (Signal.BOT_CLOSE, "w_bot_close"),
    CONSOLIDATION: (Signal.CONSOLIDATION, "w_consolidation"),
}


def _base(cue: str, standing: list[tuple[Signal, float]], cfg: LinkConfig) -> tuple[Signal, float]:
    own = CUE_BASE.get(cue)
    if own is not None:
        signal, weight = own
        return signal, float(getattr(cfg, weight))
    if standing:
        return Signal.MAINTAINER_WORDING, cfg.w_wording
    return Signal.COMMENT_WORDING, cfg.w_wording


def score_claim(
    claim: Claim, post: Post, thread: Thread, cfg: LinkConfig, *, confirmed: bool = False
) -> Scored:
    """Score one positive claim made in `post` (see module docstring)."""
    who = standing(post, thread, cfg)
    signal, score = _base(claim.cue, who, cfg)
    parts: list[tuple[Signal, float]] = [(signal, score), *who]
    if not who:
        parts.append((Signal.DRIVE_BY, cfg.w_drive_by))
    if post.kind == "body":
        parts.append((Signal.DRIVE_BY, cfg.w_body))
    if claim.cue == SAME_AS:
        parts.append((Signal.SAME_AS, cfg.w_same_as))
    if claim.antecedent:
        parts.append((Signal.ANTECEDENT, cfg.w_antecedent))
    if claim.earlier_post:
        parts.append((Signal.EARLIER_REFERENCE, cfg.w_earlier_reference))
    if claim.hedged:
        parts.append((Signal.HEDGED, cfg.w_hedged))
    if claim.question:
        parts.append((Signal.QUESTION, cfg.w_question))
    if post.kind == "comment" and closed_soon_after(thread, post.created_at, cfg):
        parts.append((Signal.CLOSED_SOON, cfg.w_closed_soon))
    if confirmed:
        parts.append((Signal.EVENT_CONFIRMED, cfg.w_event_confirmed))
    if unattended(thread, post, cfg):
        parts.append(
            (Signal.STILL_OPEN, open_penalty(not who, claim.question, cfg, hedged=claim.hedged))
        )
    if closed_by_merge(thread, cfg):
        parts.append((Signal.FIXED_SEPARATELY, cfg.w_fixed_separately))
    weights = {Signal.STATE_REASON: cfg.w_state_reason, Signal.LABEL: cfg.w_label}
    parts.extend((sig, weights[sig]) for sig in thread_says_duplicate(thread, cfg))
    signals = tuple(dict.fromkeys(sig for sig, _ in parts))
    return Scored(sum(w for _, w in parts), signal, signals)


def unattended(thread: Thread, post: Post, cfg: LinkConfig) -> bool:
    """Nobody acted on the thread: it is still open, or only an inactivity bot closed it (a
    bot that is neither a merge bot nor the claim's author, with no duplicate label or
    state_reason: "closed due to inactivity")."""
    if thread.state == "open":
        return True
    closer = thread.closed_by or ""
    by_bot = is_bot(closer, cfg)
    return (
        thread.state == "closed"
        and by_bot
        and closer not in cfg.merge_bots
        and closer != post.author
        and not thread_says_duplicate(thread, cfg)
    )


def open_penalty(drive_by: bool, question: bool, cfg: LinkConfig, *, hedged: bool = False) -> float:
    """A claim in an issue nobody acted on (see `unattended`): more so when nobody with
    standing made it, when it was a question, or when it was hedged."""
    return (
        cfg.w_still_open
        + (cfg.w_open_drive_by if drive_by else 0.0)
        + (cfg.w_open_question if question else 0.0)
        + (cfg.w_open_hedged if hedged else 0.0)
    )


def confirmed_later(scored: Scored, cfg: LinkConfig) -> Scored:
    """Someone with standing later said "closing as dup" without naming a target."""
    if Signal.CONFIRMED_LATER in scored.signals:
        return scored
    bonus = cfg.w_confirmed_later
    if Signal.STILL_OPEN in scored.signals:  # someone with standing took it up: acted on after all
        bonus -= open_penalty(
            Signal.DRIVE_BY in scored.signals,
            Signal.QUESTION in scored.signals,
            cfg,
            hedged=Signal.HEDGED in scored.signals,
        )
    return Scored(scored.score + bonus, scored.signal, (*scored.signals, Signal.CONFIRMED_LATER))


def _adding(scored: Scored, signal: Signal, weight: float) -> Scored:
    """`scored` with `signal` counted once: a later reading that finds it again adds nothing."""
    if signal in scored.signals:
        return scored
    return Scored(scored.score + weight, scored.signal, (*scored.signals, signal))


def fixed_later(scored: Scored, cfg: LinkConfig) -> Scored:
    """A later comment reports that the issue was fixed on its own. It says nothing
    against the claim of the person who closed the issue (their close was the duplicate close)."""
    if Signal.CLOSING_ACTOR in scored.signals:
        return scored
    return _adding(scored, Signal.FIXED_SEPARATELY, cfg.w_fixed_separately)


def closed_otherwise(scored: Scored, cfg: LinkConfig) -> Scored:
    """The person who closed the issue said why, and it was not this hedged suggestion."""
    return _adding(scored, Signal.CLOSED_OTHERWISE, cfg.w_closed_otherwise)


def last_word(scored: Scored, cfg: LinkConfig) -> Scored:
    """Nobody said anything after this suggestion before a merge closed the issue."""
    return _adding(scored, Signal.LAST_WORD, cfg.w_last_word)


def combine(scores: list[Scored], authors: int, cfg: LinkConfig) -> tuple[float, Scored]:
    """A target's confidence: its strongest claim, plus a bonus when several people agree."""
    best = max(scores, key=lambda s: s.score)
    bonus = cfg.w_several_authors if authors > 1 else 0.0
    return sigmoid(best.score + bonus), best
