"""One thread in, its duplicate links out: `extract_thread_links(thread)` (pure).

Every post (body, comments) is cleaned and read into claims; GraphQL duplicate events
become statements of their own. Comments without a claim still count: "Reopening",
"No, different bug" retract earlier claims, "Yes"/"closing as dup" confirm them, a fix
report lowers them. Then the close itself: the closer's own comment giving another reason
("Moved to ...", "not a bug") lowers someone else's hedged suggestion, and a lone hedged
suggestion that was the last word before a merge closed the issue keeps its standing.
Statements are then resolved per target, in time order: the last statement about a target
decides whether it stands ("not a duplicate of #N" retracts,
`unmarked_as_duplicate` cancels; a drive-by cannot overrule a maintainer), an author who
retargets keeps only their latest target, and among the targets left above
`min_confidence` the canonical is an event's, else the one established last by a firm
(unhedged or confirmed) claim. Nothing is thrown away silently: every dropped candidate
bumps a counter.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from issues_sts.evidence import text as text_mod
from issues_sts.evidence.patterns import (
    SAME_AS,
    WORDING,
    Claim,
    Reading,
    Ref,
    find_claims,
    find_refs,
    is_hedged_reply,
    names_a_fix,
    tracked_elsewhere,
)
from issues_sts.evidence.replies import Outcome, closes_otherwise, find_outcome
from issues_sts.evidence.vocabulary import CUE, rule_of
from issues_sts.links import conventions as conv
from issues_sts.links.migration import copied_view
from issues_sts.links.model import (
    TARGET_SIGNALS,
    DuplicateLink,
    Event,
    LinkConfig,
    Post,
    Signal,
    Thread,
)
from issues_sts.links.scoring import (
    BOT_CLOSE,
    CONSOLIDATION,
    Scored,
    closed_by_merge,
    closed_otherwise,
    closed_soon_after,
    combine,
    confirmed_later,
    fixed_later,
    is_bot,
    is_duplicate_label,
    last_word,
    parse_time,
    score_claim,
    standing,
    thread_says_duplicate,
)

_CONFIRM_SECONDS = 600.0
_POINTER_AFTER_CLOSE_SECONDS = 3600.0
_POINTER_LATE_SECONDS = 86400.0
_ADDRESSEE = re.compile(r"^\s*@([\w-]+)")
_MARKED = frozenset({"marked_as_duplicate", "markedasduplicateevent"})
_UNMARKED = frozenset({"unmarked_as_duplicate", "unmarkedasduplicateevent"})

Key = tuple[str, int]


@dataclass(frozen=True)
class Statement:
    key: Key
    kind: str
    positive: bool
    time: str
    order: tuple[int, int]
    author: str
    url: str
    association: str | None
    hedged: bool = False
    scored: Scored | None = None
    from_event: bool = False
    standing: bool = False  # maintainer, closer or the issue's author (events: always)
    target_fixed: bool = False  # the claim said the target is fixed: a later "fixed" agrees with it
    also: bool = False  # "(also a dupe of #B)": a further target, not a new canonical

    @classmethod
    def said(
        cls,
        post: Post,
        key: Key,
        kind: str,
        order: tuple[int, int],
        *,
        positive: bool = True,
        hedged: bool = False,
        scored: Scored | None = None,
        standing: bool = False,
        target_fixed: bool = False,
        also: bool = False,
    ) -> Statement:
        """What `post` says about `key`: its time, author, url and association are the post's."""
        return cls(
            key,
            kind,
            positive,
            post.created_at,
            order,
            post.author or "",
            post.url,
            post.author_association,
            hedged=hedged,
            scored=scored,
            standing=standing,
            target_fixed=target_fixed,
            also=also,
        )

    @classmethod
    def marked(
        cls, event: Event, key: Key, order: tuple[int, int], scored: Scored | None
    ) -> Statement:
        """A duplicate event about `key` (`scored` None: an unmark, which cancels)."""
        return cls(
            key,
            "unknown",
            scored is not None,
            event.created_at,
            order,
            event.actor or "",
            event.url,
            None,
            scored=scored,
            from_event=True,
            standing=True,
        )


@dataclass
class ThreadReading:
    links: list[DuplicateLink] = field(default_factory=list)
    counters: Counter[str] = field(default_factory=Counter)


def _normalise(ref: Ref, thread: Thread, cfg: LinkConfig) -> Key:
    aliases = {old.lower(): new for old, new in cfg.repo_aliases}
    repo = aliases.get(ref.repo.lower(), ref.repo)
    if repo.lower() == thread.repo.lower():
        repo = thread.repo
    return repo, ref.number


def _confirmed(post: Post, rest_marks: list[Event]) -> bool:
    """A REST `marked_as_duplicate` by the commenter right after the comment: GitHub acted on it."""
    when = parse_time(post.created_at)
    for event in rest_marks:
        at = parse_time(event.created_at)
        if (
            event.actor == post.author
            and when
            and at
            and abs((at - when).total_seconds()) <= _CONFIRM_SECONDS
        ):
            return True
    return False


@dataclass(frozen=True)
class _Read:
    """One post being read: what its drops are decided on."""

    post: Post
    thread: Thread
    cfg: LinkConfig
    cleaned: str  # the post's own words (`text.clean`)
    reading: Reading
    confirmed: bool  # GitHub acted on it: a REST mark by its author right after it
    marked: bool  # the thread has REST marks at all
    bot_close: bool = False  # a bot's statement it closed the issue on right after (issue 32)


def _bot_suggestion(r: _Read) -> bool:
    """ "Potential duplicates: #12" from a bot that did not close the issue right after: a
    suggestion (a bot that closes it weeks later closes for inactivity). A firm "closed as a
    duplicate of #12" in a thread labelled (or marked) duplicate reports what a maintainer did
    through it."""
    return (
        is_bot(r.post.author, r.cfg)
        and not r.bot_close
        and not (
            (thread_says_duplicate(r.thread, r.cfg) or r.confirmed or r.marked)
            and all(not cl.hedged and not cl.negated for cl in r.reading.claims)
        )
    )


def _addressed_to_bystander_after_close(r: _Read) -> bool:
    """ "@bob that may be a dupe of #N", months after the close: about bob's own report."""
    addressee = _ADDRESSEE.match(r.cleaned)
    return (
        addressee is not None
        and addressee.group(1).lower() != (r.thread.author or "").lower()
        and _after_final_close(r.thread, r.post)
    )


def _successor_after_close(r: _Read, claim: Claim, key: Key) -> bool:
    """ "New PR: #N" from a bystander months after the close: a later change, not this one's
    successor ("Dup of #N" after the close stays: in old archives core developers show as plain
    contributors)."""
    return (
        claim.successor
        and not claim.negated
        and _after_final_close(r.thread, r.post)
        and not standing(r.post, r.thread, r.cfg)
    )


# A post whose claims all go: the first of these that holds drops every claim of the post and
# counts them under its name (checked only for a post with claims).
_POST_DROPS: tuple[tuple[str, Callable[[_Read], bool]], ...] = (
    ("dropped:bot_suggestion", _bot_suggestion),
    ("dropped:addressed_to_bystander_after_close", _addressed_to_bystander_after_close),
)
# One claim that goes: the first of these that holds drops it and counts it under its name.
_CLAIM_DROPS: tuple[tuple[str, Callable[[_Read, Claim, Key], bool]], ...] = (
    ("dropped:self_link", lambda r, claim, key: key == (r.thread.repo, r.thread.number)),
    ("dropped:successor_after_close", _successor_after_close),
    # "I have the same problem as #4" from a bystander: their problem
    (
        "dropped:me_too",
        lambda r, claim, key: (
            claim.first_person and (not r.post.author or r.post.author != r.thread.author)
        ),
    ),
    # "looks like the same issue as <pull URL>": in an issue, a pull request is its fix
    (
        "dropped:same_as_pull_request",
        lambda r, claim, key: (
            claim.cue == SAME_AS and claim.target.kind == "pull" and not r.thread.is_pull_request
        ),
    ),
    # "Refiled as other/tool#4": moved, not duplicated
    ("dropped:moved_elsewhere", lambda r, claim, key: claim.successor and key[0] != r.thread.repo),
)


def _counter(claim: Claim) -> str:
    """What a claim that stays counts as: its rule's evidence, or a negation."""
    return "dropped:negated" if claim.negated else rule_of(claim.cue_text, claim.cue).counter


def _stated(read: _Read, claim: Claim, key: Key, order: tuple[int, int]) -> Statement:
    post, thread, cfg = read.post, read.thread, read.cfg
    scored = (
        None if claim.negated else score_claim(claim, post, thread, cfg, confirmed=read.confirmed)
    )
    return Statement.said(
        post,
        key,
        claim.target.kind,
        order,
        positive=not claim.negated,
        hedged=claim.hedged,
        scored=scored,
        standing=bool(standing(post, thread, cfg)) or conv.command_acted_on(claim, thread),
        target_fixed=claim.target_fixed,
        also=claim.also,
    )


def _claims(text: str, thread: Thread) -> Reading:
    return find_claims(text, thread.repo, thread.number, pull_request=thread.is_pull_request)


def _own_words(post: Post, thread: Thread, counters: Counter[str]) -> str:
    """The post cleaned, an issue form's "### Possible duplicates" fields gone: "#12" filled in
    there is not a claim (counted as dropped)."""
    cleaned = text_mod.clean(post.body)
    if post.kind != "body":
        return cleaned
    form = text_mod.strip_form_fields(cleaned)
    if form == cleaned:
        return cleaned
    dropped = len(_claims(cleaned, thread).claims) - len(_claims(form, thread).claims)
    counters["dropped:issue_form_field"] += max(0, dropped)
    return text_mod.clean(form)


def _read_post(
    post: Post,
    index: int,
    thread: Thread,
    cfg: LinkConfig,
    counters: Counter[str],
    rest_marks: list[Event],
) -> tuple[list[Statement], Reading]:
    if not post.may_cue or not CUE.matches(post.body):
        return [], Reading()
    cleaned = _own_words(post, thread, counters)
    reading = _claims(cleaned, thread)
    if len(cleaned) != len(post.body):  # something was stripped: count the claims it held
        # (a claim needs a reference: find_claims looks for them only around a cue)
        raw_claims = len(_claims(post.body, thread).claims)
        counters["dropped:in_code_quote_or_comment"] += max(0, raw_claims - len(reading.claims))
    for reason in reading.skips:
        counters[f"dropped:{reason}" if reason != "wording_without_target" else reason] += 1
    bot_close = bool(reading.claims) and conv.bot_closes_on(post, thread, cfg, cleaned)
    read = _Read(
        post,
        thread,
        cfg,
        cleaned,
        reading,
        _confirmed(post, rest_marks),
        bool(rest_marks),
        bot_close and conv.one_target(reading, cleaned, thread),
    )
    for counter, drops in _POST_DROPS if reading.claims else ():
        if drops(read):
            counters[counter] += len(reading.claims)
            return [], Reading(skips=reading.skips)
    out = []
    for j, claim in enumerate(reading.claims):
        key = _normalise(claim.target, thread, cfg)
        dropped = next((name for name, drops in _CLAIM_DROPS if drops(read, claim, key)), None)
        if dropped is None and not claim.negated:
            claim, dropped = _convention(read, claim)
        counters[dropped or _counter(claim)] += 1
        if dropped is None:
            out.append(_stated(read, claim, key, (index, j)))
    return out, reading


def _convention(read: _Read, claim: Claim) -> tuple[Claim, str | None]:
    """Issue 32's conventions: a bot's statement it closed the issue on is the bot's close; a
    consolidation counts only from the team, at the close (else its drop counter)."""
    if read.bot_close:
        return replace(claim, cue=BOT_CLOSE), None
    if not conv.is_consolidation(claim, read.cleaned):
        return claim, None
    dropped = conv.consolidation_drop(read.post, read.thread, read.cfg)
    if dropped is None:
        return replace(claim, cue=CONSOLIDATION), None
    # "closing in favour of the tracking issue #N" away from the team or the close: today's
    # "in favour of" reading (old archives show core developers as plain contributors)
    return claim, None if conv.in_favour(claim) else dropped


def _withdrawals(post: Post, index: int, keys: list[Key], has_standing: bool) -> list[Statement]:
    """A reply that takes earlier claims back: one 'unknown' statement per withdrawn target."""
    return [
        Statement.said(post, key, "unknown", (index, -1), positive=False, standing=has_standing)
        for key in keys
    ]


def _after_untargeted(
    statements: list[Statement],
    post: Post,
    index: int,
    reading: Reading,
    thread: Thread,
    cfg: LinkConfig,
    counters: Counter[str],
) -> list[Statement]:
    """Apply an untargeted "not a dup" (retracts every earlier claim) or an untargeted
    "closing as dup" by someone with standing (confirms them) to earlier statements."""
    earlier = list(dict.fromkeys(st.key for st in statements if st.positive))
    if reading.denies and earlier:
        if _after_final_close(thread, post):
            earlier = _own_claims(statements, post)  # after the close only a self-correction counts
            counters[
                "ignored:dispute_after_close" if not earlier else "retracted_by_own_correction"
            ] += 1
        counters["retracted_by_untargeted_denial"] += len(earlier)
        who = bool(standing(post, thread, cfg))
        return statements + _withdrawals(post, index, earlier, who)
    affirms = reading.affirms or (reading.affirms_hedged and _closes_right_after(post, thread, cfg))
    if affirms and earlier and standing(post, thread, cfg):
        confirmed = [
            replace(st, scored=confirmed_later(st.scored, cfg)) if st.scored else st
            for st in statements
        ]
        # "No, that's the opposite issue." then "Actually it can still count as a duplicate.":
        # the affirmation takes back the withdrawal, so the claim is made again, now
        withdrawn = [key for key in earlier if _last_about(statements, key).positive is False]
        counters["reaffirmed_after_withdrawal"] += len(withdrawn)
        return confirmed + [
            replace(
                _last_positive(confirmed, key),
                time=post.created_at,
                order=(index, -1),
                author=post.author or "",
                url=post.url,
                association=post.author_association,
                standing=True,
            )
            for key in withdrawn
        ]
    if affirms and not earlier and standing(post, thread, cfg):
        ref = _earlier_reference(thread, index, cfg, first=reading.plural, before=reading.affirm_at)
        if ref is not None:
            counters["target_from_earlier_comment"] += 1
            claim = Claim(ref, WORDING, False, False, -1, antecedent=True, earlier_post=True)
            key = _normalise(ref, thread, cfg)
            scored = score_claim(claim, post, thread, cfg)
            return [
                *statements,
                Statement.said(post, key, ref.kind, (index, -1), scored=scored, standing=True),
            ]
    return statements


def _last_about(statements: list[Statement], key: Key) -> Statement:
    return [st for st in statements if st.key == key][-1]


def _last_positive(statements: list[Statement], key: Key) -> Statement:
    return [st for st in statements if st.key == key and st.positive][-1]


def _closes_right_after(post: Post, thread: Thread, cfg: LinkConfig) -> bool:
    """ "This does seem like a duplicate. Closing.": the author acted on it by closing."""
    return (
        bool(post.author)
        and post.author == thread.closed_by
        and closed_soon_after(thread, post.created_at, cfg)
    )


def _answered_claims(post: Post, thread: Thread, earlier: list[Key], cfg: LinkConfig) -> set[Key]:
    """Earlier targets whose claim this reply quotes ("> likely a dup of #4" + "Fixed, thanks.")."""
    quoted = "\n".join(
        line.lstrip()[1:] for line in post.body.splitlines() if line.lstrip().startswith(">")
    )
    if not quoted:
        return set()
    claims = find_claims(text_mod.clean(quoted), thread.repo, thread.number).claims
    return {_normalise(c.target, thread, cfg) for c in claims if not c.negated} & set(earlier)


def _confirm(
    statements: list[Statement], which: Callable[[Statement], bool], cfg: LinkConfig
) -> list[Statement]:
    return [
        replace(st, scored=confirmed_later(st.scored, cfg)) if st.scored and which(st) else st
        for st in statements
    ]


def _after_outcome(
    statements: list[Statement],
    post: Post,
    index: int,
    thread: Thread,
    cfg: LinkConfig,
    counters: Counter[str],
) -> list[Statement]:
    """A later comment without a claim: reopening or disagreeing retracts earlier claims
    (reopening needs write access; a drive-by's "no" cannot overrule a maintainer);
    a "yes" right after a suggestion confirms it; a fix report lowers earlier claims,
    except for a target it names itself ("#12 is fixed now" says nothing against "dup of #12")."""
    if not any(st.positive for st in statements):
        return statements
    text = text_mod.clean(post.body)
    said = find_outcome(text)
    earlier = list(dict.fromkeys(st.key for st in statements if st.positive))
    answers_question = False
    if (
        said.answers_no
        and not said.disagrees
        and _answers_claim(statements, post, index, thread, earlier, cfg)
    ):
        said = replace(said, disagrees=True)  # "No." right under "dup of #N?", or quoting it
        # "Is this a dupe of #N?" asked, "No." answered: whoever answers, the asker asserted
        # nothing a "no" would have to overrule (old archives show core developers as plain
        # contributors, so standing cannot decide here)
        answers_question = any(
            st.positive
            and st.order[0] == index - 1
            and st.scored is not None
            and Signal.QUESTION in st.scored.signals
            for st in statements
        )
    if said.disagrees and not said.reopens and _after_final_close(thread, post):
        earlier = _own_claims(
            statements, post
        )  # nobody reopened: only the claimer can take it back
        counters[
            "ignored:dispute_after_close" if not earlier else "retracted_by_own_correction"
        ] += 1
        said = replace(said, disagrees=bool(earlier))
    if said.reopens or said.disagrees:
        counters["retracted_by_reopen" if said.reopens else "retracted_by_disagreement"] += len(
            earlier
        )
        who = said.reopens or answers_question or bool(standing(post, thread, cfg))
        return statements + _withdrawals(post, index, earlier, who)
    # a hedged reply ("Could be due to the same cause.") takes nothing up
    answered = (
        set()
        if said.disagrees or is_hedged_reply(text)
        else _answered_claims(post, thread, earlier, cfg)
    )
    if answered:  # a reply quoting the claim, neither reopening nor disagreeing: it takes it up
        counters["confirmed_by_quoting_reply"] += 1
        return _confirm(statements, lambda st: st.key in answered, cfg)
    if _agrees(said, post, thread):
        counters["confirmed_by_reply"] += 1
        return _confirm(statements, lambda st: st.order[0] == index - 1, cfg)
    if said.reports_fix:
        named = {_normalise(r, thread, cfg) for r in find_refs(text, thread.repo)}
        counters["lowered_by_fix_report"] += 1
        return [
            replace(st, scored=fixed_later(st.scored, cfg))
            if st.scored and st.key not in named and not st.target_fixed
            else st
            for st in statements
        ]
    return statements


def _answers_claim(
    statements: list[Statement],
    post: Post,
    index: int,
    thread: Thread,
    earlier: list[Key],
    cfg: LinkConfig,
) -> bool:
    """Is this reply an answer to a duplicate claim: the comment just before made one, or it quotes
    one?"""
    return any(st.positive and st.order[0] == index - 1 for st in statements) or bool(
        _answered_claims(post, thread, earlier, cfg)
    )


def _agrees(said: Outcome, post: Post, thread: Thread) -> bool:
    """ "Yes." from anyone; "Great, thanks!" from the issue's author (the pointer answered them)."""
    return said.agrees or (said.acknowledges and bool(post.author) and post.author == thread.author)


def _own_claims(statements: list[Statement], post: Post) -> list[Key]:
    return list(
        dict.fromkeys(
            st.key for st in statements if st.positive and post.author and st.author == post.author
        )
    )


def _after_final_close(thread: Thread, post: Post) -> bool:
    closed = parse_time(thread.closed_at)
    when = parse_time(post.created_at)
    return thread.state == "closed" and closed is not None and when is not None and when > closed


def _earlier_reference(
    thread: Thread, index: int, cfg: LinkConfig, *, first: bool = False, before: int = 0
) -> Ref | None:
    """The one issue this post (before its cue at `before`) or the nearest earlier one (up to
    three back) names, if it names exactly one; with `first` ("a dupe of those"), the first of
    the several it names. Bots' posts ("upstream changes (presumably #N) made this
    unmergeable") are skipped. An issue's body ("looks similar to #N") is the last resort
    however far back it is; a pull request's body names what the change fixes, not what it
    duplicates ("See #N. Also removes a duplicate test."), so it never counts."""
    for i in dict.fromkeys((*range(index, max(0, index - 3) - 1, -1), 0)):  # the body last, once
        if i == 0 and thread.is_pull_request:
            continue
        post = thread.posts[i]
        if (post.author or "") in cfg.merge_bots:
            continue
        if is_bot(post.author, cfg) and not (i == index - 1 and _suggests(post, thread)):
            # a bot's reference counts only as the suggestion the very next comment takes up
            continue
        text = text_mod.clean(post.body)
        refs = [
            r
            for r in find_refs(text, thread.repo)
            if _normalise(r, thread, cfg) != (thread.repo, thread.number)
            and (i < index or r.end <= before)
            and not names_a_fix(text, r)
            # the body's issues of other repositories are its context (the plugin's own report)
            and (i > 0 or _normalise(r, thread, cfg)[0] == thread.repo)
        ]
        if refs:
            distinct = {_normalise(r, thread, cfg) for r in refs}
            return refs[0] if first else refs[-1] if len(distinct) == 1 else None
    return None


def _suggests(post: Post, thread: Thread) -> bool:
    """Does this (bot's) comment suggest a duplicate ("Potential duplicates: #12")?"""
    reading = find_claims(text_mod.clean(post.body), thread.repo, thread.number)
    return any(not cl.negated for cl in reading.claims)


def _label_pointer(thread: Thread, cfg: LinkConfig, counters: Counter[str]) -> list[Statement]:
    """A thread GitHub calls a duplicate (label, `state_reason`, a REST event) without any
    claim in words: the issue a maintainer or the closer pointed to ("Please see #N", "Take
    a look at this - #N", a bare link) *is* the target. The pointer is the last such comment
    up to the duplicate label (when its `labeled` event is stored), else up to the close, or
    within an hour after it (the link a maintainer posts right after closing); failing that,
    the first one within a day after the close, the issue's author's too ("now searching got
    me #N"); and only when nobody points anywhere, a firm fix report ("already fixed by
    #N"). Disagreements and bots that did not close the issue point at nothing. "Also #N" adds
    to the same person's earlier pointer, which stays the canonical. A comment naming several
    issues points at `_pointed_at`'s."""
    found = (
        _pointer(thread, cfg)
        or _pointer_after_close(thread, cfg)
        or _pointer(thread, cfg, fixes=True)  # "already fixed by #N": the readers' target
    )
    counters["evidence:label_pointer"] += bool(found)
    return found


def _pointer_until(thread: Thread, cfg: LinkConfig) -> datetime | None:
    labelled = [
        parse_time(e.created_at)
        for e in thread.events
        if e.event.lower() == "labeled" and is_duplicate_label(e.label or "duplicate", cfg)
    ]
    return (
        labelled[0]
        if labelled and labelled[0] is not None
        else (parse_time(thread.closed_at) if thread.state == "closed" else None)
    )


def _pointing(
    post: Post, thread: Thread, cfg: LinkConfig, *, authors: bool, fixes: bool = False
) -> Ref | None:
    """The issue this comment points at, if its author may point and it points at all (with
    `fixes`, only a comment that names a fix, firmly: "already fixed by #N", not "may have
    been resolved in #N")."""
    who = standing(post, thread, cfg)
    allowed = (
        Signal.MAINTAINER,
        Signal.CLOSING_ACTOR,
        *((Signal.ISSUE_AUTHOR,) if authors else ()),
    )
    if not any(sig in allowed for sig, _ in who) or (
        is_bot(post.author, cfg) and post.author != thread.closed_by
    ):
        return None
    text = text_mod.clean(post.body)
    refs = [
        r
        for r in find_refs(text, thread.repo)
        if _normalise(r, thread, cfg) != (thread.repo, thread.number)
    ]
    said = find_outcome(text)
    if not refs and not said.disagrees:
        # "> I can reproduce it as described in #N" quoted back by the closer: the quoted line's
        # issue is what they point at (only when they name no other)
        text = text_mod.quoted_lines(post.body)
        refs = [
            r
            for r in find_refs(text, thread.repo)
            if _normalise(r, thread, cfg) != (thread.repo, thread.number)
        ]
    if not refs or said.disagrees or said.answers_no or said.reopens:
        return None
    if said.reports_fix != fixes or (fixes and is_hedged_reply(text)):
        return None
    return _pointed_at(text, refs, thread, cfg)


def _pointed_at(text: str, refs: list[Ref], thread: Thread, cfg: LinkConfig) -> Ref:
    """Of several issues one comment names, the one it points at. An issue of this repository
    comes before another's (an upstream report named beside the local one it is tracked in is
    background) and an issue before a pull request (the fix). Of those the first named, but for
    a hedged aside ("probably #C would address this"), a fix ("fixed by #D") or a parenthesis
    describing another reference ("#A (duplicate of #B)"). (The last named was tried on the
    dev rounds: it read "In #A someone asked for X, ... covered by #B" right and lost more
    threads that name the target first and background after.)"""
    local = [r for r in refs if _normalise(r, thread, cfg)[0] == thread.repo] or refs
    issues = [r for r in local if r.kind != "pull"] or local
    pointed = [
        r
        for r in issues
        if not names_a_fix(text, r)
        and not _in_hedged_sentence(text, r)
        and not _describes_earlier(text, r, refs)
    ]
    return (pointed or issues)[0]


def _in_hedged_sentence(text: str, ref: Ref) -> bool:
    start = max(text.rfind(".", 0, ref.start), text.rfind("\n", 0, ref.start)) + 1
    return is_hedged_reply(text[start : ref.start])


def _describes_earlier(text: str, ref: Ref, refs: list[Ref]) -> bool:
    """ "#A (duplicate of #B)": #B says what #A is."""
    earlier = [r for r in refs if r.end <= ref.start]
    return bool(earlier) and "(" in text[earlier[-1].end : ref.start]


def _statement(ref: Ref, index: int, post: Post, thread: Thread, cfg: LinkConfig) -> Statement:
    claim = Claim(ref, WORDING, False, False, -1)
    scored = score_claim(claim, post, thread, cfg)
    scored = Scored(scored.score, scored.signal, (*scored.signals, Signal.LABEL_POINTER))
    key = _normalise(ref, thread, cfg)
    return Statement.said(post, key, ref.kind, (index, -1), scored=scored, standing=True)


def _pointer(thread: Thread, cfg: LinkConfig, *, fixes: bool = False) -> list[Statement]:
    until = _pointer_until(thread, cfg)
    found: list[Statement] = []
    for index in range(len(thread.posts) - 1, 0, -1):
        post = thread.posts[index]
        when = parse_time(post.created_at)
        if (
            until is not None
            and when is not None
            and (when - until).total_seconds() > _POINTER_AFTER_CLOSE_SECONDS
        ):
            continue  # said well after the label or the close: see _pointer_after_close
        ref = _pointing(post, thread, cfg, authors=False, fixes=fixes)
        if ref is None:
            continue
        if found and post.author != found[0].author:
            break
        found = [_statement(ref, index, post, thread, cfg)]
        if not _ALSO.match(text_mod.clean(post.body)):
            break
    return found


def _pointer_after_close(thread: Thread, cfg: LinkConfig) -> list[Statement]:
    """Nobody pointed anywhere before the duplicate close: the first pointer within a day after
    it, a maintainer's or the issue's author's, answers "duplicate of what?"."""
    until = _pointer_until(thread, cfg)
    if until is None:
        return []
    for index, post in enumerate(thread.posts[1:], start=1):
        when = parse_time(post.created_at)
        if when is None or when <= until:
            continue
        if (when - until).total_seconds() > _POINTER_LATE_SECONDS:
            break
        ref = _pointing(post, thread, cfg, authors=True)
        if ref is not None:
            return [_statement(ref, index, post, thread, cfg)]
    return []


_ALSO = re.compile(r"^\s*(?:@[\w-]+\s*:?\s*)?(?:and\s+)?(?:also|see\s+also|plus)\b", re.I)


def _tracked_elsewhere(thread: Thread, cfg: LinkConfig, counters: Counter[str]) -> list[Statement]:
    """ "#N is tracking this, please follow that" by the person who then closes the issue
    (within the close window): consolidated into #N; a bot's "Please refer to that issue for
    updates" when it closes the issue right after (issue 32). Nobody else's comment counts, and
    the comment must name exactly one issue."""
    for index in range(len(thread.posts) - 1, 0, -1):
        post = thread.posts[index]
        if (
            not post.author
            or post.author != thread.closed_by
            or not closed_soon_after(thread, post.created_at, cfg)
        ):
            continue
        text = text_mod.clean(post.body)
        ref = tracked_elsewhere(text, thread.repo, thread.number)
        if ref is None:
            continue
        if is_bot(post.author, cfg):
            if not conv.bot_closes_on(post, thread, cfg, text):
                counters["dropped:bot_suggestion"] += 1
                continue
            cue, counter = BOT_CLOSE, "evidence:bot_close"
        else:
            cue, counter = CONSOLIDATION, "evidence:tracked_elsewhere"
        counters[counter] += 1
        scored = score_claim(Claim(ref, cue, False, False, -1), post, thread, cfg)
        key = _normalise(ref, thread, cfg)
        return [Statement.said(post, key, ref.kind, (index, -1), scored=scored, standing=True)]
    return []


def _event_statements(thread: Thread, cfg: LinkConfig, counters: Counter[str]) -> list[Statement]:
    base = math.log(cfg.graphql_confidence / (1.0 - cfg.graphql_confidence))
    extra = tuple(thread_says_duplicate(thread, cfg))
    out: list[Statement] = []
    for i, event in enumerate(thread.events):
        name = event.event.lower()
        if name not in _MARKED | _UNMARKED or event.canonical_number is None:
            continue
        key = _normalise(
            Ref(event.canonical_repo or thread.repo, event.canonical_number, "unknown", 0, 0),
            thread,
            cfg,
        )
        if key == (thread.repo, thread.number):
            counters["dropped:self_link"] += 1
            continue
        positive = name in _MARKED
        scored = (
            Scored(base, Signal.GRAPHQL_EVENT, (Signal.GRAPHQL_EVENT, *extra)) if positive else None
        )
        out.append(Statement.marked(event, key, (1_000_000, i), scored))
    return out


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
            near = when is not None and abs((closed - when).total_seconds()) <= _CONFIRM_SECONDS
            return (index, post) if near else None
    return None


def _after_closing_comment(
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


def _last_word_before_merge(
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


def _stale(statements: list[Statement]) -> dict[Key, str]:
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


def _link(
    thread: Thread, key: Key, group: list[Statement], cfg: LinkConfig, reason: str | None
) -> DuplicateLink:
    scored = [st.scored for st in group if st.scored is not None]
    confidence, best = combine(scored, len({st.author for st in group}), cfg)
    if any(st.from_event for st in group):
        confidence = max(confidence, cfg.graphql_confidence)
    present = {sig for s in scored for sig in s.signals}
    if len({st.author for st in group}) > 1:
        present.add(Signal.SEVERAL_AUTHORS)
    signal = next(sig for sig in TARGET_SIGNALS if sig in {s.signal for s in scored})
    lead = max(
        group,
        key=lambda st: (
            st.scored is not None and st.scored.signal == signal,
            st.scored.score if st.scored else -99.0,
        ),
    )
    kinds = {st.kind for st in group}
    return DuplicateLink(
        repo=thread.repo,
        number=thread.number,
        target_repo=key[0],
        target_number=key[1],
        target_kind="pull" if "pull" in kinds else "issue" if "issue" in kinds else "unknown",
        signal=signal.value,
        signals=tuple(sig.value for sig in Signal if sig in present),
        confidence=round(confidence, 4),
        evidence_url=lead.url,
        evidence_urls=tuple(dict.fromkeys(st.url for st in group)),
        author=lead.author or None,
        author_association=lead.association,
        created_at=lead.time,
        hedged=lead.hedged,
        excluded_reason=reason,
    )


def _links(thread: Thread, statements: list[Statement], cfg: LinkConfig) -> list[DuplicateLink]:
    stale = _stale(statements)
    links, ranks = [], []
    for key in dict.fromkeys(st.key for st in statements if st.positive):
        group = [st for st in statements if st.key == key and st.positive]
        if key not in stale:
            # after a retraction only the later claims count
            negatives = [st for st in statements if st.key == key and not st.positive]
            if negatives:
                later = [
                    st
                    for st in group
                    if (st.time, st.order) > (negatives[-1].time, negatives[-1].order)
                ]
                group = later or group  # the negatives were overruled drive-bys
        links.append(_link(thread, key, group, cfg, stale.get(key)))
        ranks.append(_rank(group))
    return _choose_canonical(links, ranks, cfg)


Rank = tuple[bool, bool, bool, str]


def _rank(group: list[Statement]) -> Rank:
    """Which surviving target is the thread's canonical: an event first, then the one
    established last ("dup of A", later "actually dup of B": B, whoever wrote it); a merely
    hedged suggestion does not displace a firm one, and a target only ever named "also"
    ("Agreed! (also a dupe of B)") does not displace the one agreed with."""
    firm = [
        st
        for st in group
        if not st.hedged or (st.scored and Signal.CONFIRMED_LATER in st.scored.signals)
    ]
    return (
        any(st.from_event for st in group),
        not all(st.also for st in group),
        bool(firm),
        max(st.time for st in firm or group),
    )


def _choose_canonical(
    links: list[DuplicateLink], ranks: list[Rank], cfg: LinkConfig
) -> list[DuplicateLink]:
    alive = [
        i
        for i, lk in enumerate(links)
        if lk.excluded_reason is None and lk.confidence >= cfg.min_confidence
    ]
    best = max(alive, key=lambda i: ranks[i], default=None)  # ties: the first named
    out = []
    for i, lk in enumerate(links):
        if lk.excluded_reason is None and i != best:
            lk = replace(lk, excluded_reason="not_canonical" if i in alive else "low_confidence")
        out.append(lk)
    return out


def _after_withdrawal(
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


def extract_thread(thread: Thread, cfg: LinkConfig | None = None) -> ThreadReading:
    """Links of one thread plus counters of every candidate it dropped."""
    cfg = cfg or LinkConfig()
    reading = ThreadReading()
    thread = copied_view(thread, reading.counters)  # a migrated thread's old ticket numbers
    rest_marks = [
        e for e in thread.events if e.event.lower() in _MARKED and e.canonical_number is None
    ]
    statements: list[Statement] = []
    for i, post in enumerate(thread.posts):
        found, said = _read_post(post, i, thread, cfg, reading.counters, rest_marks)
        if not found and not said.denies and not said.affirms and not said.affirms_hedged:
            statements = _after_outcome(statements, post, i, thread, cfg, reading.counters)
        statements = (
            _after_untargeted(statements, post, i, said, thread, cfg, reading.counters) + found
        )
    statements = _after_closing_comment(statements, thread, cfg, reading.counters)
    statements = _last_word_before_merge(statements, thread, cfg, reading.counters)
    statements += _event_statements(thread, cfg, reading.counters)
    says_duplicate = bool(thread_says_duplicate(thread, cfg) or rest_marks)
    if says_duplicate and not any(st.positive for st in statements):
        statements += _label_pointer(thread, cfg, reading.counters)
    if not any(st.positive for st in statements):
        statements += _tracked_elsewhere(thread, cfg, reading.counters)
    statements.sort(key=lambda st: (st.time, st.order))
    statements = _after_withdrawal(statements, thread, cfg, reading.counters)
    reading.links = _links(thread, statements, cfg)
    if says_duplicate and not any(lk.excluded_reason is None for lk in reading.links):
        reading.counters["duplicate_unknown_target"] += 1
    return reading


def extract_thread_links(thread: Thread, cfg: LinkConfig | None = None) -> list[DuplicateLink]:
    """The duplicate links of one thread (see module docstring)."""
    return extract_thread(thread, cfg).links
