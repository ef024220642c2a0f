"""The pump: steps run on workers, commits on the caller's thread, IDLE chains wait their turn."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from issues_sts.crawl.chains import IDLE
from issues_sts.crawl.pump import pump


class Counter:
    """A chain of `n` steps; records the thread each commit ran on."""

    def __init__(self, n: int, log: list[tuple[str, int, str]], name: str) -> None:
        self.left, self.log, self.name = n, log, name
        self.finished = False

    def next_step(self) -> Any:
        if self.left == 0:
            self.finished = True
            return None
        k = self.left
        return lambda client: k

    def commit(self, result: int) -> None:
        self.log.append((self.name, result, threading.current_thread().name))
        self.left -= 1


class Waiter:
    """IDLE until `other` is finished, then one step."""

    def __init__(self, other: Counter, log: list[tuple[str, int, str]]) -> None:
        self.other, self.log, self.done = other, log, False

    def next_step(self) -> Any:
        if self.done:
            return None
        if not self.other.finished and self.other.left:
            return IDLE
        return lambda client: 0

    def commit(self, result: int) -> None:
        self.log.append(("waiter", result, threading.current_thread().name))
        self.done = True


def test_pump_commits_on_the_calling_thread_and_runs_idle_chains_last() -> None:
    log: list[tuple[str, int, str]] = []
    lists = Counter(5, log, "list")
    pump([lists, Waiter(lists, log)], client=None, width=2)  # type: ignore[arg-type]
    assert [name for name, _, _ in log] == ["list"] * 5 + ["waiter"]
    assert {thread for _, _, thread in log} == {threading.current_thread().name}


def test_pump_detects_chains_waiting_forever() -> None:
    class Stuck:
        def next_step(self) -> Any:
            return IDLE

        def commit(self, result: Any) -> None:  # pragma: no cover
            raise AssertionError

    with pytest.raises(RuntimeError, match="wait on each other"):
        pump([Stuck()], client=None, width=2)  # type: ignore[arg-type]


def test_pump_propagates_a_step_failure() -> None:
    class Boom:
        def next_step(self) -> Any:
            def fail(client: Any) -> None:
                raise ValueError("boom")
            return fail

        def commit(self, result: Any) -> None:  # pragma: no cover
            raise AssertionError

    with pytest.raises(ValueError, match="boom"):
        pump([Boom()], client=None, width=2)  # type: ignore[arg-type]
