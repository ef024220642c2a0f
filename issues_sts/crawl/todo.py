"""What a repository's sync has left to ask, read from the store between its phases.

Each function is one pass over what the store holds for a repository: the threads and
timelines not stored for an issue's current `updated_at`, the threads to read again over REST,
the duplicate candidates, and the numbers the evidence names that no list returned. The sync
flow (`sync.py`) turns each answer into chains.
"""

from __future__ import annotations

import json

from issues_sts.crawl.candidates import (
    Candidate,
    has_duplicate_wording,
    rank_candidates,
    referenced_numbers,
    says_duplicate_itself,
)
from issues_sts.crawl.threads import Want, want
from issues_sts.evidence import KEYWORD_LINE
from issues_sts.store import Store


def comment_evidence(store: Store, repo: str) -> tuple[set[int], set[int], set[int]]:
    """One pass over the stored comments: issues with duplicate wording, the numbers such
    comments point at, and issues closed with GitHub's "Duplicate of" keyword."""
    worded: set[int] = set()
    named: set[int] = set()
    keyword: set[int] = set()
    for number, body in store.comment_bodies(repo):
        if has_duplicate_wording(body):
            worded.add(number)
            named |= referenced_numbers(body, repo)
            if KEYWORD_LINE.search(body):
                keyword.add(number)
    return worded, named, keyword


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
