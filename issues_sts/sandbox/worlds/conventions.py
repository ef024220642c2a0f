"""Issue 32's repository conventions in generated worlds, with their near misses.

    shape(builder, index)   # after the builder built a repository, before it is rendered

Three conventions real repositories use for a few percent of their duplicates each:

- a triage bot (a `Bot` account, `*[bot]` login) states "This issue is a duplicate of <url>.
  Please refer to that issue for updates." and closes the issue seconds later, as not planned
  (before GitHub recorded duplicate closes) or as a duplicate; the maintainer's command that
  asked for it is often deleted, so the bot's words are all that names the target;
- a team member folds the issue into a tracking issue at the close ("Consolidating to tracking
  issue #N", "tracked in #N");
- one repository (the second) migrated from trac: its oldest issues carry the migration's header
  ("_Original ticket http://trac.../ticket/18 ..._"), and the comments the migration copied over
  number tickets the old way ("Duplicate of #18" is ticket 18, another GitHub number). Some
  copied comments name a ticket that never came to GitHub: no duplicate of any GitHub issue.

Near misses among the other issues: a bot that only suggests, a bot's statement taken back by a
reopen, the consolidation words from outside the team or on an issue left open, "Related to #N"
at a close, and a header-like sentence in an ordinary comment. Everything here draws from its own
random stream, so the rest of the world is what it was without these shapes.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from issues_sts.sandbox.worlds import dupes as D
from issues_sts.sandbox.worlds.render import Draft, Person, iso

BOT_SHARE = 0.03  # of a repository's duplicates: closed by a triage bot's statement
CONSOLIDATION_SHARE = 0.03  # of its duplicates: consolidated into a tracking issue at the close
NEAR_MISS_SHARE = 0.015  # of its other issues, for each kind of near miss
MIGRATED_REPO = 1  # the index of the repository migrated from trac (when the world has one)
MIGRATED_SHARE = 0.2  # of its issues (the oldest) came from trac
TICKET_GAP = 0.08  # trac tickets that never came to GitHub (spam, deleted)

BOT_STATES = (
    "This issue is a duplicate of {url}. Please refer to that issue for updates and add any new"
    " details there.",
    "Closed as a duplicate of {short}. Please follow that issue for updates.",
    "Please look at the following meta issue: {url}. Please refer to that issue for updates and"
    " discussions.",
)
COMMAND = ("/duplicate", "/duplicate of {short}")
CONSOLIDATES = (
    "Consolidating to tracking issue {short}.",
    "Closing in favour of the tracking issue {short}.",
    "This is tracked in {short}, closing.",
    "Let's continue to track this in {short}.",
)
SUGGESTS = ("This issue may be a duplicate of {short}.", "Possible duplicates:\n- {short}")
TAKEN_BACK = ("Not a duplicate of {short}, reopening.", "The bot got this wrong, reopening.")
OUTSIDE_TEAM = ("Consolidating into {short}.", "This is tracked in {short}.")
AT_CLOSE = ("Related to {short}.", "See also {short}.")
TRAC = "http://trac.example.org/{name}/ticket/{ticket}"
HEADER = "_Original ticket {url} on {date} by trac user {who}, assigned to unknown._\n\n"
COPIED = "_@{who} wrote on {date}_\n\n"
COPIED_CLOSING = (
    "Duplicate of #{ticket}.",
    "Closing as a duplicate of ticket {ticket}.",
    "dup of " + TRAC,
)
LOST = "The original ticket is lost, see " + TRAC + " for what is left of it."


class _Builder(Protocol):
    """What this module reads of a generator's repository builder."""

    full_name: str
    drafts: dict[int, Draft]
    truth: dict[int, tuple[str, int]]
    evidence: dict[int, str]
    members: list[Any]  # OWNER, MEMBER, COLLABORATOR
    users: list[Any]  # outside the team


def shape(builder: _Builder, index: int, seed: int = 0) -> None:
    """Give `builder`'s repository these conventions (its duplicates' truth stays right)."""
    rng = random.Random(f"conventions/{seed}/{index}/{builder.full_name}")
    migrated = _migrate(builder, rng) if index == MIGRATED_REPO else set()
    dupes = [n for n in sorted(builder.truth) if n not in migrated and _local(builder, n)]
    for number in dupes:
        roll = rng.random()
        if roll < BOT_SHARE:
            _bot_states(builder, rng, number)
        elif roll < BOT_SHARE + CONSOLIDATION_SHARE:
            _consolidates(builder, rng, number)
    others = [n for n in sorted(builder.drafts) if n not in builder.truth and n not in migrated]
    for number in others:
        draft = builder.drafts[number]
        earlier = _earlier(builder, number)
        if draft.is_pr or earlier is None:
            continue
        kind = int(rng.random() / NEAR_MISS_SHARE)
        if kind < len(_NEAR_MISSES):
            _NEAR_MISSES[kind](builder, rng, draft, _ref(builder, earlier))


def _local(builder: _Builder, number: int) -> bool:
    return builder.truth[number][0] == builder.full_name and number in builder.drafts


def _ref(builder: _Builder, number: int) -> D.Ref:
    return D.Ref(builder.full_name, number, builder.full_name)


def _earlier(builder: _Builder, number: int) -> int | None:
    """An earlier issue of the repository (not a pull request) to name, if any."""
    for other in range(number - 1, max(0, number - 40), -1):
        found = builder.drafts.get(other)
        if found is not None and not found.is_pr:
            return other
    return None


def _restart(draft: Draft) -> float:
    """Forget how `draft` was closed (its comments and events) and return when to begin anew."""
    draft.comments.clear()
    draft.events.clear()
    draft.labels[:] = [name for name in draft.labels if "dup" not in name.lower()]
    draft.closed = None
    return draft.created + 3600.0 * 20


def _close_reason(t: float) -> str | None:
    from issues_sts.sandbox.worlds.generator import DUPLICATE_REASON_SINCE, NOT_PLANNED_SINCE

    if t >= DUPLICATE_REASON_SINCE:
        return "duplicate"
    return "not_planned" if t >= NOT_PLANNED_SINCE else None


def _bot_states(builder: _Builder, rng: random.Random, number: int) -> None:
    """A maintainer's command (deleted half the time), the bot's statement, its close."""
    draft = builder.drafts[number]
    ref = D.Ref(*builder.truth[number], builder.full_name)
    t = _restart(draft)
    if rng.random() < 0.5:
        draft.comment(t, rng.choice(builder.members), D.pick(rng, COMMAND, ref))
    bot = D.bot_person()
    draft.comment(t + 4, bot, D.pick(rng, BOT_STATES, ref))
    reason = _close_reason(t)
    draft.close(t + 6, bot, reason if rng.random() < 0.5 or reason is None else "not_planned")
    builder.evidence[number] = "bot_states"


def _consolidates(builder: _Builder, rng: random.Random, number: int) -> None:
    draft = builder.drafts[number]
    ref = D.Ref(*builder.truth[number], builder.full_name)
    t = _restart(draft)
    member = rng.choice(builder.members)
    draft.comment(t, member, D.pick(rng, CONSOLIDATES, ref))
    draft.close(t + 90, member, _close_reason(t) if rng.random() < 0.5 else "not_planned")
    builder.evidence[number] = "team_consolidation"


# -- near misses -----------------------------------------------------------------------------
def _suggestion(builder: _Builder, rng: random.Random, draft: Draft, ref: D.Ref) -> None:
    """A bot only suggests; whoever closes the issue later closes it for itself."""
    draft.comment(draft.created + 600, D.bot_person(), D.pick(rng, SUGGESTS, ref))


def _taken_back(builder: _Builder, rng: random.Random, draft: Draft, ref: D.Ref) -> None:
    """The bot states a duplicate and closes; a maintainer reopens it: not a duplicate."""
    if draft.closed is not None:
        return
    t = draft.last_activity() + 3600
    bot = D.bot_person()
    draft.comment(t, bot, D.pick(rng, BOT_STATES, ref))
    draft.close(t + 5, bot, _close_reason(t) or "not_planned")
    member = rng.choice(builder.members)
    draft.reopen(t + 86400, member)
    draft.comment(t + 86400 + 5, member, D.pick(rng, TAKEN_BACK, ref))


def _outside_team(builder: _Builder, rng: random.Random, draft: Draft, ref: D.Ref) -> None:
    """The consolidation words from someone outside the team, or on an issue left open."""
    if draft.closed is not None:
        who = rng.choice(builder.users)
        draft.comment(draft.created + 7200, who, D.pick(rng, OUTSIDE_TEAM, ref))
    else:
        draft.comment(
            draft.created + 7200, rng.choice(builder.members), D.pick(rng, OUTSIDE_TEAM, ref)
        )


def _at_close(builder: _Builder, rng: random.Random, draft: Draft, ref: D.Ref) -> None:
    """ "Related to #N" from the member who closes the issue, as they close it."""
    if draft.closed is None:
        return
    at, who, _ = draft.closed
    draft.comment(at - 30, who, D.pick(rng, AT_CLOSE, ref))


def _header_like(builder: _Builder, rng: random.Random, draft: Draft, ref: D.Ref) -> None:
    """A sentence that reads like a migration header, in an ordinary comment."""
    name = builder.full_name.split("/")[1]
    text = LOST.format(name=name, ticket=ref.number)
    draft.comment(draft.created + 5400, rng.choice(builder.users), text)


_NEAR_MISSES = (_suggestion, _taken_back, _outside_team, _at_close, _header_like)


# -- a repository migrated from trac ---------------------------------------------------------
def _migrate(builder: _Builder, rng: random.Random) -> set[int]:
    """The oldest issues came from trac: headers, copied comments, old numbers. A duplicate of a
    migrated issue was closed in trac (its copied comment names the old number); one of a later
    issue was closed on GitHub, as generated. Returns the migrated issues' numbers."""
    issues = [n for n in sorted(builder.drafts) if not builder.drafts[n].is_pr]
    migrated = issues[: max(10, int(len(issues) * MIGRATED_SHARE))]
    if len(migrated) < 10:
        return set()
    owner, name = builder.full_name.split("/")
    importer = Person(f"{name}-gitbot", 2_000_000 + len(name), "NONE")
    ticket, tickets, gaps = 0, {}, []
    for number in migrated:
        ticket += 1
        while rng.random() < TICKET_GAP:  # a ticket that never came to GitHub
            gaps.append(ticket)
            ticket += 1
        tickets[number] = ticket
    for number in migrated:
        draft = builder.drafts[number]
        when = iso(draft.created)[:10]
        url = TRAC.format(name=name, ticket=tickets[number])
        header = HEADER.format(url=url, date=when, who=draft.author.login)
        target = builder.truth.get(number)
        if target is not None and target[0] == builder.full_name and target[1] in tickets:
            t = _restart(draft)
            said = rng.choice(COPIED_CLOSING).format(name=name, ticket=tickets[target[1]])
            draft.comment(t, importer, COPIED.format(who="alice", date=when) + said)
            draft.close(t + 1, importer, None)
            builder.evidence[number] = "migrated"
        elif target is None and gaps and rng.random() < 0.1 and draft.closed is None:
            said = rng.choice(COPIED_CLOSING).format(name=name, ticket=rng.choice(gaps))
            draft.comment(draft.created + 60, importer, COPIED.format(who="bob", date=when) + said)
            draft.close(draft.created + 61, importer, None)  # a duplicate of a lost ticket
        draft.body = header + (draft.body or "")
        draft.author = importer
    return set(migrated)
