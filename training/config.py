"""Frozen configuration objects, built once at the CLI/API boundary and saved next to outputs.

The one place training's options are said: a field a command sets carries its option and
the option's help (`Option("--lr", help=...)`), and the commands (`cli/train.py`) declare
their options from these fields (flag, help, default, range).
No torch here, so that `issues-sts --help` can read them without loading it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from issues_sts.config import Option
from issues_sts.errors import ConfigError

Precision = Literal["auto", "fp32", "bf16"]
#: what `evaluate` scores by default, and how many texts it embeds per forward pass
EVAL_SPLIT = "test"
EVAL_BATCH_SIZE = 64


class LossConfig(BaseModel):
    """Weights and temperatures of the three objectives (paper defaults; `training.losses`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    w_cos: Annotated[float, Option("--w-cos", help="Weight of the cosine (CoSENT) objective.")] = (
        Field(default=1.0, ge=0)
    )
    w_ibn: Annotated[
        float, Option("--w-ibn", help="Weight of the in-batch-negative objective.")
    ] = Field(default=1.0, ge=0)
    w_angle: Annotated[float, Option("--w-angle", help="Weight of the angle objective.")] = Field(
        default=1.0, ge=0
    )
    cos_tau: Annotated[float, Option("--cos-tau", help="Temperature of the cosine objective.")] = (
        Field(default=0.05, gt=0)
    )
    ibn_tau: Annotated[
        float, Option("--ibn-tau", help="Temperature of the in-batch-negative objective.")
    ] = Field(default=0.05, gt=0)
    angle_tau: Annotated[
        float, Option("--angle-tau", help="Temperature of the angle objective.")
    ] = Field(default=1.0, gt=0)
    #: treat identical texts in a batch as positives of each other (the paper's ISP detection)
    identical_detection: Annotated[
        bool,
        Option(
            "--identical-detection",
            help="Treat identical texts in a batch as positives (paper: on).",
        ),
    ] = True
    #: a pair whose label is >= this is a positive for the in-batch-negative objective
    #: (the reference truncates labels to int and keeps label 1)
    positive_threshold: float = 1.0
    #: under DDP, rank in-batch negatives against every process's rows, not only local ones
    #: (what one process with the whole batch would compute; off only to save communication)
    gather_across_processes: Annotated[
        bool,
        Option(
            "--gather-negatives", help="DDP: rank in-batch negatives against every process's rows."
        ),
    ] = True


#: named objective settings. `paper`: the paper's Table 2 setting (and angle-emb 0.1.x).
#: `angle-emb-0.6.1`: that release's `AngleLoss()` defaults (cosine_w 0, ibn_w 1,
#: angle_w 0.02, every tau 20, i.e. temperature 1/20) for its pair format 'A'; it drops
#: duplicate texts from batches rather than detecting them, hence no identical detection.
#: `tests/test_losses_angle_emb.py` checks both against `angle_emb` itself.
LOSS_PRESETS: dict[str, LossConfig] = {
    "paper": LossConfig(),
    "angle-emb-0.6.1": LossConfig(
        w_cos=0.0,
        w_ibn=1.0,
        w_angle=0.02,
        cos_tau=0.05,
        ibn_tau=0.05,
        angle_tau=0.05,
        identical_detection=False,
    ),
}
#: the preset `train --loss` names unless told otherwise (TrainConfig's own loss)
DEFAULT_LOSS_PRESET = "paper"


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

    data: Annotated[
        str,
        RESUME,
        Option(
            "--dataset",
            help=(
                "Pairs to use: a folder built by `issues-sts build`, a save_to_disk folder, or a "
                "Hub dataset id such as WhereIsAI/github-issue-similarity (network; HF_ENDPOINT "
                "is honoured)."
            ),
        ),
    ] = Field(description="built dataset folder, save_to_disk folder, or Hub id")
    output: Annotated[
        Path, Option("--out", help="Run folder: checkpoints, metrics; an existing run resumes.")
    ]
    #: Hub id, local folder, `ran-*` preset or saved encoder; None = offline MiniLM
    model: Annotated[
        str | None,
        RESUME,
        Option(
            "--model",
            help=(
                "Backbone or trained model: a Hub id, a local folder, a run folder (its best "
                "checkpoint), ran-base / ran-tiny; default: the offline all-MiniLM-L6-v2."
            ),
        ),
    ] = None
    pooling: Annotated[
        str | None,
        RESUME,
        Option(
            "--pooling",
            help=(
                "cls, cls-avg, avg, max, last or first-last-avg; default: what the backbone's own "
                "sentence-transformers config declares (MiniLM: avg + normalize), else cls (the "
                "paper's)."
            ),
        ),
    ] = None
    max_length: Annotated[
        int,
        RESUME,
        Option("--max-length", help="Tokens per text for training and evaluation (paper: 512)."),
    ] = Field(default=512, gt=1)
    train_split: str = "train"
    valid_split: Annotated[
        str | None,
        Option(
            "--valid-split", help="Split that picks the best checkpoint; '' to skip validation."
        ),
    ] = "valid"
    batch_size: Annotated[
        int, RESUME, Option("--batch-size", help="Pairs per micro-batch (paper: 32).")
    ] = Field(default=32, ge=2, description="pairs per optimizer micro-batch")
    grad_accumulation: Annotated[
        int, RESUME, Option("--grad-accumulation", help="Micro-batches per optimizer step.")
    ] = Field(default=1, ge=1)
    epochs: Annotated[int, Option("--epochs", help="Passes over the training split.")] = Field(
        default=1, ge=1
    )
    max_steps: Annotated[
        int | None, Option("--max-steps", help="Stop after this many optimizer steps in all.")
    ] = Field(default=None, ge=1, description="cap on optimizer steps")
    stop_after_steps: Annotated[
        int | None,
        Option(
            "--stop-after-steps", help="Checkpoint and stop after N more steps (rerun resumes)."
        ),
    ] = Field(
        default=None, ge=1, description="checkpoint and stop after this many steps; rerun to resume"
    )
    learning_rate: Annotated[
        float, RESUME, Option("--lr", help="Peak learning rate (paper: 1e-5).")
    ] = Field(default=1e-5, gt=0)
    warmup_steps: Annotated[
        int, RESUME, Option("--warmup-steps", help="Linear warmup steps before linear decay.")
    ] = Field(default=100, ge=0)
    weight_decay: Annotated[
        float, Option("--weight-decay", help="AdamW weight decay (not on biases and norms).")
    ] = Field(default=0.0, ge=0)
    max_grad_norm: float | None = Field(default=1.0, gt=0)
    precision: Annotated[
        Precision, Option("--precision", help="auto (bf16 on capable GPUs), fp32 or bf16.")
    ] = "auto"
    gradient_checkpointing: Annotated[
        bool,
        Option(
            "--gradient-checkpointing",
            help="Recompute activations in backward: less memory, more time.",
        ),
    ] = False
    attention_dropout: Annotated[
        float | None,
        Option("--attention-dropout", help="Override the backbone's attention dropout."),
    ] = Field(default=None, ge=0, le=1)
    seed: Annotated[
        int, RESUME, Option("--seed", help="Seed of initialisation, batch order and dropout.")
    ] = 42
    eval_steps: Annotated[
        int | None, Option("--eval-steps", help="Validate every N steps (default: at epoch ends).")
    ] = Field(default=None, ge=1, description="None: evaluate at epoch ends")
    save_steps: Annotated[
        int | None,
        Option("--save-steps", help="Checkpoint every N steps (default: with every validation)."),
    ] = Field(default=None, ge=1, description="None: with every evaluation")
    logging_steps: int = Field(default=10, ge=1)
    eval_batch_size: int = Field(default=EVAL_BATCH_SIZE, ge=1)
    max_train_pairs: Annotated[
        int | None,
        RESUME,
        Option("--max-train-pairs", help="Train on the first N pairs of the train split only."),
    ] = Field(default=None, ge=2)
    max_eval_pairs: Annotated[
        int | None,
        Option(
            "--max-eval-pairs",
            help=(
                "Evaluate on N pairs of each evaluated split only, both labels in the split's "
                "proportions."
            ),
        ),
    ] = Field(default=None, ge=2)
    resume: Annotated[bool, Option("--resume", help="Continue from OUT/last if it is there.")] = (
        True
    )
    device: Annotated[
        str | None,
        Option("--device", help="cpu, cuda, cuda:1 ... (default: cuda when available, else cpu)."),
    ] = None
    #: off with --quiet
    progress: bool = True
    #: away from a terminal: a progress line at least this often, in seconds
    progress_every: Annotated[
        float,
        Option(
            "--progress-every",
            help=(
                "When stderr is not a terminal (a log file, nohup, a scheduler): a timestamped "
                "line (step, loss, pairs/s, ETA) at least this often, in seconds."
            ),
        ),
    ] = Field(default=30.0, ge=1)
    #: --loss names a preset, which --w-* and --*-tau override
    loss: Annotated[LossConfig, RESUME] = LOSS_PRESETS[DEFAULT_LOSS_PRESET]


class AblationConfig(BaseModel):
    """`base` is the training recipe every variant shares; its `output` is the table's root."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    base: TrainConfig
    variants: Annotated[
        list[str],
        Option(
            "--variants",
            help="Comma list of variants or groups: paper, baselines, objectives, pooling, all, "
            "only-cos, wo-ibn, ...",
        ),
    ] = ["paper"]
    split: Annotated[str, Option("--split", help="The split the table reports.")] = EVAL_SPLIT


@dataclass(frozen=True)
class PretrainConfig:
    """Everything that decides an MLM pretraining run (`training.pretrain_ran`); saved as
    `pretrain_config.json`."""

    data: Path
    output: Path
    model: str = "ran-base"  # a preset, or a saved RAN folder to continue from
    splits: tuple[str, ...] = ("train",)
    max_length: int = 512
    batch_size: int = 8
    steps: int = 1000
    learning_rate: float = 5e-4
    warmup_steps: int = 100
    weight_decay: float = 0.01
    mask_probability: float = 0.15
    max_texts: int | None = None
    init_embeddings_from: Path | None = None
    seed: int = 42
    device: str | None = None  # None: cuda when available, else cpu (as `train`)
    overrides: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # bad option values are usage errors (exit 2), as for every other command
        hint = "see `issues-sts pretrain-ran --help`"
        if self.steps < 1 or self.batch_size < 1 or self.max_length < 8:
            raise ConfigError(
                "--max-steps and --batch-size must be >= 1 and --max-length >= 8", hint=hint
            )
        if not 0 < self.mask_probability < 1:
            raise ConfigError("mask probability must lie in (0, 1)", hint=hint)
        if not self.learning_rate > 0 or self.warmup_steps < 0 or self.weight_decay < 0:
            # the optimizer's own ValueError read as a bug (exit 1)
            raise ConfigError(
                "--lr must be > 0, --warmup-steps and the weight decay >= 0", hint=hint
            )


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
