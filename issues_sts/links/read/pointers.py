"""Phase 2, pointers and events: targets no claim in words names. GitHub's duplicate events, the
issue a maintainer pointed to in a thread labelled duplicate, and "tracked in #N" by the person
who then closed the issue."""

from __future__ import annotations

import math
import re
from collections import Counter
from datetime import datetime

from issues_sts.evidence import migration as headers
from issues_sts.evidence import text as text_mod
from issues_sts.evidence.patterns import (
    WORDING,
    Claim,
    Ref,
    find_claims,
    find_refs,
    is_hedged_reply,
    names_a_fix,
    tracked_elsewhere,
)
from issues_sts.evidence.replies import find_outcome
from issues_sts.evidence.vocabulary import CUE, REOPEN_REGEX
from issues_sts.links import conventions as conv
from issues_sts.links.migration import old_repo
from issues_sts.links.model import (
    LinkConfig,
    Post,
    Signal,
    Thread,
)
from issues_sts.links.read.statement import MARKED, UNMARKED, Key, Statement, normalise
from issues_sts.links.scoring import (
    BOT_CLOSE,
    CONSOLIDATION,
    Scored,
    closed_soon_after,
    is_bot,
    is_duplicate_label,
    parse_time,
    score_claim,
    standing,
    thread_says_duplicate,
)

# a pointer up to this long after the duplicate label (or the close) came with it
POINTER_AFTER_CLOSE_SECONDS = 3600.0
# nobody pointed before: the first pointer this long after still answers "duplicate of what?"
POINTER_LATE_SECONDS = 86400.0


def label_pointer(thread: Thread, cfg: LinkConfig, counters: Counter[str]) -> list[Statement]:
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
        if normalise(r, thread, cfg) != (thread.repo, thread.number)
    ]
    said = find_outcome(text)
    if not refs and not said.disagrees:
        # "> I can reproduce it as described in #N" quoted back by the closer: the quoted line's
        # issue is what they point at (only when they name no other)
        text = text_mod.quoted_lines(post.body)
        refs = [
            r
            for r in find_refs(text, thread.repo)
            if normalise(r, thread, cfg) != (thread.repo, thread.number)
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
    local = [r for r in refs if normalise(r, thread, cfg)[0] == thread.repo] or refs
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
    return is_hedged_reply(text[_sentence_start(text, ref) : ref.start])


def _sentence_start(text: str, ref: Ref) -> int:
    """Where the sentence (or line) holding `ref` starts."""
    return max(text.rfind(".", 0, ref.start), text.rfind("\n", 0, ref.start)) + 1


def _describes_earlier(text: str, ref: Ref, refs: list[Ref]) -> bool:
    """ "#A (duplicate of #B)": #B says what #A is."""
    earlier = [r for r in refs if r.end <= ref.start]
    return bool(earlier) and "(" in text[earlier[-1].end : ref.start]


def _statement(ref: Ref, index: int, post: Post, thread: Thread, cfg: LinkConfig) -> Statement:
    claim = Claim(ref, WORDING, False, False, -1)
    scored = score_claim(claim, post, thread, cfg)
    scored = Scored(scored.score, scored.signal, (*scored.signals, Signal.LABEL_POINTER))
    key = normalise(ref, thread, cfg)
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
            and (when - until).total_seconds() > POINTER_AFTER_CLOSE_SECONDS
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
        if (when - until).total_seconds() > POINTER_LATE_SECONDS:
            break
        ref = _pointing(post, thread, cfg, authors=True)
        if ref is not None:
            return [_statement(ref, index, post, thread, cfg)]
    return []


_ALSO = re.compile(r"^\s*(?:@[\w-]+\s*:?\s*)?(?:and\s+)?(?:also|see\s+also|plus)\b", re.I)


def tracked_statements(thread: Thread, cfg: LinkConfig, counters: Counter[str]) -> list[Statement]:
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
        key = normalise(ref, thread, cfg)
        return [Statement.said(post, key, ref.kind, (index, -1), scored=scored, standing=True)]
    return []


def title_statement(thread: Thread, cfg: LinkConfig, counters: Counter[str]) -> list[Statement]:
    """A closed issue whose title says what it duplicates ("Duplicate of <url>", conv-19's two
    QGIS and matplotlib misses: the title is the only statement) when no post names a target.
    The title is read as the body's words, with the body's weight: the reporter's, or an
    editor's who retitled it. Only one firm claim counts: a hedged, negated or asked one
    ("Duplicate of #12?"), a successor's words, or a title naming two targets says nothing
    here (counted); nor does the title of a body copied from another thread's comment."""
    if (
        thread.is_pull_request
        or thread.state != "closed"
        or not thread.posts
        or thread.posts[0].kind != "body"
        or not CUE.matches(thread.title)
    ):
        return []
    reading = find_claims(text_mod.clean(thread.title), thread.repo, thread.number)
    if not reading.claims:
        return []
    body = thread.posts[0]
    cleaned = text_mod.clean(body.body)
    if text_mod.strip_copied_comment(cleaned) != cleaned:
        # "Reference in new issue" fills the title with the other thread's comment, which
        # the body copies: the words are that thread's (conv-16's react miss)
        counters["dropped:copied_comment"] += len(reading.claims)
        return []
    claim = reading.claims[0]
    if (
        len(reading.claims) != 1
        or claim.negated
        or claim.hedged
        or claim.question
        or claim.successor
        or claim.first_person
    ):
        counters["dropped:title_not_firm"] += len(reading.claims)
        return []
    key = normalise(claim.target, thread, cfg)
    if key == (thread.repo, thread.number):
        counters["dropped:self_link"] += 1
        return []
    counters["evidence:title_statement"] += 1
    scored = score_claim(claim, body, thread, cfg)
    return [Statement.said(body, key, claim.target.kind, (0, -2), scored=scored, standing=True)]


def _other_refs(text: str, thread: Thread, cfg: LinkConfig) -> list[tuple[Ref, Key]]:
    """The references of `text` to issues other than the thread itself, with their keys."""
    keyed = [(r, normalise(r, thread, cfg)) for r in find_refs(text, thread.repo)]
    return [(r, key) for r, key in keyed if key != (thread.repo, thread.number)]


def copied_from_pointer(thread: Thread, cfg: LinkConfig, counters: Counter[str]) -> list[Statement]:
    """A thread GitHub calls a duplicate whose body GitHub's "Reference in new issue" made from a
    comment of another thread ("_Originally posted by @user in <url>_"), when nobody points
    anywhere: that thread is the target (conv-23's cryptomator close: a reporter's "still
    occurring" comment, spun off and labelled duplicate). The copied words themselves stay
    unread (`dropped:copied_comment`)."""
    if thread.is_pull_request or not thread.posts or thread.posts[0].kind != "body":
        return []
    body = thread.posts[0]
    text = text_mod.clean(body.body)
    refs = _other_refs(text_mod.copied_from_url(text) or "", thread, cfg)
    if not refs:
        return []
    if text_mod.copied_from_pull_request(text):
        # conv-41's hapi-fhir false link: a reviewer's note on a pull request, made an issue
        # and later closed as a duplicate of something unnamed; the pull request it came from is
        # the work under review, not an earlier report of the same thing
        counters["dropped:copied_from_pull"] += 1
        return []
    counters["evidence:copied_from_pointer"] += 1
    return [_statement(refs[0][0], 0, body, thread, cfg)]


def reporter_pointer(thread: Thread, cfg: LinkConfig, counters: Counter[str]) -> list[Statement]:
    """A thread the team labelled duplicate (or closed as one) when nobody pointed anywhere and
    the reporter's own title and body name one issue of this repository, and only that one
    ("Can issue #640 be reopened?" over "I saw it again, see <url of #640>", conv-24's NuGet
    close): the label answers the reporter's pointer. Two issues named, one of another
    repository (an upstream report named as background), or one the reporter sets apart ("I
    checked the similar issue #1455, but it couldn't solve this", onnxruntime #2119) point
    nowhere."""
    if thread.is_pull_request or not thread.posts or thread.posts[0].kind != "body":
        return []
    named = [
        (text, ref, key)
        for text in (text_mod.clean(thread.title), text_mod.clean(thread.posts[0].body))
        for ref, key in _other_refs(text, thread, cfg)
    ]
    keys = {key for *_, key in named}
    if len(keys) != 1 or named[0][2][0] != thread.repo or named[0][1].kind == "pull":
        return []
    if any(_CONTRAST.search(_sentence_of(text, ref)) for text, ref, _ in named):
        counters["dropped:reporter_contrasts"] += 1
        return []
    counters["evidence:reporter_pointer"] += 1
    return [_statement(named[0][1], 0, thread.posts[0], thread, cfg)]


def only_named_pointer(thread: Thread, cfg: LinkConfig, counters: Counter[str]) -> list[Statement]:
    """A thread GitHub's record calls a duplicate (the label, the state reason, a mark) when
    nobody who may point pointed anywhere and the whole thread, title and every post, names one
    issue of this repository and no other issue at all: the record answers the one name given
    (a bystander's "#236 seems to be what you ask for", the reporter's apology after it, conv-35's
    xenia-canary close). Only what was said up to a day after the label or the close counts, as
    for `_pointer_after_close` (a wish "hope this gets added: <url>" eight years on, neovim
    #3784, names no target). A bot's post that names an issue (a suggestion bot's list), a pull
    request named anywhere, another repository's issue, an issue named as the fix ("may have
    been resolved in #N", neovim #34019), or a sentence that sets the issue apart ("unlike #N")
    points nowhere."""
    if thread.is_pull_request or not thread.posts:
        return []
    until = _pointer_until(thread, cfg)
    texts = [(None, text_mod.clean(thread.title))] + [
        (post, text_mod.clean(post.body)) for post in thread.posts if not _said_late(post, until)
    ]
    named = [
        (post, text, ref, key)
        for post, text in texts
        for ref, key in _other_refs(text, thread, cfg)
    ]
    if len({key for *_, key in named}) != 1:
        return []
    post, text, ref, key = named[0]
    if key[0] != thread.repo or any(r.kind == "pull" for _, _, r, _ in named):
        return []
    if any(p is not None and is_bot(p.author, cfg) for p, *_ in named):
        counters["dropped:only_named_by_bot"] += 1
        return []
    if any(_CONTRAST.search(_sentence_of(t, r)) for _, t, r, _ in named):
        counters["dropped:only_named_contrasts"] += 1
        return []
    if any(
        names_a_fix(t, r) or find_outcome(_sentence_of(t, r)).reports_fix for _, t, r, _ in named
    ):
        counters["dropped:only_named_fix"] += 1
        return []
    counters["evidence:only_named_pointer"] += 1
    # the post that first names it speaks (the title is the body's)
    speaker = post or thread.posts[0]
    return [_statement(ref, thread.posts.index(speaker), speaker, thread, cfg)]


def link_only_issue(thread: Thread, cfg: LinkConfig, counters: Counter[str]) -> list[Statement]:
    """A closed issue whose whole content is one earlier issue of this repository: a body that
    is nothing but its link ("<url of #6240>" under any title, conv-36's operator-sdk close), or
    a short request to reopen it ("Please reopen #978" over its link, conv-36's oauth2-proxy
    closes), or a title that is nothing but the reference over an issue form left blank ("#3864",
    conv-34's Signal-Desktop close). The readers' brief calls all three duplicates of that issue
    (`ambiguous`): the reporter came back to the earlier report instead of writing a new one.
    Two issues named, a pull request, another repository's issue, a body with more to say than
    the request, an open issue, or a reply that disputes it ("this is not the same") is no such
    issue."""
    if thread.is_pull_request or thread.state != "closed" or not thread.posts:
        return []
    body_post = thread.posts[0]
    if body_post.kind != "body":
        return []
    title, body = text_mod.clean(thread.title), text_mod.clean(body_post.body)
    named = [
        (where, ref, key)
        for where, text in (("title", title), ("body", body))
        for ref, key in _other_refs(text, thread, cfg)
    ]
    if len({key for *_, key in named}) != 1:
        return []
    _, ref, key = named[0]
    if key[0] != thread.repo or any(r.kind == "pull" for _, r, _ in named):
        return []
    body_refs = [r for where, r, _ in named if where == "body"]
    title_refs = [r for where, r, _ in named if where == "title"]
    rest = _without(body, body_refs)
    if body_refs and _TASK_TITLE.search(title):
        # conv-39's mumble false link: "Backport fix for issue 1189 to 1.2.11." over the link
        # is a task about that issue, not a second report of it
        counters["dropped:link_only_task_title"] += 1
        return []
    asks = bool(_REOPEN_REQUEST.search(title) or _REOPEN_REQUEST.search(rest))
    if not body_refs:
        # the title is the link (conv-34's "#3864" and "<url of #6183>" over an issue form
        # left blank): only a title that is nothing but the reference, over no words of one's own
        bare_title = not _without(title, title_refs).strip(_PUNCTUATION)
        if not (bare_title or asks) or not _blank_template(rest):
            return []
        rest = ""
    if rest.strip(_PUNCTUATION) and not (asks and len(rest.split()) <= _REQUEST_WORDS):
        return []
    if any(find_outcome(text_mod.clean(post.body)).disagrees for post in thread.posts[1:]):
        counters["dropped:link_only_disputed"] += 1
        return []
    counters["evidence:reopen_request" if asks else "evidence:link_only_issue"] += 1
    return [_statement(ref, 0, body_post, thread, cfg)]


def _blank_template(text: str) -> bool:
    """Nothing but an issue form's skeleton: headings, rules, checkboxes, "Label:" lines and
    list items of a few words ("1. step one"), or nothing at all. A sentence of one's own ("It
    crashes.") is not blank."""
    for line in text.splitlines():
        line = line.strip()
        if not line or _TEMPLATE_LINE.match(line):
            continue
        item = _LIST_ITEM.match(line)
        if item and len(line[item.end() :].split()) <= 3:
            continue
        return False
    return True


# a heading, a rule, a checkbox, or a label with nothing after it ("Actual Result:")
_TEMPLATE_LINE = re.compile(
    r"#{1,6}(?:\s.*)?$|[-*_]{3,}$|(?:[-*+]\s*)?\[[ xX]\].*$|(?:[-*+]\s*)?[^.!?:]{1,40}:$"
)
_LIST_ITEM = re.compile(r"(?:[-*+]|\d+[.)])\s+")
# a title that names work on the linked issue: a backport, a follow-up, a test or docs for it
_TASK_TITLE = re.compile(
    r"\b(?:back-?port(?:s|ed|ing)?|cherry[- ]?pick(?:s|ed)?|follow[- ]?up|revert(?:s|ed)?"
    r"|(?:tests?|docs?|documentation|changelog)\s+for|port(?:ed)?\s+(?:of|to))\b"
    # conv-41's grpc false links: "Address #3912 for Node", "Check if #95 affects node.js": a
    # title that opens with the work to do on the issue it names (the same one the body links)
    r"|^\s*(?:address|check(?:\s+(?:if|whether))?|investigate|apply|implement|evaluate|verify"
    r"|audit)\s+(?:the\s+)?(?:issue\s+)?#\d+\b",
    re.I,
)
_REOPEN_REQUEST = re.compile(REOPEN_REGEX)  # the stage's screen for such issues, the same words
# a request to reopen says little more than that ("Please could you reopen 978?")
_REQUEST_WORDS = 12
_PUNCTUATION = " \t\n.,:;!?()[]<>-*_"


def _without(text: str, refs: list[Ref]) -> str:
    """`text` with the references cut out."""
    out, at = [], 0
    for r in sorted(refs, key=lambda r: r.start):
        out.append(text[at : r.start])
        at = r.end
    return ("".join(out) + text[at:]).strip()


def _said_late(post: Post, until: datetime | None) -> bool:
    """Said more than `POINTER_LATE_SECONDS` after the duplicate label or the close."""
    when = parse_time(post.created_at)
    return (
        until is not None
        and when is not None
        and (when - until).total_seconds() > POINTER_LATE_SECONDS
    )


def closer_pointer(thread: Thread, cfg: LinkConfig, counters: Counter[str]) -> list[Statement]:
    """The closer's last word before the close is nothing but one issue of this repository
    ("#4205", a bare link to it), and nobody spoke after it: the closer answered "duplicate of
    what?" without the word (conv-25..29's alt-tab, vant, vert.x and bigbluebutton closes; the
    readers' "ambiguous" rows). Any other word beside the reference ("See #N", "fixed in #N",
    "#12 is related") is not this pointer, nor a reference to a pull request (the fix) or to
    another repository's issue (an upstream report), nor a bot's, nor a comment after the close
    window."""
    if thread.is_pull_request or thread.state != "closed" or len(thread.posts) < 2:
        return []
    post = thread.posts[-1]
    if (
        post.kind != "comment"
        or not post.author
        or post.author != thread.closed_by
        or is_bot(post.author, cfg)
        or not closed_soon_after(thread, post.created_at, cfg)
    ):
        return []
    text = text_mod.clean(post.body).strip()
    refs = _other_refs(text, thread, cfg)
    if len(refs) != 1:
        return []
    ref, key = refs[0]
    if key[0] != thread.repo or ref.kind == "pull":
        return []
    # nothing but the reference: also no second one, this issue's own included
    if (text[: ref.start] + text[ref.end :]).strip(" \t\n.:;!()[]<>") != "":
        return []
    counters["evidence:closer_pointer"] += 1
    claim = Claim(ref, WORDING, False, False, -1)
    scored = score_claim(claim, post, thread, cfg)
    scored = Scored(scored.score, scored.signal, (*scored.signals, Signal.CLOSER_POINTER))
    index = len(thread.posts) - 1
    return [Statement.said(post, key, ref.kind, (index, -1), scored=scored, standing=True)]


# the reporter sets the named issue apart from this one
_CONTRAST = re.compile(
    r"\b(?:but|however|although|though|differen\w*|unlike|not|no\s+longer|\w+n['\u2019]t"
    r"|(?:do|does|did|ca|could|wo|is|was|would|should)nt)\b",
    re.I,
)


def _sentence_of(text: str, ref: Ref) -> str:
    start = _sentence_start(text, ref)
    ends = [i for i in (text.find(".", ref.end), text.find("\n", ref.end)) if i >= 0]
    return text[start : min(ends) if ends else len(text)]


def title_pointer(
    thread: Thread, closer: Post, cfg: LinkConfig, counters: Counter[str]
) -> list[Statement]:
    """The closer's own untargeted "Closing this as a duplicate" when the title is the only
    place that names an issue ("Is issue #10090 really resolved?", conv-22's gatsby close: "share
    it in the original issue"): the one issue the title names is the target, with the closer's
    weight. Only when no post points anywhere (`label_pointer` came first) and the title names
    exactly one issue of its own repository."""
    if thread.is_pull_request or thread.state != "closed":
        return []
    refs = _other_refs(text_mod.clean(thread.title), thread, cfg)
    # the key's repository, not the reference's: a title naming the repository by its name
    # before a rename ("Look here again <url of diydrones/ardupilot#1999>", conv-25) names this one
    if len({key for _, key in refs}) != 1 or refs[0][1][0] != thread.repo:
        return []
    counters["evidence:title_pointer"] += 1
    index = thread.posts.index(closer)
    return [_statement(refs[0][0], index, closer, thread, cfg)]


def event_statements(thread: Thread, cfg: LinkConfig, counters: Counter[str]) -> list[Statement]:
    base = math.log(cfg.graphql_confidence / (1.0 - cfg.graphql_confidence))
    extra = tuple(thread_says_duplicate(thread, cfg))
    out: list[Statement] = []
    for i, event in enumerate(thread.events):
        name = event.event.lower()
        if name not in MARKED | UNMARKED or event.canonical_number is None:
            continue
        key = normalise(
            Ref(event.canonical_repo or thread.repo, event.canonical_number, "unknown", 0, 0),
            thread,
            cfg,
        )
        if key == (thread.repo, thread.number):
            counters["dropped:self_link"] += 1
            continue
        positive = name in MARKED
        scored = (
            Scored(base, Signal.GRAPHQL_EVENT, (Signal.GRAPHQL_EVENT, *extra)) if positive else None
        )
        out.append(Statement.marked(event, key, (1_000_000, i), scored))
    return out


# who a tracker's own record is by: the old tracker, not any GitHub account
TRACKER = "old-tracker"
# the header forms whose copied comments record status changes (Google Code's "**Status:**
# Duplicate" with "Mergedinto", FlySpray's "Reason for closing: Duplicate" with "Of #N")
STATUS_FORMS = frozenset({"google_code_original_issue", "flyspray"})


def _tracker_statement(
    key: Key,
    post: Post,
    order: tuple[int, int],
    thread: Thread,
    cfg: LinkConfig,
    counters: Counter[str],
    says: list[Signal] | None = None,
) -> list[Statement]:
    """The old tracker's duplicate record as the one statement it makes: the team's close,
    dated when `post` (where the migration wrote it) was written, counted as evidence. `says`:
    the thread's own duplicate signals, when the caller has them already."""
    counters["evidence:tracker_resolution"] += 1
    signals = thread_says_duplicate(thread, cfg) if says is None else says
    scored = Scored(
        cfg.w_tracker_resolution, Signal.TRACKER_RESOLUTION, (Signal.TRACKER_RESOLUTION, *signals)
    )
    return [
        Statement(
            key,
            "issue",
            True,
            post.created_at,
            order,
            TRACKER,
            post.url,
            None,
            scored=scored,
            standing=True,
        )
    ]


def _status_record(thread: Thread, cfg: LinkConfig, counters: Counter[str]) -> list[Statement]:
    """A Google Code issue merged into another: the migration copied each status change into the
    comment that made it ("**Status:** Duplicate", "**Mergedinto:** 18"; FlySpray's import
    "**Reason for closing: _Duplicate_**" over the closer's "> Of #18."). The last copied change
    decides (an issue set Duplicate and later Accepted is no duplicate); its merged-into number
    is the original's old number, mapped like any old ticket, dated when the comment was
    copied. A merge into another project's issue names nothing this map can find (counted)."""
    last: tuple[int, Post, headers.StatusChange] | None = None
    for index, post in enumerate(thread.posts[1:], start=1):
        if headers.comment_was_migrated(post.body):
            change = headers.status_change(post.body)
            if change is not None:
                last = (index, post, change)
    if last is None:
        return []
    index, post, change = last
    old = change.merged_into
    if change.status.lower() != "duplicate" or old is None:
        return []
    if change.elsewhere:
        counters["dropped:merged_into_other_project"] += 1
        return []
    if old == headers.mapped_number(thread.posts[0].body, thread.title):
        counters["dropped:self_link"] += 1
        return []
    return _tracker_statement(
        (old_repo(thread.repo), old), post, (index, -1), thread, cfg, counters
    )


def _exporter_record(thread: Thread, cfg: LinkConfig, counters: Counter[str]) -> list[Statement]:
    """Google's exporter's "- Merged into: #N" (`headers.exporter_merged_into`): the old tracker's
    merge, the number already GitHub's; dated when the issue was written, like the others."""
    body = thread.posts[0]
    number = headers.exporter_merged_into(body.body)
    if number is None:
        return []
    if number == thread.number:
        counters["dropped:self_link"] += 1
        return []
    return _tracker_statement((thread.repo, number), body, (0, -1), thread, cfg, counters)


def record_statements(thread: Thread, cfg: LinkConfig, counters: Counter[str]) -> list[Statement]:
    """A migrated issue its old tracker closed as a duplicate: the record the migration copied
    (bugs.python.org's `resolution = 'duplicate'` and `superseder = '18'`, a Bugzilla import's
    "Duplicates: BZ#18" on an issue labelled duplicate, an Apache JIRA import's one "duplicates"
    link) names the original by its old number, which the stage maps to GitHub's like any old
    ticket (`links/migration.py`); Google's exporter's "- Merged into: #N" names it by GitHub's.
    It is the team's recorded close, as firm as a maintainer's claim but dated when the issue
    was written (the record came over with it): anything said on GitHub since, "Duplicate of
    #514" typed after the import, is a later word and wins; an issue open again on GitHub no
    longer stands on it."""
    if thread.state != "closed" or not thread.posts or thread.posts[0].kind != "body":
        return []
    body = thread.posts[0]
    if headers.header_form(body.body, thread.title) in STATUS_FORMS:
        return _status_record(thread, cfg, counters)
    record = headers.tracker_record(body.body)
    if record is None:
        return _exporter_record(thread, cfg, counters)
    says = thread_says_duplicate(thread, cfg)
    if record.needs_label and Signal.LABEL not in says:
        counters["dropped:tracker_record_unlabelled"] += 1
        return []
    if record.old == record.own:
        counters["dropped:self_link"] += 1
        return []
    key = (old_repo(thread.repo, record.project), record.old)
    # ordered as the body's, before its own words
    return _tracker_statement(key, body, (0, -1), thread, cfg, counters, says)
