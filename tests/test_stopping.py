"""`stopping`: inside a deferral a stop signal is noted, then raised at the loop's safe point by
the handler that was there before (the crawl's pump runs under one: a stop raised inside
`concurrent.futures.wait`'s taking of the futures' locks once hung a crawl's exit)."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator

import pytest

from issues_sts import stopping


class Stop(Exception):
    pass


def _raise(signum: int, frame: object) -> None:
    raise Stop(signum)


@pytest.fixture
def raising_sigterm() -> Iterator[None]:
    before = signal.signal(signal.SIGTERM, _raise)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def test_a_stop_is_noted_and_raised_at_the_safe_point(raising_sigterm: None) -> None:
    reached = False
    with pytest.raises(Stop), stopping.deferred_stops():
        os.kill(os.getpid(), signal.SIGTERM)
        reached = True  # not raised in the middle of whatever ran
        assert stopping.stop_requested()
        stopping.raise_if_stopped()
    assert reached and not stopping.stop_requested()
    assert signal.getsignal(signal.SIGTERM) is _raise  # the handler is back
    with pytest.raises(Stop):  # and raises at once again
        os.kill(os.getpid(), signal.SIGTERM)


def test_a_stop_noted_after_the_last_check_is_raised_when_the_block_ends(
    raising_sigterm: None,
) -> None:
    with pytest.raises(Stop), stopping.deferred_stops():
        stopping.raise_if_stopped()  # nothing yet: no-op
        os.kill(os.getpid(), signal.SIGTERM)
    assert signal.getsignal(signal.SIGTERM) is _raise


def test_without_a_stop_nothing_is_raised_and_outside_a_deferral_the_check_is_a_no_op(
    raising_sigterm: None,
) -> None:
    with stopping.deferred_stops():
        stopping.raise_if_stopped()
    stopping.raise_if_stopped()
    assert not stopping.stop_requested()


def test_an_ignored_signal_stays_ignored() -> None:
    """`nohup` ignores SIGHUP so that the command outlives its terminal: a deferral keeps it so."""
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with stopping.deferred_stops():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGHUP)
            stopping.raise_if_stopped()
    finally:
        signal.signal(signal.SIGHUP, before)


def test_a_worker_thread_changes_nothing(raising_sigterm: None) -> None:
    seen: list[object] = []

    def work() -> None:
        with stopping.deferred_stops():
            seen.append(signal.getsignal(signal.SIGTERM))
            stopping.raise_if_stopped()

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert seen == [_raise]


class _Slow:
    """One step that waits until the test releases it."""

    def __init__(self, release: threading.Event, landed: list[object]) -> None:
        self.release, self.landed, self.sent = release, landed, False

    def next_step(self) -> object:
        if self.sent:
            return None
        self.sent = True
        return lambda client: self.release.wait(10)

    def commit(self, result: object) -> None:
        self.landed.append(result)


def test_a_stop_inside_waits_taking_of_the_futures_locks_leaves_none_held(
    raising_sigterm: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hang itself, made certain: the signal arrives while `concurrent.futures.wait` has
    taken the first future's lock and not the others'. Raised there, that lock stays with the
    main thread, its worker blocks on it when the step ends, and the interpreter's exit (which
    joins the pool's workers) waits for ever. Noted there, the pump raises at its safe point."""
    import concurrent.futures._base as futures_base

    from issues_sts.crawl.pump import pump

    fired: list[bool] = []

    def enter(self: futures_base._AcquireFutures) -> None:  # type: ignore[name-defined]
        futures = list(self.futures)
        for k, future in enumerate(futures):
            future._condition.acquire()
            if k == 0 and len(futures) > 1 and not fired:
                fired.append(True)
                os.kill(os.getpid(), signal.SIGTERM)  # between two of the locks

    monkeypatch.setattr(futures_base._AcquireFutures, "__enter__", enter)
    release, landed = threading.Event(), []  # type: ignore[var-annotated]
    with pytest.raises(Stop):
        pump([_Slow(release, landed) for _ in range(3)], client=None, width=3)  # type: ignore[arg-type]
    assert fired and landed == []  # stopped before any step landed
    release.set()
    workers = [t for t in threading.enumerate() if t.name.startswith("crawl")]
    for t in workers:
        t.join(timeout=5)
    assert not any(t.is_alive() for t in workers), "a worker is stuck on a future's lock"
