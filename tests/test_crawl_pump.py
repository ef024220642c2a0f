"""The pump: steps run on workers, commits on the caller's thread, IDLE chains wait their turn."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from issues_sts.crawl.chains import IDLE
from issues_sts.crawl.pump import pump, pump_flows


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


class Once:
    """One step that runs `body` on the worker, then records its commit."""

    def __init__(self, name: str, log: list[str], body: Any = None) -> None:
        self.name, self.log, self.body, self.done = name, log, body, False

    def next_step(self) -> Any:
        if self.done:
            return None
        body = self.body
        return lambda client: body() if body else None

    def commit(self, result: Any) -> None:
        self.log.append(self.name)
        self.done = True


def _flow(name: str, log: list[str], first: Any = None) -> Any:
    yield [Once(f"{name}.1a", log, first), Once(f"{name}.1b", log)]
    log.append(f"{name}: between")  # the flow resumes only once its whole phase has committed
    yield [Once(f"{name}.2", log)]


def test_flows_run_at_once_and_each_keeps_its_phase_order() -> None:
    log: list[str] = []
    both = threading.Barrier(
        2, timeout=5
    )  # passes only while both flows' first steps are under way
    ends: list[tuple[str, BaseException | None]] = []
    flows = [(name, _flow(name, log, both.wait)) for name in ("a", "b")]
    pump_flows(
        flows,
        client=None,
        width=4,
        flows_at_once=2,  # type: ignore[arg-type]
        on_end=lambda key, exc, requests: ends.append((key, exc)),
    )
    assert ends and all(exc is None for _, exc in ends) and {k for k, _ in ends} == {"a", "b"}
    for name in ("a", "b"):
        mine = [entry for entry in log if entry.startswith(name)]
        assert mine.index(f"{name}: between") > max(
            mine.index(f"{name}.1a"), mine.index(f"{name}.1b")
        )
        assert mine[-1] == f"{name}.2"


def test_a_failing_flow_ends_alone_and_a_raising_on_end_stops_all() -> None:
    log: list[str] = []

    def boom() -> None:
        raise ValueError("boom")

    ends: dict[str, BaseException | None] = {}
    pump_flows(
        [("bad", _flow("bad", log, boom)), ("good", _flow("good", log))],
        client=None,  # type: ignore[arg-type]
        width=3,
        flows_at_once=2,
        on_end=lambda key, exc, requests: ends.__setitem__(key, exc),
    )
    assert isinstance(ends["bad"], ValueError) and ends["good"] is None
    assert "good.2" in log and "bad.2" not in log

    def stop(key: str, exc: BaseException | None, requests: int) -> None:
        if exc is not None:
            raise RuntimeError(f"stop: {exc}")

    with pytest.raises(RuntimeError, match="stop: boom"):
        pump_flows(
            [("bad", _flow("bad", [], boom))], client=None, width=2, flows_at_once=1, on_end=stop
        )  # type: ignore[arg-type]


def test_flows_open_largest_first_when_a_plan_knows_the_sizes() -> None:
    from issues_sts.crawl.plan import Plan, RepoPlan
    from issues_sts.crawl.runner import largest_first

    repos = ["a/small", "b/big", "c/unknown", "d/middle"]
    plan = Plan(
        [
            RepoPlan(name, items, items, 0, 0, 0, 0.0, 0.0)
            for name, items in (("a/small", 10), ("b/big", 1000), ("d/middle", 100))
        ],
        graphql=True,
    )
    assert largest_first(repos, plan) == ["b/big", "d/middle", "a/small", "c/unknown"]
    assert largest_first(repos, None) == repos
