"""Small realistic threads for the link-stage tests."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from issues_sts.links.model import DuplicateLink, Event, Post, Thread

REPO = "acme/widgets"
T0 = datetime(2015, 3, 1, 12, 0, tzinfo=timezone.utc)


def at(minutes: float) -> str:
    return (T0 + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")


def c(author: str, body: str, assoc: str = "NONE", minute: float = 60) -> Post:
    """A comment `minute` minutes after the issue was opened."""
    return Post(
        "comment",
        author,
        assoc,
        body,
        at(minute),
        f"https://github.com/{REPO}/issues/10#issuecomment-{int(minute)}",
    )


def ev(
    event: str,
    target: int | None,
    actor: str = "maint",
    minute: float = 90,
    source: str = "graphql",
    repo: str = REPO,
) -> Event:
    return Event(
        event,
        actor,
        at(minute),
        repo if target is not None else None,
        target,
        source,
        f"https://github.com/{REPO}/issues/10#event-{int(minute)}",
    )


def thread(
    *posts: Post,
    number: int = 10,
    body: str = "It crashes when I click the button.",
    author: str = "reporter",
    state: str = "closed",
    closed_by: str | None = None,
    closed_minute: float | None = None,
    state_reason: str | None = None,
    labels: tuple[str, ...] = (),
    events: tuple[Event, ...] = (),
    is_pr: bool = False,
    title: str = "",
) -> Thread:
    closed_at = (
        at(closed_minute)
        if closed_minute is not None
        else (at(10_000) if state == "closed" else None)
    )
    body_post = Post(
        "body", author, "NONE", body, at(0), f"https://github.com/{REPO}/issues/{number}"
    )
    return Thread(
        repo=REPO,
        number=number,
        is_pull_request=is_pr,
        author=author,
        state=state,
        state_reason=state_reason,
        labels=labels,
        created_at=at(0),
        closed_at=closed_at,
        closed_by=closed_by,
        html_url=f"https://github.com/{REPO}/issues/{number}",
        posts=(body_post, *posts),
        events=events,
        title=title,
    )


def canonical(links: list[DuplicateLink]) -> DuplicateLink | None:
    chosen = [lk for lk in links if lk.excluded_reason is None]
    assert len(chosen) <= 1
    return chosen[0] if chosen else None


def by_target(links: list[DuplicateLink]) -> dict[int, DuplicateLink]:
    return {lk.target_number: lk for lk in links}
