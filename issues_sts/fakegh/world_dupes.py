"""How people say "duplicate" (and "not a duplicate") on GitHub, phrased many ways."""

from __future__ import annotations

import random
from dataclasses import dataclass


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
    "Looks like the same root cause as {short}. Closing as a duplicate; let's keep the discussion there.",
    "dup of {short}",
    "Closing in favor of {short} (same issue).",
    "This is tracked in {short}, closing this one as duplicate.",
    "DUPLICATE OF {short}",
    "Hi! This is the same problem as {short}. I'll close this one as a duplicate, please add any extra details there.",
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
CONFIRM = ("Yes, closing as duplicate.", "Agreed, duplicate.", "Right, let's track it there. Closing.")
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
NO_NUMBER = ("Closing as duplicate.", "Duplicate, closing.", "This has been reported before, closing.")


def render(template: str, ref: Ref) -> str:
    return template.format(
        short=ref.short, url=ref.url, repo=ref.repo, number=ref.number,
        url_comment=f"{ref.url}#issuecomment-{ref.comment_id or ref.number * 1000 + 7}",
    )


def closing(rng: random.Random, ref: Ref) -> str:
    pool = CLOSING if ref.repo == ref.here else CLOSING_CROSS
    return render(rng.choice(pool), ref)


def pick(rng: random.Random, pool: tuple[str, ...], ref: Ref) -> str:
    return render(rng.choice(pool), ref)
