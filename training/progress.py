"""A rich progress bar for training and MLM pretraining: steps, loss and throughput."""

from __future__ import annotations

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


def warning(text: str) -> None:
    """One line on stderr that a run's user must see (a setting the run had to change)."""
    console.print(f"warning: {text}", markup=False, highlight=False, soft_wrap=True)


class TrainProgress:
    """Context manager; does nothing when disabled (other DDP ranks, --no-progress)."""

    def __init__(
        self,
        total: int,
        completed: int = 0,
        enabled: bool = True,
        *,
        label: str = "train",
        unit: str = "pairs",
    ) -> None:
        self.enabled = enabled
        self._progress = Progress(
            TextColumn(f"[bold]{label}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("loss {task.fields[loss]}"),
            TextColumn(f"{{task.fields[rate]}} {unit}/s"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
            disable=not enabled,
        )
        # "-" until the first step of this run: no loss or rate is known before it
        self._task = self._progress.add_task(
            "train", total=total, completed=completed, loss="-", rate="-"
        )

    def __enter__(self) -> TrainProgress:
        self._progress.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._progress.stop()

    def advance(self, loss: float, rate: float) -> None:
        self._progress.update(self._task, advance=1, loss=f"{loss:.4f}", rate=f"{rate:.1f}")
