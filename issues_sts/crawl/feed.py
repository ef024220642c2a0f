"""Duplicate candidates spotted while the lists are still paging, asked about early.

Timeline questions go to another bucket (GraphQL) or wait their turn anyway, so asking them
while the issue and comment lists are still paging fills the time the core bucket spends
waiting for its reset instead of adding a tail after the lists. What the feed misses (a crawl
resumed half-way has not seen the earlier pages) the runner's final pass over the store
catches: every candidate whose timeline is not stored for its current `updated_at`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from issues_sts.crawl.candidates import has_duplicate_wording, says_duplicate_itself
from issues_sts.crawl.chains import IDLE, Chain, ListChain, Step


def _number(comment: dict[str, Any]) -> int | None:
    tail = str(comment.get("issue_url", "")).rstrip("/").rsplit("/", 1)[-1]
    return int(tail) if tail.isdigit() else None


def strong_evidence(issue: dict[str, Any]) -> bool:
    """A duplicate closure or a duplicate label: worth a timeline before any comment is read."""
    return says_duplicate_itself(issue.get("labels") or [], issue.get("state_reason"))


class CandidateFeed:
    """A chain that hands out timeline batches while `lists` run, then ends (IDLE meanwhile)."""

    def __init__(
        self,
        lists: list[ListChain],
        batch: int,
        limit: int,
        make_batch: Callable[[list[tuple[int, str | None]]], Chain],
        read_with_thread: Callable[[dict[str, Any]], bool] = lambda raw: False,
    ) -> None:
        self.lists = lists
        self.batch = batch
        self.limit = limit
        self.make_batch = make_batch
        self.read_with_thread = read_with_thread  # its timeline comes with its thread: skip it
        self.issues: dict[int, str | None] = {}  # non-PR issues seen in this run -> updated_at
        self.worded: set[int] = set()
        self.pending: dict[int, str | None] = {}
        self.asked = 0
        self.current: Chain | None = None

    def offer_issues(self, items: list[dict[str, Any]]) -> None:
        for raw in items:
            if raw.get("pull_request") is not None or self.read_with_thread(raw):
                continue
            number, updated = int(raw["number"]), raw.get("updated_at")
            self.issues[number] = updated
            if strong_evidence(raw) or number in self.worded:
                self.pending[number] = updated

    def offer_comments(self, items: list[dict[str, Any]]) -> None:
        for comment in items:
            number = _number(comment)
            if number is not None and has_duplicate_wording(comment.get("body")):
                self.worded.add(number)
                if number in self.issues:
                    self.pending[number] = self.issues[number]

    def next_step(self) -> Step | None | object:
        if self.current is not None:
            step = self.current.next_step()
            if step is not None:
                return step
            self.current = None
        if all(chain.finished for chain in self.lists):
            return None  # the runner's final pass takes over
        if len(self.pending) < self.batch or self.asked + self.batch > self.limit:
            return IDLE
        numbers = sorted(self.pending)[: self.batch]
        chunk = [(n, self.pending.pop(n)) for n in numbers]
        self.asked += len(chunk)
        self.current = self.make_batch(chunk)
        return self.next_step()

    def commit(self, result: Any) -> None:
        assert self.current is not None
        self.current.commit(result)
