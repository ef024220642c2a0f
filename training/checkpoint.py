"""Checkpoints: encoder weights (safetensors + config, via `Encoder.save`) plus the trainer
state needed to resume exactly (optimizer, scheduler, RNG, position in the data)."""

from __future__ import annotations

import json
import random
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from issues_sts.errors import TrainingError
from training.models.base import Encoder

STATE_FILE = "trainer_state.pt"
PROGRESS_FILE = "progress.json"


@dataclass
class Progress:
    """Where a run stands; written as JSON next to every checkpoint."""

    step: int = 0
    epoch: int = 0
    #: micro-batches already consumed in `epoch`
    batches_done: int = 0
    pairs_seen: int = 0
    best_metric: float | None = None
    best_step: int | None = None
    train_seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


def rng_state() -> dict[str, Any]:
    state: dict[str, Any] = {
        "python": random.getstate(),
        "numpy": np.random.get_state(),
        "torch": torch.get_rng_state(),
    }
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def restore_rng(state: dict[str, Any]) -> None:
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def save_checkpoint(
    directory: Path,
    encoder: Encoder,
    progress: Progress,
    optimizer: torch.optim.Optimizer | None = None,
    scheduler: Any = None,
    card: str | None = None,
) -> Path:
    """Write atomically: a half-written checkpoint never replaces a good one. `card` is the
    model card (README.md) that goes with the weights."""
    directory = Path(directory)
    staging = directory.with_name(f".{directory.name}.tmp")
    shutil.rmtree(staging, ignore_errors=True)
    encoder.save(staging)
    if card is not None:
        (staging / "README.md").write_text(card)
    (staging / PROGRESS_FILE).write_text(json.dumps(asdict(progress), indent=2) + "\n")
    if optimizer is not None:
        state = {"optimizer": optimizer.state_dict(), "rng": rng_state()}
        if scheduler is not None:
            state["scheduler"] = scheduler.state_dict()
        torch.save(state, staging / STATE_FILE)
    retired = directory.with_name(f".{directory.name}.old")
    shutil.rmtree(retired, ignore_errors=True)
    if directory.exists():
        directory.rename(retired)
    staging.rename(directory)
    shutil.rmtree(retired, ignore_errors=True)
    return directory


def read_progress(directory: Path) -> Progress:
    return Progress(**json.loads((Path(directory) / PROGRESS_FILE).read_text()))


def load_trainer_state(directory: Path) -> dict[str, Any]:
    path = Path(directory) / STATE_FILE
    try:
        # Our own file: optimizer tensors plus numpy/python RNG tuples need full unpickling.
        return torch.load(path, map_location="cpu", weights_only=False)
    except (OSError, RuntimeError, EOFError) as exc:
        raise TrainingError(
            f"cannot read checkpoint state {path}: {exc}",
            hint="delete that checkpoint folder or train with --no-resume",
        ) from exc


def is_resumable(directory: Path) -> bool:
    return (Path(directory) / STATE_FILE).is_file() and (Path(directory) / PROGRESS_FILE).is_file()
