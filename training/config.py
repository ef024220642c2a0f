"""Frozen configuration objects, built once at the CLI/API boundary and saved next to outputs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from training.losses import LossConfig

Precision = Literal["auto", "fp32", "bf16"]


class _Resume:
    """Marks a `TrainConfig` field that must match for a checkpoint to be resumed under a new
    command line (the others, such as `eval_steps` or `device`, may change between runs)."""

    def __repr__(self) -> str:
        return "RESUME"


RESUME = _Resume()


class TrainConfig(BaseModel):
    """Everything a training run depends on (paper-era defaults: lr 1e-5, warmup 100,
    batch 32, max length 512, one epoch, AnglE weights 1/1/1)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    data: Annotated[str, RESUME] = Field(
        description="built dataset folder, save_to_disk folder, or Hub id"
    )
    output: Path
    #: Hub id, local folder, `ran-*` preset or saved encoder; None = offline MiniLM
    model: Annotated[str | None, RESUME] = None
    pooling: Annotated[str | None, RESUME] = None
    max_length: Annotated[int, RESUME] = Field(default=512, gt=1)
    train_split: str = "train"
    valid_split: str | None = "valid"
    batch_size: Annotated[int, RESUME] = Field(
        default=32, ge=2, description="pairs per optimizer micro-batch"
    )
    grad_accumulation: Annotated[int, RESUME] = Field(default=1, ge=1)
    epochs: int = Field(default=1, ge=1)
    max_steps: int | None = Field(default=None, ge=1, description="cap on optimizer steps")
    stop_after_steps: int | None = Field(
        default=None, ge=1, description="checkpoint and stop after this many steps; rerun to resume"
    )
    learning_rate: Annotated[float, RESUME] = Field(default=1e-5, gt=0)
    warmup_steps: Annotated[int, RESUME] = Field(default=100, ge=0)
    weight_decay: float = Field(default=0.0, ge=0)
    max_grad_norm: float | None = Field(default=1.0, gt=0)
    precision: Precision = "auto"
    gradient_checkpointing: bool = False
    attention_dropout: float | None = Field(default=None, ge=0, le=1)
    seed: Annotated[int, RESUME] = 42
    eval_steps: int | None = Field(default=None, ge=1, description="None: evaluate at epoch ends")
    save_steps: int | None = Field(default=None, ge=1, description="None: with every evaluation")
    logging_steps: int = Field(default=10, ge=1)
    eval_batch_size: int = Field(default=64, ge=1)
    max_train_pairs: Annotated[int | None, RESUME] = Field(default=None, ge=2)
    max_eval_pairs: int | None = Field(default=None, ge=2)
    resume: bool = True
    device: str | None = None
    progress: bool = True
    loss: Annotated[LossConfig, RESUME] = LossConfig()


class TrainResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    output: Path
    #: the model to use: the best checkpoint on `valid`, else the last
    model_dir: Path
    steps: int
    #: the steps the whole run will take (steps < total_steps: stopped early, rerun to resume)
    total_steps: int = 0
    #: stopped by Ctrl-C or SIGTERM after checkpointing `steps` steps
    interrupted: bool = False
    #: the signal that stopped it (SIGINT 2, SIGTERM 15; 0 when not interrupted)
    stop_signal: int = 0
    #: the run had finished before this call: nothing was trained (a rerun of the command)
    already_complete: bool = False
    best_metric: float | None
    valid: dict[str, float] = {}
    train_seconds: float = 0.0
    pairs_per_second: float = 0.0


#: settings that must match for a checkpoint to be resumed (the fields marked RESUME)
RESUME_KEYS: tuple[str, ...] = tuple(
    name for name, info in TrainConfig.model_fields.items() if RESUME in info.metadata
)
