"""Stop requests (Ctrl-C, SIGTERM, SIGHUP) taken at safe points of a loop.

Python runs a signal's handler in the main thread between two bytecodes, wherever that thread
is. The command's handlers raise (KeyboardInterrupt, `SignalInterrupt`), and an exception raised
there can leave a lock half taken: `concurrent.futures.wait` takes every future's lock in a
Python loop, and a stop between two of them keeps the ones already taken held by the main
thread for good. The worker that finishes such a future then blocks on its lock, and the
interpreter's exit, which joins the pool's workers, never ends: a crawl stopped by SIGHUP while
it waited for the rate limit hung once in a few thousand runs of its test, on a busy machine.

Inside `deferred_stops()` a stop signal is only noted; `raise_if_stopped()`, called where the
loop holds no lock, runs the handler that was installed before, so the command stops as it
always did (same exception, same exit status), a moment later. Outside the main thread, or
where a handler is not Python's (ignored, as under `nohup`, or the default), nothing changes.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

Handler = Callable[[int, FrameType | None], Any]

STOP_SIGNALS: tuple[signal.Signals, ...] = tuple(
    s for s in (getattr(signal, name, None) for name in ("SIGINT", "SIGTERM", "SIGHUP")) if s
)


class _Deferred:
    def __init__(self) -> None:
        self.previous: dict[int, Handler] = {}
        self.pending: list[tuple[int, FrameType | None]] = []

    def note(self, signum: int, frame: FrameType | None) -> None:
        self.pending.append((signum, frame))

    def deliver(self) -> None:
        """Run the first noted stop's own handler (it raises, as it would have at once)."""
        if self.pending:
            signum, frame = self.pending[0]
            self.pending.clear()
            self.previous[signum](signum, frame)


_active: list[_Deferred] = []  # the one deferral under way (main thread only)


@contextmanager
def deferred_stops() -> Iterator[None]:
    """Note stop signals instead of raising at once; `raise_if_stopped` raises them. A stop
    still noted when the block ends is raised then (after the handlers are back)."""
    if threading.current_thread() is not threading.main_thread() or _active:
        yield  # nested, or a worker thread (which cannot set handlers): as before
        return
    state = _Deferred()
    for signum in STOP_SIGNALS:
        handler = signal.getsignal(signum)
        if callable(handler):
            state.previous[signum] = handler
            signal.signal(signum, state.note)
    _active.append(state)
    try:
        yield
    finally:
        _active.clear()
        for number, previous in state.previous.items():
            signal.signal(number, previous)
        state.deliver()


def stop_requested() -> bool:
    """Has a stop been noted and not yet raised? (Lock-free: a wait that runs on the main thread
    itself polls it, since the handler that would end it is held back.)"""
    return bool(_active and _active[0].pending)


def raise_if_stopped() -> None:
    """Raise the stop noted since the last call, if any (a no-op outside `deferred_stops`)."""
    if _active:
        _active[0].deliver()
