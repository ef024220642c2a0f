"""What only the store knows about a link's ends: transfers, pull requests, presence.

Applied after the pure per-thread reading. The thread's canonical link can be excluded
here (its target is a pull request, or was never crawled); then the best other candidate
of that thread that passes these checks takes its place, so one missing target does not
cost a thread its positive when the comment named two.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

import polars as pl

from issues_sts.links.model import DuplicateLink

Key = tuple[str, int]
_MAX_REDIRECTS = 10


@dataclass(frozen=True)
class Known:
    repo: str  # the store's spelling
    is_pull_request: bool
    tombstone: str | None


class StoreIndex:
    """Issues, pull requests and redirects of one store, looked up case-insensitively."""

    def __init__(self, issues: pl.DataFrame, redirects: pl.DataFrame) -> None:
        self.items: dict[tuple[str, int], Known] = {
            (repo.lower(), number): Known(repo, bool(pr), tomb)
            for repo, number, pr, tomb in issues.select(
                "repo", "number", "is_pull_request", "tombstone"
            ).iter_rows()
        }
        self.redirects: dict[tuple[str, int], Key] = {
            (repo.lower(), number): (to_repo, to_number)
            for repo, number, to_repo, to_number in redirects.iter_rows()
        }
        self.repos = {key[0] for key in self.items}

    def follow(self, key: Key) -> Key:
        """Where a transferred issue lives now (chains followed, loops cut)."""
        seen = 0
        while (key[0].lower(), key[1]) in self.redirects and seen < _MAX_REDIRECTS:
            key = self.redirects[(key[0].lower(), key[1])]
            seen += 1
        known = self.items.get((key[0].lower(), key[1]))
        return (known.repo, key[1]) if known else key

    def get(self, key: Key) -> Known | None:
        return self.items.get((key[0].lower(), key[1]))


def _store_reason(
    link: DuplicateLink, source: Known | None, index: StoreIndex, counters: Counter[str]
) -> str | None:
    if source is not None and source.is_pull_request:
        return "source_is_pull_request"
    target = index.get((link.target_repo, link.target_number))
    if target is None or target.tombstone is not None:
        crawled = link.target_repo.lower() in index.repos
        counters["target_missing:" + ("deleted_or_unseen" if crawled else "repo_not_crawled")] += 1
        return "target_missing"
    if target.is_pull_request:
        return "target_is_pull_request"
    return None


def apply_store_facts(
    links: list[DuplicateLink], index: StoreIndex, counters: Counter[str]
) -> tuple[list[DuplicateLink], list[Key]]:
    """Resolve redirects and exclude by store facts; returns the links (self-links after
    a transfer dropped) and, per link, the target as the comment stated it."""
    out: list[DuplicateLink] = []
    stated: list[Key] = []
    for link in links:
        target = index.follow((link.target_repo, link.target_number))
        if target != (link.target_repo, link.target_number):
            counters["target_redirected"] += 1
        if target == (link.repo, link.number):
            counters["dropped:self_link_after_redirect"] += 1
            continue
        stated.append((link.target_repo, link.target_number))
        out.append(replace(link, target_repo=target[0], target_number=target[1]))
    return _promote(out, index, counters), stated


def _promote(
    links: list[DuplicateLink], index: StoreIndex, counters: Counter[str]
) -> list[DuplicateLink]:
    """Per source: exclude by store facts; when the canonical falls, promote the best
    `not_canonical` candidate that passes."""
    out = list(links)
    by_source: dict[Key, list[int]] = {}
    for i, link in enumerate(out):
        by_source.setdefault((link.repo, link.number), []).append(i)
    for (repo, number), positions in by_source.items():
        source = index.get((repo, number))
        reasons = {i: _store_reason(out[i], source, index, Counter()) for i in positions}
        canonical = [i for i in positions if out[i].excluded_reason is None]
        if canonical and reasons[canonical[0]] is not None:
            spare = [
                i
                for i in positions
                if out[i].excluded_reason == "not_canonical" and reasons[i] is None
            ]
            if spare:
                best = max(spare, key=lambda i: (out[i].confidence, out[i].created_at))
                out[best] = replace(out[best], excluded_reason=None)
                counters["canonical_promoted"] += 1
        for i in positions:
            if out[i].excluded_reason is None and reasons[i] is not None:
                _store_reason(out[i], source, index, counters)  # count the sub-reason once
                out[i] = replace(out[i], excluded_reason=reasons[i])
    return out
