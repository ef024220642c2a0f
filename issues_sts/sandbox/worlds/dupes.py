"""How people say "duplicate" (and "not a duplicate") on GitHub, phrased many ways.

Besides the phrasings, the modern evidence shapes (issue 13) live here as writers that the
world generator's evidence table calls: a duplicate label plus a maintainer's pointer, a
question confirmed by a reply, phrasings outside the old vocabulary, a triage bot that
closes as a duplicate; and, among the hard negatives, bots that only suggest and issue-form
fields that only look like claims.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Ref:
    """A reference from one issue to another, as it would be written from `here`."""

    repo: str  # full name of the referenced issue's repository
    number: int
    here: str  # full name of the repository the text is written in
    comment_id: int = 0

    @property
    def short(self) -> str:
        return f"#{self.number}" if self.repo == self.here else f"{self.repo}#{self.number}"

    @property
    def url(self) -> str:
        return f"https://github.com/{self.repo}/issues/{self.number}"


CLOSING = (
    "Duplicate of {short}",
    "Duplicate of {short}\n\nThanks for the report! Please follow the original issue for updates.",
    "Closing as a duplicate of {short}.",
    "Thanks for reporting. This is a dupe of {short}, closing in favour of that one.",
    "/duplicate {short}",
    "Duplicate of {url}",
    "This was already reported in {url_comment}, closing as duplicate.",
    "Duplicate of [{short}]({url})",
    "Looks like the same root cause as {short}. Closing as a duplicate; let's keep the discussion "
    "there.",
    "dup of {short}",
    "Closing in favor of {short} (same issue).",
    "This is tracked in {short}, closing this one as duplicate.",
    "DUPLICATE OF {short}",
    "Hi! This is the same problem as {short}. I'll close this one as a duplicate, please add any "
    "extra details there.",
)
CLOSING_CROSS = (
    "Duplicate of {repo}#{number}",
    "This belongs upstream: duplicate of {repo}#{number}",
    "Duplicate of {url}",
    "Closing as a duplicate of {url} (reported in the other repository).",
)
HEDGED = (
    "probably a dup of {short}?",
    "This might be a duplicate of {short}.",
    "Possibly the same as {short}?",
    "Could this be related to / a duplicate of {short}?",
    "I think {short} describes the same problem.",
)
CONFIRM = (
    "Yes, closing as duplicate.",
    "Agreed, duplicate.",
    "Right, let's track it there. Closing.",
)
NEGATIVE = (
    "Not a duplicate of {short}: that one is about a different component.",
    "I don't think this is a dupe of {short}, the stack trace is different. Reopening.",
    "Related to {short}",
    "See {short} for some background.",
    "Possibly related: {short}",
    "This is not the same as {short}; that one was fixed in the last release.",
    "Similar symptoms to {short}, but a different cause, so keeping this open.",
    "cc {short}",
)
DENIAL = (
    "No, {short} is a different problem (other component). Keeping this open.",
    "I don't think so: {short} was fixed already and this still happens on main.",
    "Not the same: {short} is about startup, this is about shutdown.",
)
# closing words without GitHub's keyword (a keyword would also mark the issue)
CLOSING_NO_KEYWORD = (
    "Closing as a duplicate of {short}.",
    "This is a dupe of {short}, closing.",
)
RETARGET_FIRST = ("Duplicate of {short}", "Closing as a duplicate of {short}.")
RETARGET_FIX = (
    "Oops, wrong number. This is a duplicate of {short}",
    "Sorry, I linked the wrong issue above. Duplicate of {short}",
    "Correction: the right one is {short}. Duplicate of {short}",
)
UNMARK = (
    "Not a duplicate of {short} after all, reopening.",
    "On second look this is different from {short}. Reopening.",
)
NO_NUMBER = (
    "Closing as duplicate.",
    "Duplicate, closing.",
    "This has been reported before, closing.",
)


def render(template: str, ref: Ref) -> str:
    return template.format(
        short=ref.short,
        url=ref.url,
        repo=ref.repo,
        number=ref.number,
        url_comment=f"{ref.url}#issuecomment-{ref.comment_id or ref.number * 1000 + 7}",
    )


def closing(rng: random.Random, ref: Ref) -> str:
    pool = CLOSING if ref.repo == ref.here else CLOSING_CROSS
    return render(rng.choice(pool), ref)


def pick(rng: random.Random, pool: tuple[str, ...], ref: Ref) -> str:
    return render(rng.choice(pool), ref)


# -- today's GitHub (issue 13) -----------------------------------------------------------------
POINTER = (
    "Please see {short}",
    "Take a look at this - {url}",
    "Can you check these: {short}",
    "{url}",
    "This is being discussed in {short}, please follow there.",
)
MODERN_CLOSING = (
    "same with {short}",
    "dups with {short}",
    "Duplicate with {short}",
    "Consolidating to tracking issue {short}.",
    "Already reported in {short}.",
    "Isn't this a duplicate of {short}? If not, please re-open.",
)
QUESTION = ("Is this the same as {short}?", "Is this the same issue as {url}?")
QUESTION_YES = ("Yes, it's a duplicate.", "Yes, closing as duplicate.", "Yes, duplicate.")
BOT_CLOSE = (
    "This issue has been closed as a duplicate of {short}. Please follow that issue for updates.",
    # a declarative template: the bot says what is so, then closes with state_reason duplicate
    "This issue is a duplicate of {short}. Please refer to that issue for updates and add any "
    "new details there.",
)
WITHDRAWN = (
    "Not actually a duplicate, reopening.",
    "Reopening: on a closer look this is a different problem.",
)
RELABEL_BOT = "label-sweeper[bot]"
BOT_SUGGEST = (
    "Potential duplicates:\n- {short}",
    "Consider closing this issue as a duplicate of {short} (automated analysis).",
)
FORM_FIELD = "### Possible duplicates\n\nDuplicate of {short}?\n\n### Version\n\nlatest"
TRIAGE_BOT = "triage-helper[bot]"


class _Draft(Protocol):
    def comment(self, t: float, who: Any, body: str) -> None: ...


class _Builder(Protocol):
    rng: random.Random

    def commenter(self) -> Any: ...
    def member(self) -> Any: ...
    def later(self, t: float, days: float) -> float: ...


def label_pointer(b: _Builder, draft: _Draft, ref: Ref, t: float, closer: Any) -> float:
    """A maintainer points at the canonical without a word about duplicates; the duplicate
    label (added by the generator for this shape) says what the pointer means."""
    draft.comment(t, closer, pick(b.rng, POINTER, ref))
    return t


def modern_phrase(b: _Builder, draft: _Draft, ref: Ref, t: float, closer: Any) -> float:
    draft.comment(t, closer, pick(b.rng, MODERN_CLOSING, ref))
    return t


def question_confirmed(b: _Builder, draft: _Draft, ref: Ref, t: float, closer: Any) -> float:
    draft.comment(t, b.commenter(), pick(b.rng, QUESTION, ref))
    t = b.later(t, 1)
    draft.comment(t, closer, b.rng.choice(QUESTION_YES))
    return t


def bot_closed(b: _Builder, draft: _Draft, ref: Ref, t: float, closer: Any) -> float:
    """A triage bot closes the issue as a duplicate (`closer` is the bot): it acts for the
    maintainers."""
    draft.comment(t, closer, pick(b.rng, BOT_CLOSE, ref))
    return t


def bot_person() -> Any:
    from issues_sts.sandbox.worlds.render import Person  # the renderer's account type

    return Person(TRIAGE_BOT, 41_898_282, "NONE", "Bot")


def sweeper_person() -> Any:
    from issues_sts.sandbox.worlds.render import Person

    return Person(RELABEL_BOT, 41_898_283, "NONE", "Bot")


def bot_suggestion(b: _Builder, draft: _Draft, ref: Ref, t: float) -> None:
    """A bot's automated "potential duplicates" comment nobody acts on: a hard negative."""
    draft.comment(t, bot_person(), pick(b.rng, BOT_SUGGEST, ref))


def relabelled(b: _Builder, draft: _Draft, ref: Ref, t: float, closer: Any) -> float:
    """A maintainer points at the canonical and labels the issue a duplicate (the generator
    adds the label at the close); months later the repository relabels, a sweep removes the
    label, and only the label's history says what the pointer meant."""
    draft.comment(t, closer, pick(b.rng, POINTER, ref))
    return t


def form_field(ref: Ref) -> str:
    """An issue form's "possible duplicates" field, filled in by the reporter: not a claim."""
    return render(FORM_FIELD, ref)
