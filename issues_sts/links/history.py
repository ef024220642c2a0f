"""What an issue's timeline says beyond its final state: who closed it, which duplicate labels
it carried, and whether a duplicate close was taken back.

Today's repositories keep much of their duplicate evidence in events, not in the issue a list
page shows:
- REST issue lists carry no `closed_by`: the closer is the actor of the last `closed` event
  (a triage bot closing as a duplicate acts for the maintainers; one that only comments does
  not);
- a duplicate label may be gone from the issue (a repository relabelled, a bot swept labels),
  yet it was put there: a label seen in the history counts as a label;
- a maintainer who closed an issue as a duplicate and labelled it may take that back: the label
  removed together with a reopen ("not actually a duplicate") withdraws what was said before;
- a `MarkedAsDuplicateEvent` shows on the canonical's timeline too, naming the other issue as
  its `duplicate`: read with its direction, it is evidence for that issue, never for the
  canonical.
Pure functions over a thread's events (`model.Event`), oldest first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from issues_sts.links.model import Event
from issues_sts.links.scoring import parse_time

# A label removed within this long of a reopen was removed with it (one maintainer's act).
WITHDRAW_WINDOW_SECONDS = 3600.0


@dataclass(frozen=True)
class History:
    """The facts a thread takes from its timeline."""

    closed_by: str | None  # the last close's actor (REST login), when events name one
    labels: tuple[str, ...]  # current labels plus duplicate labels the history shows
    withdrawn_at: str | None  # a duplicate label removed together with a reopen, the later time


def read_history(
    events: Iterable[Event],
    labels: tuple[str, ...],
    closed_by: str | None,
    is_duplicate_label: Callable[[str], bool],
) -> History:
    ordered = sorted(events, key=lambda e: e.created_at)
    closes = [e for e in ordered if e.event == "closed" and e.actor]
    closer = closed_by or (closes[-1].actor if closes else None)
    reopens = [parse_time(e.created_at) for e in ordered if e.event == "reopened"]
    withdrawn: str | None = None
    seen: list[str] = []
    for event in ordered:
        name = event.label or ""
        if event.event not in ("labeled", "unlabeled") or not is_duplicate_label(name):
            continue
        if event.event == "labeled":
            seen.append(name)
            continue
        at = parse_time(event.created_at)
        near = [
            r
            for r in reopens
            if at and r and abs((r - at).total_seconds()) <= WITHDRAW_WINDOW_SECONDS
        ]
        if near:
            later = max([at, *near]) if at else near[-1]
            withdrawn = later.strftime("%Y-%m-%dT%H:%M:%SZ") if later else event.created_at
            seen = [s for s in seen if s != name]
    kept = tuple(dict.fromkeys([*labels, *seen]))
    if withdrawn is not None:  # a label put back after the withdrawal counts again
        again = {
            e.label
            for e in ordered
            if e.event == "labeled" and e.created_at > withdrawn and e.label
        }
        kept = tuple(
            name for name in kept if not is_duplicate_label(name) or name in again or name in labels
        )
    return History(closer, kept, withdrawn)


def about(event: Event, names: frozenset[str], number: int) -> bool:
    """Is this event about the issue whose timeline showed it (`names`: the lower-case names its
    repository goes by)? A mark seen on the canonical's timeline is about its `duplicate`."""
    if event.duplicate_number is None:
        return True
    same_repo = event.duplicate_repo is None or event.duplicate_repo.lower() in names
    return same_repo and event.duplicate_number == number
