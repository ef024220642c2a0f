"""Phase 1, reading the posts: one post's claims, each kept as a `Statement` or dropped under a
counter. A drop rule is one entry of `_POST_DROPS` (the whole post) or `_CLAIM_DROPS` (one claim),
its counter beside it; issue 32's conventions re-cue a claim (`_convention`)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

from issues_sts.evidence import text as text_mod
from issues_sts.evidence.patterns import (
    SAME_AS,
    Claim,
    Reading,
    find_claims,
)
from issues_sts.evidence.vocabulary import CUE, rule_of
from issues_sts.links import conventions as conv
from issues_sts.links.model import (
    Event,
    LinkConfig,
    Post,
    Thread,
)
from issues_sts.links.read.statement import Key, Statement, after_final_close, normalise
from issues_sts.links.scoring import (
    BOT_CLOSE,
    CONSOLIDATION,
    is_bot,
    parse_time,
    score_claim,
    standing,
    thread_says_duplicate,
)

_ADDRESSEE = re.compile(r"^\s*@([\w-]+)")


# GitHub acts on a comment's "/duplicate" with a REST mark by its author within this long
MARK_CONFIRMS_WITHIN_SECONDS = 600.0


def _confirmed(post: Post, rest_marks: list[Event]) -> bool:
    """A REST `marked_as_duplicate` by the commenter right after the comment: GitHub acted on it."""
    when = parse_time(post.created_at)
    for event in rest_marks:
        at = parse_time(event.created_at)
        if (
            event.actor == post.author
            and when
            and at
            and abs((at - when).total_seconds()) <= MARK_CONFIRMS_WITHIN_SECONDS
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
        and after_final_close(r.thread, r.post)
    )


# "@bob your issue is a duplicate of #N": the speaker answers bob's own report, posted here
_YOUR_REPORT = re.compile(
    r"^\s*@([\w-]+)[,:]?\s+(?:(?:i\s+think|it\s+(?:looks|seems)\s+like|looks\s+like)\s+)?"
    r"your\s+(?:issue|problem|bug|report|case|error|crash|one)\b",
    re.I,
)


def _addressed_to_bystanders_report(r: _Read) -> bool:
    """ "@bob your issue is a duplicate of #N" to someone who is not the issue's author (conv-21's
    vscode-jupyter close): bob's comment here is another problem, and so is its original."""
    addressee = _YOUR_REPORT.match(r.cleaned)
    return addressee is not None and addressee.group(1).lower() not in {
        (r.thread.author or "").lower(),
        (r.post.author or "").lower(),
    }


def _successor_after_close(r: _Read, claim: Claim, key: Key) -> bool:
    """ "New PR: #N" from a bystander months after the close: a later change, not this one's
    successor ("Dup of #N" after the close stays: in old archives core developers show as plain
    contributors)."""
    return (
        claim.successor
        and not claim.negated
        and after_final_close(r.thread, r.post)
        and not standing(r.post, r.thread, r.cfg)
    )


# a thread that asks for one release: "Mattermost 5.26.0", "Upgrade to OpenVPN 2.4.8", "Bump
# widget to v1.2" (a name and a version, or an update word before a version)
_RELEASE_TITLE = re.compile(
    r"^\s*(?:\[[^\]\n]{1,30}\]\s*)?(?:(?:update|upgrade|bump|release|new\s+version)\b[^\n]{0,60}?"
    r"|[\w.+-]+(?:\s+[\w.+-]+){0,3}\s+)v?\d+(?:\.\d+)+\s*$",
    re.I,
)


def _release_successor(r: _Read, claim: Claim, key: Key) -> bool:
    """ "Obsoleted by #N" on a request for one release (conv-27's NethServer and eduVPN closes,
    five hard negatives): the next release's request replaces it, a successor, not the same
    report. "Superseded by #N" on any other thread keeps its duplicate reading."""
    return (
        not claim.negated
        and rule_of(claim.cue_text, claim.cue).name == "superseded"
        and _RELEASE_TITLE.match(r.thread.title or "") is not None
    )


# A thread titled just "spam", or labelled spam (conv-34c's cpython close, whose body was a pasted
# "Duplicate of #A Duplicate of #B"): nothing in it reports a problem, so nothing it says is a
# duplicate statement. "Spam filter flags my mail" and a "spam-filter" label are real reports.
_SPAM_TITLE = re.compile(r"^\W*spam\W*$", re.I)
_SPAM_LABEL = re.compile(r"(?:^|[\s:/])spam\W*$", re.I)


def _spam_thread(r: _Read) -> bool:
    return _SPAM_TITLE.match(r.thread.title or "") is not None or any(
        _SPAM_LABEL.search(label) for label in r.thread.labels
    )


# A post whose claims all go: the first of these that holds drops every claim of the post and
# counts them under its name (checked only for a post with claims).
_POST_DROPS: tuple[tuple[str, Callable[[_Read], bool]], ...] = (
    ("dropped:spam_thread", _spam_thread),
    ("dropped:bot_suggestion", _bot_suggestion),
    ("dropped:addressed_to_bystander_after_close", _addressed_to_bystander_after_close),
    ("dropped:addressed_to_bystanders_report", _addressed_to_bystanders_report),
)
_PULL_REQUEST_WORDS = re.compile(r"\b(?:pull\s+request|PR)s?\b", re.I)
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
    # "There's already a pull request for this in <pull URL>" in an issue (conv-35's argo false
    # link): the change that fixes it; in a pull request the same words name its duplicate
    (
        "dropped:pull_request_for_issue",
        lambda r, claim, key: (
            claim.target.kind == "pull"
            and not r.thread.is_pull_request
            and _PULL_REQUEST_WORDS.search(claim.cue_text) is not None
        ),
    ),
    # "Refiled as other/tool#4": moved, not duplicated
    ("dropped:moved_elsewhere", lambda r, claim, key: claim.successor and key[0] != r.thread.repo),
    ("dropped:release_successor", _release_successor),
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
    there is not a claim (counted as dropped); a body copied from another thread's comment
    ("Reference in new issue") is that comment's words, not the reporter's (counted too)."""
    cleaned = text_mod.clean(post.body)
    if post.kind != "body":
        return cleaned
    own = text_mod.strip_copied_comment(cleaned)
    if own != cleaned:
        dropped = len(_claims(cleaned, thread).claims) - len(_claims(own, thread).claims)
        counters["dropped:copied_comment"] += max(0, dropped)
        cleaned = own
    form = text_mod.strip_form_fields(cleaned)
    if form == cleaned:
        return cleaned
    dropped = len(_claims(cleaned, thread).claims) - len(_claims(form, thread).claims)
    counters["dropped:issue_form_field"] += max(0, dropped)
    return text_mod.clean(form)


def read_post(
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
        key = normalise(claim.target, thread, cfg)
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
