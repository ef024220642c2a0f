"""What a repository's sync has left to ask, read from the store between its phases.

Each function is one pass over what the store holds for a repository: the threads and
timelines not stored for an issue's current `updated_at`, the threads to read again over REST,
the duplicate candidates, and the numbers the evidence names that no list returned. The sync
flow (`sync.py`) turns each answer into chains.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from issues_sts.crawl.candidates import (
    Candidate,
    has_duplicate_wording,
    maybe_old_names,
    rank_candidates,
    referenced_numbers,
    says_duplicate_itself,
)
from issues_sts.crawl.resolve import OLD_NAME
from issues_sts.crawl.threads import Want, want
from issues_sts.evidence import KEYWORD_LINE
from issues_sts.store import Store


@dataclass
class CommentEvidence:
    """What one pass over a repository's stored comments found."""

    worded: set[int] = field(default_factory=set)  # issues with duplicate wording
    named: set[int] = field(default_factory=set)  # the numbers such comments point at
    keyword: set[int] = field(default_factory=set)  # closed with GitHub's "Duplicate of"
    # repositories such comments link to that may be this one under an earlier name
    maybe_old: set[str] = field(default_factory=set)


def comment_evidence(store: Store, repo: str, current: str | None = None) -> CommentEvidence:
    """One pass over the stored comments of `repo` (living at `current` now)."""
    found = CommentEvidence()
    names = (repo, current or repo)
    for number, body in store.comment_bodies(repo):
        if has_duplicate_wording(body):
            found.worded.add(number)
            found.named |= referenced_numbers(body, repo)
            found.maybe_old |= maybe_old_names(body, names)
            if KEYWORD_LINE.search(body):
                found.keyword.add(number)
    return found


def old_names_to_ask(store: Store, repo: str, maybe_old: set[str], limit: int) -> list[str]:
    """The names the duplicate wording links to that may be this repository's old ones and that
    no crawl into this store asked GitHub about yet (each is asked once: a repository's old name
    stays its old name); at most `limit`."""
    asked = store.checkpoint_watermarks(repo, OLD_NAME)
    # a repository the store holds (crawled, or a rename already known) is no one's old name
    known = {name.lower() for name in store.repo_states()}
    return sorted(
        n for n in maybe_old if f"{OLD_NAME}{n.lower()}" not in asked and n.lower() not in known
    )[:limit]


def closed_duplicates(store: Store, repo: str, open_numbers: set[int]) -> set[int]:
    """Closed issues GitHub itself calls duplicates (a duplicate label, `state_reason`)."""
    return {
        n
        for n, reason, _, labels in store.issue_evidence(repo)
        if n not in open_numbers and says_duplicate_itself(json.loads(labels), reason)
    }


def candidates(
    store: Store, repo: str, worded: set[int], limit: int
) -> tuple[list[Candidate], list[tuple[int, str | None]]]:
    """All candidates (ranked, at most `limit`), and those whose timeline is not stored for
    their current `updated_at`."""
    ranked = rank_candidates(store.issue_evidence(repo), worded, limit)
    stored = store.checkpoint_watermarks(repo, "timeline:")
    todo = [
        (c.number, c.updated_at)
        for c in ranked
        if stored.get(f"timeline:{c.number}", "\0") != c.updated_at
    ]
    return ranked, todo


def threads_to_check(store: Store, repo: str) -> list[tuple[int, str | None]]:
    """Threads to read again over REST: those with a gap, those whose stored comments
    fall short of the issue's count (unless already read so at its current `updated_at`:
    GitHub counts deleted and hidden comments it no longer lists), and those with more
    stored than counted (comments deleted since, which a REST listing never says; once per
    `updated_at` too)."""
    updated = {n: u for n, u, _ in store.issue_threads(repo)}
    verified = store.checkpoint_watermarks(repo, "verified:")
    gaps = {g.number for g in store.gaps(repo)}
    short = {n for n, _, _ in store.short_threads(repo)}
    long = set(store.long_threads(repo))
    return [
        (n, updated.get(n))
        for n in sorted(gaps | short | long)
        if n in gaps or verified.get(f"verified:{n}", "\0") != updated.get(n)
    ]


def thread_todo(store: Store, repo: str) -> list[Want]:
    """Threads (and closed issues' timelines) not stored for their current `updated_at`
    (a closed issue's timeline also when a mark read on another issue sent the crawl back
    to it: `chains.other_sides`)."""
    stored = store.checkpoint_watermarks(repo, "thread:")
    timelines = store.checkpoint_watermarks(repo, "timeline:")
    todo = []
    for n, updated, count, state, text, labels, reason in store.thread_facts(repo):
        if stored.get(f"thread:{n}", "\0") == updated and (
            state != "closed" or timelines.get(f"timeline:{n}", "\0") == updated
        ):
            continue
        wanted = want(
            n,
            updated,
            count or 0,
            closed=state == "closed",
            text=text,
            labels=json.loads(labels or "[]"),
            state_reason=reason,
        )
        if wanted is not None:
            todo.append(wanted)
    return todo


def named_missing(store: Store, repo: str, named: set[int], limit: int) -> list[int]:
    """Numbers the duplicate evidence names (comment references, events' canonicals in this
    repository) that the lists did not return and the store does not know; at most `limit`
    (`max_gap_checks`). Unnamed gaps are never probed: they cannot become a link."""
    known = store.known_numbers(repo)
    frame = store.events_frame()
    same = frame.filter(
        (frame["repo"] == repo) & (frame["canonical_repo"].str.to_lowercase() == repo.lower())
    )
    wanted = (named | set(same["canonical_number"].drop_nulls().to_list())) - known
    return sorted(n for n in wanted if n > 0)[:limit]
