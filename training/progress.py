"""Progress of training and MLM pretraining: steps, loss, throughput and ETA.

In a terminal a rich bar; anywhere else (`train ... > train.log 2>&1`, nohup, a scheduler),
where a bar draws nothing until the end, a timestamped line when the run starts, at least
every `every` seconds while it runs (a heartbeat thread keeps them coming through a long
step, an evaluation or a checkpoint) and when it ends.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

console = Console(stderr=True)

#: a line at least this often in a log (train's --progress-every)
PROGRESS_EVERY = 30.0


def warning(text: str) -> None:
    """One line on stderr that a run's user must see (a setting the run had to change)."""
    console.print(f"warning: {text}", markup=False, highlight=False, soft_wrap=True)


def note(text: str) -> None:
    """A timestamped line in a log (stderr not a terminal), where nothing else would show
    that the run is alive; a terminal has its bar instead."""
    if not console.is_terminal:
        _stamped(text)


def stamped_or_plain(text: str) -> None:
    """A line every run's user must see (it resumed): timestamped in a log like the others."""
    if console.is_terminal:
        console.print(text, markup=False, highlight=False, soft_wrap=True)
    else:
        _stamped(text)


def _stamped(text: str) -> None:
    stamp = time.strftime("%H:%M:%S")
    console.print(f"[{stamp}] {text}", markup=False, highlight=False, soft_wrap=True)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class Loading:
    """Before a run's first step (torch, the pairs and the model load: a minute on a busy
    machine), a line in a log at least every `every` seconds; `TrainProgress` ends it."""

    current: Loading | None = None

    def __init__(self, label: str, every: float = PROGRESS_EVERY, enabled: bool = True) -> None:
        self.label, self.every = label, every
        self.enabled = enabled and not console.is_terminal
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Loading:
        if self.enabled:
            Loading.current = self
            # no line at once: a bad option's error stays the only line on stderr
            self._thread = threading.Thread(target=self._beating, name="loading", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        Loading.current = None

    def _beating(self) -> None:
        started = time.monotonic()
        while not self._stop.wait(self.every):
            _stamped(
                f"{self.label}: loading torch, the pairs and the model "
                f"({time.monotonic() - started:.0f} s)"
            )


class TrainProgress:
    """Context manager; does nothing when disabled (other DDP ranks, --quiet)."""

    def __init__(
        self,
        total: int,
        completed: int = 0,
        enabled: bool = True,
        *,
        label: str = "train",
        unit: str = "pairs",
        every: float = PROGRESS_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.lines = enabled and not console.is_terminal
        self.label, self.unit, self.every, self.clock = label, unit, every, clock
        self.total, self.step, self.first = total, completed, completed
        self.loss, self.rate = "-", "-"
        self._started = clock()
        self._last = float("-inf")
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None
        self._progress = Progress(
            TextColumn(f"[bold]{label}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("loss {task.fields[loss]}"),
            TextColumn(f"{{task.fields[rate]}} {unit}/s"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
            disable=not enabled or self.lines,
        )
        # "-" until the first step of this run: no loss or rate is known before it
        self._task = self._progress.add_task(
            "train", total=total, completed=completed, loss="-", rate="-"
        )

    def __enter__(self) -> TrainProgress:
        if Loading.current is not None:  # the run is loaded: its own lines take over
            Loading.current.stop()
        self._progress.start()
        if self.lines:
            self._started = self.clock()
            self._line()
            self._beat = threading.Thread(target=self._beating, name="train-progress", daemon=True)
            self._beat.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._progress.stop()
        self._stop.set()
        if self._beat is not None:
            self._beat.join(timeout=5)
            self._line()

    def advance(self, loss: float, rate: float) -> None:
        self._progress.update(self._task, advance=1, loss=f"{loss:.4f}", rate=f"{rate:.1f}")
        with self._lock:
            self.step += 1
            self.loss, self.rate = f"{loss:.4f}", f"{rate:.1f}"
        if self.lines and self.clock() - self._last >= 0.95 * self.every:
            self._line()

    def _beating(self) -> None:
        # wakes a few times per period, so a line is never later than `every` after the last
        while not self._stop.wait(min(self.every / 4, 5.0)):
            if self.clock() - self._last >= 0.95 * self.every:
                self._line()

    def _line(self) -> None:
        with self._lock:
            self._last = self.clock()
            _stamped(self.text())

    def text(self) -> str:
        """`train step 120/400 loss 0.4321 38.2 pairs/s ETA 6 min`, ETA from this run's pace."""
        done = self.step - self.first
        left = self.total - self.step
        if done > 0 and left > 0:
            eta = f"ETA {_duration((self.clock() - self._started) / done * left)}"
        else:
            eta = "ETA -" if left > 0 else "done"
        return (
            f"{self.label} step {self.step}/{self.total} loss {self.loss} "
            f"{self.rate} {self.unit}/s {eta}"
        )
