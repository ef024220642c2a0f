"""What a thread's posts and events say about one target: the `Statement` every phase of the
reading passes on, and the small helpers the phases share."""

from __future__ import annotations

from dataclasses import dataclass

from issues_sts.evidence.patterns import (
    Ref,
)
from issues_sts.links.model import (
    Event,
    LinkConfig,
    Post,
    Thread,
)
from issues_sts.links.scoring import (
    Scored,
    parse_time,
)

MARKED = frozenset({"marked_as_duplicate", "markedasduplicateevent"})
UNMARKED = frozenset({"unmarked_as_duplicate", "unmarkedasduplicateevent"})

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


def normalise(ref: Ref, thread: Thread, cfg: LinkConfig) -> Key:
    aliases = {old.lower(): new for old, new in cfg.repo_aliases}
    repo = aliases.get(ref.repo.lower(), ref.repo)
    if repo.lower() == thread.repo.lower():
        repo = thread.repo
    return repo, ref.number


def withdrawals(post: Post, index: int, keys: list[Key], has_standing: bool) -> list[Statement]:
    """A reply that takes earlier claims back: one 'unknown' statement per withdrawn target."""
    return [
        Statement.said(post, key, "unknown", (index, -1), positive=False, standing=has_standing)
        for key in keys
    ]


def last_about(statements: list[Statement], key: Key) -> Statement:
    return [st for st in statements if st.key == key][-1]


def last_positive(statements: list[Statement], key: Key) -> Statement:
    return [st for st in statements if st.key == key and st.positive][-1]


def own_claims(statements: list[Statement], post: Post) -> list[Key]:
    return list(
        dict.fromkeys(
            st.key for st in statements if st.positive and post.author and st.author == post.author
        )
    )


def after_final_close(thread: Thread, post: Post) -> bool:
    closed = parse_time(thread.closed_at)
    when = parse_time(post.created_at)
    return thread.state == "closed" and closed is not None and when is not None and when > closed
