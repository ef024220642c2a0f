"""Phase 3, settling: what the close and the issue's state say about the statements (the
closer's own reason, a merge right after the last word, a reopen or a late `completed` close),
and which targets no longer stand (`stale_targets`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import timedelta

from issues_sts.evidence import text as text_mod
from issues_sts.evidence.replies import closes_otherwise, find_outcome
from issues_sts.evidence.vocabulary import CUE
from issues_sts.links.model import (
    LinkConfig,
    Post,
    Signal,
    Thread,
)
from issues_sts.links.read.statement import Key, Statement
from issues_sts.links.scoring import (
    closed_by_merge,
    closed_otherwise,
    is_bot,
    last_word,
    parse_time,
    thread_says_duplicate,
)

# "Close with comment": the closer's comment within this long of the close came with it
CLOSING_COMMENT_WITHIN_SECONDS = 600.0


def _closing_comment(thread: Thread) -> tuple[int, Post] | None:
    """The comment the closer posted with the final close (GitHub's "Close with comment"): the
    closer's last comment, when it came within minutes of `closed_at`."""
    closed = parse_time(thread.closed_at)
    if thread.state != "closed" or not thread.closed_by or closed is None:
        return None
    for index in range(len(thread.posts) - 1, 0, -1):
        post = thread.posts[index]
        if post.kind == "comment" and post.author == thread.closed_by:
            when = parse_time(post.created_at)
            near = (
                when is not None
                and abs((closed - when).total_seconds()) <= CLOSING_COMMENT_WITHIN_SECONDS
            )
            return (index, post) if near else None
    return None


def after_closing_comment(
    statements: list[Statement], thread: Thread, cfg: LinkConfig, counters: Counter[str]
) -> list[Statement]:
    """ "Looks like it could be a dup of #N", then the closer's "No longer reproduces": the
    close had another reason, and the suggestion (someone else's, hedged, never taken up) was
    not what ended the issue."""
    closing = _closing_comment(thread)
    if closing is None:
        return statements
    index, post = closing
    if CUE.matches(post.body) or not closes_otherwise(text_mod.clean(post.body)):
        return statements  # the closer speaks of duplicates, or gives no other reason

    def lowered(st: Statement) -> bool:
        return (
            st.scored is not None
            and st.hedged
            and st.order[0] < index
            and st.author != post.author
            and Signal.CONFIRMED_LATER not in st.scored.signals
        )

    counters["lowered_by_closing_comment"] += sum(lowered(st) for st in statements)
    return [
        replace(st, scored=closed_otherwise(st.scored, cfg)) if lowered(st) and st.scored else st
        for st in statements
    ]


# Shorter comments ("+1", "cc me", "Same here") say nothing about a suggestion.
_SUBSTANTIVE_CHARS = 25


def _says_something(post: Post, cfg: LinkConfig) -> bool:
    """A comment that could bear on a suggestion before it: anything but a bot's or a "+1"."""
    if is_bot(post.author, cfg):
        return False
    text = text_mod.clean(post.body).strip()
    said = find_outcome(text)
    return len(text) > _SUBSTANTIVE_CHARS or any(
        (said.reports_fix, said.disagrees, said.reopens, said.answers_no)
    )


def last_word_before_merge(
    statements: list[Statement], thread: Thread, cfg: LinkConfig, counters: Counter[str]
) -> list[Statement]:
    """ "Looks like a duplicate of #N.", then nothing until a merge bot closed the issue: the
    suggestion stood uncontested, and the merged fix was most likely the one both shared. A
    thread that went on talking (a dispute, a second target, a question) keeps its penalty."""
    positive = [st for st in statements if st.positive]
    if not closed_by_merge(thread, cfg) or len({st.key for st in positive}) != 1:
        return statements
    if any(not st.positive for st in statements):
        return statements
    last = max(st.order[0] for st in positive)
    later = thread.posts[last + 1 :]
    if any(_says_something(p, cfg) for p in later):
        return statements

    def lifted(st: Statement) -> bool:
        return (
            st.scored is not None
            and st.hedged
            and Signal.FIXED_SEPARATELY in st.scored.signals
            and Signal.QUESTION not in st.scored.signals
            and Signal.SAME_AS not in st.scored.signals  # "maybe the same bug as #N" stays weak
        )

    counters["raised_as_last_word_before_merge"] += sum(lifted(st) for st in statements)
    return [
        replace(st, scored=last_word(st.scored, cfg)) if lifted(st) and st.scored else st
        for st in statements
    ]


def stale_targets(statements: list[Statement]) -> dict[Key, str]:
    """Targets that no longer stand, with why: retracted/unmarked (the last word about the
    target was negative) or superseded (everyone who named it later named another)."""
    reasons: dict[Key, str] = {}
    backed = {st.key for st in statements if st.positive and st.standing}
    last: dict[Key, Statement] = {}
    for st in statements:
        if st.positive or st.standing or st.key not in backed:
            last[st.key] = st  # a drive-by's "not a dup" does not overrule a maintainer
    for key, st in last.items():
        if not st.positive:
            reasons[key] = "unmarked" if st.from_event else "retracted"
    latest_post: dict[str, tuple[str, int]] = {}
    last_event: Statement | None = None
    for st in statements:
        if st.positive:
            latest_post[st.author] = (st.time, st.order[0])
            if st.from_event:
                last_event = st
    current: set[Key] = set()
    for st in statements:
        if not st.positive or st.key in reasons:
            continue
        if st.from_event and last_event is not None and st.key != last_event.key:
            continue  # an earlier event, replaced by the last one
        if (st.time, st.order[0]) == latest_post.get(st.author):
            current.add(st.key)
    for st in statements:
        if st.positive and st.key not in reasons and st.key not in current:
            reasons[st.key] = "superseded"
    return reasons


def after_withdrawal(
    statements: list[Statement], thread: Thread, cfg: LinkConfig, counters: Counter[str]
) -> list[Statement]:
    """What the issue's state says about the claims before it:
    - a duplicate label removed together with a reopen ("not actually a duplicate") takes back
      everything said before it; what was said after (a new close) stands;
    - an issue open now with `state_reason: reopened` was closed and reopened: claims before the
      last reopen (all of them when no event dates it) no longer stand;
    - an issue closed as `completed` (an explicit reason, recorded since 2022) months after a
      tentative claim (hedged, asked, a drive-by's) and never labelled a duplicate: nobody acted
      on the claim, the issue was resolved in its own right."""
    cut = thread.withdrawn_at
    if thread.state == "open" and (thread.state_reason or "").lower() == "reopened":
        reopens = [e.created_at for e in thread.events if e.event.lower() == "reopened"]
        cut = max(cut or "", max(reopens) if reopens else "9999")
        counters["retracted_by_reopened_state"] += sum(
            st.positive for st in statements if st.time <= cut
        )
    if cut is not None:
        if thread.withdrawn_at is not None:
            counters["retracted_by_unlabel_and_reopen"] += sum(
                st.positive for st in statements if st.time <= thread.withdrawn_at
            )
        statements = [st for st in statements if st.time > cut]
    late = _completed_long_after(thread, cfg)
    if late is not None:
        stale = [st for st in statements if _tentative(st) and st.time <= late]
        counters["dropped:completed_long_after"] += len(stale)
        statements = [st for st in statements if st not in stale]
    return statements


def _tentative(st: Statement) -> bool:
    """A claim nobody stood behind: hedged, asked, or a drive-by's (an event, or a firm claim by
    someone with standing, stands however late the close)."""
    signals = st.scored.signals if st.scored else ()
    return (
        st.positive
        and not st.from_event
        and (st.hedged or Signal.QUESTION in signals or Signal.DRIVE_BY in signals)
    )


_STATE_REASON_SINCE = "2022-03-01"  # GitHub records why an issue was closed since then
_ACTED_ON_DAYS = 60


def _completed_long_after(thread: Thread, cfg: LinkConfig) -> str | None:
    """For an issue closed as `completed` and called a duplicate by nothing GitHub recorded, the
    time before which a claim was not what closed it (`_ACTED_ON_DAYS` before the close)."""
    closed = parse_time(thread.closed_at)
    if (
        thread.state != "closed"
        or (thread.state_reason or "").lower() != "completed"
        or closed is None
        or (thread.closed_at or "") < _STATE_REASON_SINCE
        or thread_says_duplicate(thread, cfg)
    ):
        return None
    return (closed - timedelta(days=_ACTED_ON_DAYS)).strftime("%Y-%m-%dT%H:%M:%SZ")
