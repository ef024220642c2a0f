"""`issues-sts train | evaluate | ablate | pretrain-ran`: AnglE training on the built dataset.

Same conventions as the other commands: `--dataset` is what `issues-sts build` wrote (or a
Hub id), `--out` is the folder results go to (a file is `--json-out` or `--plot`), `--quiet`
turns progress bars off, `--max-train-pairs` / `--max-eval-pairs` limit the pairs trained and
evaluated (`evaluate --max-pairs`: it only evaluates). Each command builds one frozen config
and calls one function of `training.api`; failures are `TrainingError`s (exit 8) printed on
one line by `app.main`. Torch loads only when a command runs, so `issues-sts --help` stays fast.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from rich.table import Table

from issues_sts.cli.common import DEFAULT_OUT, QUIET_HELP, config_error, console
from issues_sts.cli.common import out as stdout
from issues_sts.errors import ConfigError, Interrupted, Terminated, TrainingError, os_errors
from issues_sts.store import Store

#: where runs go unless --out says otherwise
RUNS = Path("runs")

Dataset = Annotated[
    str,
    typer.Option(
        "--dataset",
        help="Pairs to use: a folder built by `issues-sts build`, a save_to_disk folder, "
        "or a Hub dataset id such as WhereIsAI/github-issue-similarity (network; HF_ENDPOINT is "
        "honoured).",
    ),
]
Model = Annotated[
    str | None,
    typer.Option(
        "--model",
        help="Backbone or trained model: a Hub id, a local folder, a run folder (its best "
        "checkpoint), ran-base / ran-tiny; default: the offline all-MiniLM-L6-v2.",
    ),
]
Pooling = Annotated[
    str | None,
    typer.Option(
        "--pooling",
        help="cls, cls-avg, avg, max, last or first-last-avg; default: what the backbone's "
        "own sentence-transformers config declares (MiniLM: avg + normalize), else cls (the "
        "paper's).",
    ),
]
MaxLength = Annotated[
    int,
    typer.Option("--max-length", help="Tokens per text for training and evaluation (paper: 512)."),
]
Quiet = Annotated[bool, typer.Option("--quiet", help=QUIET_HELP)]
Seed = Annotated[
    int, typer.Option("--seed", help="Seed of initialisation, batch order and dropout.")
]
BatchSize = Annotated[int, typer.Option("--batch-size", help="Pairs per micro-batch (paper: 32).")]
Epochs = Annotated[int, typer.Option("--epochs", help="Passes over the training split.")]
MaxSteps = Annotated[
    int | None, typer.Option("--max-steps", help="Stop after this many optimizer steps in all.")
]
LearningRate = Annotated[float, typer.Option("--lr", help="Peak learning rate (paper: 1e-5).")]
Warmup = Annotated[
    int, typer.Option("--warmup-steps", help="Linear warmup steps before linear decay.")
]
MaxTrainPairs = Annotated[
    int | None,
    typer.Option("--max-train-pairs", help="Train on the first N pairs of the train split only."),
]
MaxEvalPairs = Annotated[
    int | None,
    typer.Option(
        "--max-eval-pairs",
        help="Evaluate on N pairs of each evaluated split only, both labels in the split's "
        "proportions.",
    ),
]
EvalMaxPairs = Annotated[
    int | None,
    typer.Option(
        "--max-pairs",
        help="Evaluate on N pairs only, both labels in the split's proportions (the first "
        "pairs of each label).",
    ),
]
# What the OS refuses while training (a read-only run folder, a full disk) is training's.
TRAINING_FILES = "training cannot read or write a file it needs"
ValidSplit = Annotated[
    str | None,
    typer.Option(
        "--valid-split", help="Split that picks the best checkpoint; '' to skip validation."
    ),
]
Precision = Annotated[
    str, typer.Option("--precision", help="auto (bf16 on capable GPUs), fp32 or bf16.")
]


def _config(build: Any, command: str) -> Any:
    """Run a config constructor, turning validation errors into one-line ConfigErrors."""
    try:
        return build()
    except ValidationError as exc:
        raise config_error(exc, command) from None


TRAIN_HELP = """Fine-tune an encoder with the AnglE objective (the paper's setting by default).

The run folder holds last/ (newest checkpoint, resumable), best/ (best on --valid-split),
metrics.json/.csv and train_config.json. Every checkpoint is also a sentence-transformers
model: `SentenceTransformer("RUN/best")` gives the same embeddings (RAN, cls-avg and
first-last-avg need `trust_remote_code=True`).

Ctrl-C (or SIGTERM) finishes the current step, saves a checkpoint and prints the command
that resumes (exit 130; 143 for SIGTERM); that command continues where it stopped.

Examples:

    issues-sts train --dataset data/dataset --out runs/angle --max-length 128

    issues-sts train --dataset WhereIsAI/github-issue-similarity --model bert-base-uncased \\
        --out runs/bert

    torchrun --nproc-per-node 4 -m issues_sts train --dataset data/dataset --out runs/ddp
"""


def train_command(
    dataset: Dataset = str(DEFAULT_OUT),
    out: Annotated[
        Path,
        typer.Option("--out", help="Run folder: checkpoints, metrics; an existing run resumes."),
    ] = RUNS / "angle",
    model: Model = None,
    pooling: Pooling = None,
    max_length: MaxLength = 512,
    batch_size: BatchSize = 32,
    epochs: Epochs = 1,
    max_steps: MaxSteps = None,
    stop_after_steps: Annotated[
        int | None,
        typer.Option(
            "--stop-after-steps", help="Checkpoint and stop after N more steps (rerun resumes)."
        ),
    ] = None,
    lr: LearningRate = 1e-5,
    warmup_steps: Warmup = 100,
    weight_decay: Annotated[
        float, typer.Option("--weight-decay", help="AdamW weight decay (not on biases and norms).")
    ] = 0.0,
    grad_accumulation: Annotated[
        int, typer.Option("--grad-accumulation", help="Micro-batches per optimizer step.")
    ] = 1,
    precision: Precision = "auto",
    gradient_checkpointing: Annotated[
        bool,
        typer.Option(
            "--gradient-checkpointing",
            help="Recompute activations in backward: less memory, more time.",
        ),
    ] = False,
    attention_dropout: Annotated[
        float | None,
        typer.Option("--attention-dropout", help="Override the backbone's attention dropout."),
    ] = None,
    seed: Seed = 42,
    valid_split: ValidSplit = "valid",
    eval_steps: Annotated[
        int | None,
        typer.Option("--eval-steps", help="Validate every N steps (default: at epoch ends)."),
    ] = None,
    save_steps: Annotated[
        int | None,
        typer.Option(
            "--save-steps", help="Checkpoint every N steps (default: with every validation)."
        ),
    ] = None,
    max_train_pairs: MaxTrainPairs = None,
    max_eval_pairs: MaxEvalPairs = None,
    loss: Annotated[
        str,
        typer.Option(
            "--loss",
            help="Objective preset: paper (cos + ibn + angle, 1/1/1, tau 0.05/0.05/1) "
            "or angle-emb-0.6.1 (that library's current defaults). --w-* and --*-tau override it.",
        ),
    ] = "paper",
    w_cos: Annotated[
        float | None, typer.Option("--w-cos", help="Weight of the cosine (CoSENT) objective.")
    ] = None,
    w_ibn: Annotated[
        float | None, typer.Option("--w-ibn", help="Weight of the in-batch-negative objective.")
    ] = None,
    w_angle: Annotated[
        float | None, typer.Option("--w-angle", help="Weight of the angle objective.")
    ] = None,
    cos_tau: Annotated[
        float | None, typer.Option("--cos-tau", help="Temperature of the cosine objective.")
    ] = None,
    ibn_tau: Annotated[
        float | None,
        typer.Option("--ibn-tau", help="Temperature of the in-batch-negative objective."),
    ] = None,
    angle_tau: Annotated[
        float | None, typer.Option("--angle-tau", help="Temperature of the angle objective.")
    ] = None,
    identical_detection: Annotated[
        bool | None,
        typer.Option(
            "--identical-detection/--no-identical-detection",
            help="Treat identical texts in a batch as positives (paper: on).",
        ),
    ] = None,
    gather_negatives: Annotated[
        bool,
        typer.Option(
            "--gather-negatives/--no-gather-negatives",
            help="DDP: rank in-batch negatives against every process's rows.",
        ),
    ] = True,
    resume: Annotated[
        bool, typer.Option("--resume/--no-resume", help="Continue from OUT/last if it is there.")
    ] = True,
    device: Annotated[
        str | None,
        typer.Option("--device", help="cpu, cuda, cuda:1 ... (default: cuda when available)."),
    ] = None,
    quiet: Quiet = False,
) -> None:
    from training.api import TrainConfig, train
    from training.losses import LOSS_PRESETS

    if loss not in LOSS_PRESETS:
        raise ConfigError(
            f"unknown --loss {loss!r}", hint=f"choose one of {', '.join(LOSS_PRESETS)}"
        )
    given = {
        "w_cos": w_cos,
        "w_ibn": w_ibn,
        "w_angle": w_angle,
        "cos_tau": cos_tau,
        "ibn_tau": ibn_tau,
        "angle_tau": angle_tau,
        "identical_detection": identical_detection,
    }
    changes: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
    changes["gather_across_processes"] = gather_negatives
    objective = _config(
        lambda: type(LOSS_PRESETS[loss]).model_validate(
            {**LOSS_PRESETS[loss].model_dump(), **changes}
        ),
        "train",
    )
    config = _config(
        lambda: TrainConfig(
            data=dataset,
            output=out,
            model=model,
            pooling=pooling,
            max_length=max_length,
            batch_size=batch_size,
            epochs=epochs,
            max_steps=max_steps,
            stop_after_steps=stop_after_steps,
            learning_rate=lr,
            warmup_steps=warmup_steps,
            weight_decay=weight_decay,
            grad_accumulation=grad_accumulation,
            precision=precision,  # type: ignore[arg-type]  # pydantic checks it
            gradient_checkpointing=gradient_checkpointing,
            attention_dropout=attention_dropout,
            seed=seed,
            valid_split=valid_split or None,
            eval_steps=eval_steps,
            save_steps=save_steps,
            max_train_pairs=max_train_pairs,
            max_eval_pairs=max_eval_pairs,
            resume=resume,
            device=device,
            progress=not quiet,
            loss=objective,
        ),
        "train",
    )
    with os_errors(TrainingError, TRAINING_FILES):
        result = train(config)
    best = (
        f", best {config.valid_split} Spearman {result.best_metric:.2f}"
        if result.best_metric is not None
        else ""
    )
    if result.interrupted:
        kind = Terminated if result.stop_signal == signal.SIGTERM else Interrupted
        raise kind(
            kept=f"a checkpoint after step {result.steps} of {result.total_steps} in "
            f"{result.output / 'last'}{best}",
            hint="the same command continues from that checkpoint",
        )
    if result.already_complete:
        stdout.print(
            f"the run in {result.output} is already complete ({result.steps} steps{best}); "
            f"nothing trained; model: {result.model_dir} (--no-resume starts it over)",
            soft_wrap=True,
        )
        return
    if result.steps < result.total_steps:
        console.print(
            f"stopped after step {result.steps} of {result.total_steps} (--stop-after-steps); "
            "run the same command again to continue",
            soft_wrap=True,
        )
    stdout.print(
        f"trained {result.steps} steps ({result.pairs_per_second:.1f} pairs/s){best}; model: "
        f"{result.model_dir}"
    )


EVALUATE_HELP = """Score a model on one split: Spearman x100 of cosine similarity against the label
(the paper's metric), Pearson, ROC-AUC and best-threshold accuracy/F1.

--model takes a trained model folder, a run folder (its best checkpoint, else its last),
a Hub id or nothing (the untrained offline backbone, pooled as its authors configured it).

Examples:

    issues-sts evaluate --model runs/angle --dataset data/dataset --split test --plot test.png

    issues-sts evaluate --dataset data/dataset --json

    issues-sts evaluate --model runs/angle --max-pairs 200 --json-out runs/angle/test.json

A split whose pairs carry one label only is refused (exit 8): the metrics would be undefined.
"""


def evaluate_command(
    dataset: Dataset = str(DEFAULT_OUT),
    model: Model = None,
    split: Annotated[
        str,
        typer.Option("--split", help="A split the dataset has (a built one: train, valid, test)."),
    ] = "test",
    pooling: Pooling = None,
    max_length: Annotated[
        int | None,
        typer.Option("--max-length", help="Tokens per text (default: the model's own limit)."),
    ] = None,
    batch_size: Annotated[int, typer.Option("--batch-size", help="Texts per forward pass.")] = 64,
    max_pairs: EvalMaxPairs = None,
    plot: Annotated[
        Path | None, typer.Option("--plot", help="Write the cosine density-by-label PNG here.")
    ] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json-out", help="Write the metrics as JSON to this file.")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the metrics as JSON on stdout instead of a table.")
    ] = False,
    quiet: Quiet = False,
) -> None:
    from training.api import evaluate

    with os_errors(TrainingError, TRAINING_FILES):
        metrics = evaluate(
            model,
            dataset,
            split,
            pooling=pooling,
            max_length=max_length,
            batch_size=batch_size,
            max_pairs=max_pairs,
            plot=plot,
            output=json_out,
        )
    if as_json:
        stdout.print(json.dumps(metrics, allow_nan=False), markup=False, highlight=False)
        return
    table = Table(title=f"{model or 'offline backbone'} on {split}")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key, value in metrics.items():
        table.add_row(key, f"{value:.4f}")
    stdout.print(table)


ABLATE_HELP = """The paper's Table 4 on this data (objectives, pooling) plus baselines, as one
table.

Baselines: the untrained backbone (with its own pooling) and the cosine-only (CoSENT)
fine-tune. Writes OUT/ablation.md, .csv and .json and one run folder per variant; an
interrupted ablation resumes where it stopped.

Examples:

    issues-sts ablate --dataset data/dataset --out runs/ablation --max-length 128

    issues-sts ablate --dataset data/dataset --out runs/base --variants baselines \\
        --max-train-pairs 2000
"""


def ablate_command(
    dataset: Dataset = str(DEFAULT_OUT),
    out: Annotated[
        Path,
        typer.Option("--out", help="Root folder: one run per variant plus ablation.md/csv/json."),
    ] = RUNS / "ablation",
    model: Model = None,
    variants: Annotated[
        str,
        typer.Option(
            "--variants",
            help="Comma list of variants or groups: paper, baselines, objectives, "
            "pooling, all, only-cos, wo-ibn, ...",
        ),
    ] = "paper",
    split: Annotated[str, typer.Option("--split", help="The split the table reports.")] = "test",
    pooling: Pooling = None,
    max_length: MaxLength = 512,
    batch_size: BatchSize = 32,
    epochs: Epochs = 1,
    max_steps: MaxSteps = None,
    lr: LearningRate = 1e-5,
    warmup_steps: Warmup = 100,
    seed: Seed = 42,
    precision: Precision = "auto",
    max_train_pairs: MaxTrainPairs = None,
    max_eval_pairs: MaxEvalPairs = None,
    valid_split: ValidSplit = "valid",
    quiet: Quiet = False,
) -> None:
    from training.api import AblationConfig, TrainConfig, ablate

    base = _config(
        lambda: TrainConfig(
            data=dataset,
            output=out,
            model=model,
            pooling=pooling,
            max_length=max_length,
            batch_size=batch_size,
            epochs=epochs,
            max_steps=max_steps,
            learning_rate=lr,
            warmup_steps=warmup_steps,
            seed=seed,
            precision=precision,  # type: ignore[arg-type]  # pydantic checks it
            max_train_pairs=max_train_pairs,
            max_eval_pairs=max_eval_pairs,
            valid_split=valid_split or None,
            progress=not quiet,
        ),
        "ablate",
    )
    names = [v.strip() for v in variants.split(",") if v.strip()]
    with os_errors(TrainingError, TRAINING_FILES):
        result = ablate(AblationConfig(base=base, variants=names, split=split))
    stdout.print(result.table_path.read_text())
    console.print(f"table: {result.table_path}")


PRETRAIN_HELP = """Masked-language-model pretraining of a RAN on issue texts, for fine-tuning with
`issues-sts train --model OUT` (no pretrained RAN weights exist offline).

Examples:

    issues-sts pretrain-ran --dataset data/dataset --out runs/ran-mlm --model ran-base

    issues-sts pretrain-ran --store data/store --out runs/ran-mlm --model ran-tiny --steps 200
"""


def pretrain_ran_command(
    dataset: Annotated[
        Path | None,
        typer.Option("--dataset", help="Built dataset folder (its --splits' unique texts)."),
    ] = None,
    store: Annotated[
        Path | None,
        typer.Option("--store", help="Crawl store instead: every issue's title and body."),
    ] = None,
    out: Annotated[
        Path, typer.Option("--out", help="Folder the pretrained RAN encoder goes to.")
    ] = RUNS / "ran-mlm",
    model: Annotated[
        str, typer.Option("--model", help="ran-base, ran-small, ran-tiny or a RAN folder.")
    ] = "ran-base",
    splits: Annotated[
        str, typer.Option("--splits", help="Dataset splits to read, comma separated.")
    ] = "train",
    max_length: Annotated[
        int,
        typer.Option(
            "--max-length", help="Tokens per segment; longer texts are cut into segments."
        ),
    ] = 512,
    batch_size: Annotated[int, typer.Option("--batch-size", help="Segments per step.")] = 8,
    steps: Annotated[int, typer.Option("--steps", help="Optimizer steps.")] = 1000,
    lr: LearningRate = 5e-4,
    warmup_steps: Warmup = 100,
    max_texts: Annotated[
        int | None, typer.Option("--max-texts", help="Read at most N texts.")
    ] = None,
    init_embeddings_from: Annotated[
        Path | None,
        typer.Option(
            "--init-embeddings-from",
            help="BERT-vocabulary checkpoint "
            "folder whose word embeddings seed RAN's (e.g. MiniLM).",
        ),
    ] = None,
    seed: Seed = 42,
    device: Annotated[str, typer.Option("--device", help="cpu or cuda.")] = "cpu",
    settings: Annotated[
        list[str] | None,
        typer.Option(
            "--set", help="RAN config field of a fresh preset, e.g. window_size=128 (repeatable)."
        ),
    ] = None,
    quiet: Quiet = False,
) -> None:
    from training.pretrain_ran import PretrainConfig, parse_settings, pretrain

    if (dataset is None) == (store is None):
        raise ConfigError(
            "pass exactly one of --dataset and --store", hint="see `issues-sts pretrain-ran --help`"
        )
    if store is not None:  # what is wrong with a store is the store's (exit 3), as elsewhere
        Store.open(store).close()
    source = dataset if dataset is not None else store
    assert source is not None  # exactly one of them, checked above
    config = _config(
        lambda: PretrainConfig(
            data=source,
            output=out,
            model=model,
            splits=tuple(splits.split(",")),
            max_length=max_length,
            batch_size=batch_size,
            steps=steps,
            learning_rate=lr,
            warmup_steps=warmup_steps,
            max_texts=max_texts,
            init_embeddings_from=init_embeddings_from,
            seed=seed,
            device=device,
            overrides=parse_settings(settings or []),
        ),
        "pretrain-ran",
    )
    with os_errors(TrainingError, TRAINING_FILES):
        result = pretrain(config, progress=not quiet)
    console.print(
        f"pretrained {config.model} on {result.texts} texts: {len(result.losses)} steps, "
        f"{result.tokens} tokens in {result.seconds:.0f}s; MLM loss {result.first_loss:.3f} "
        f"-> {result.last_loss:.3f}; saved to {result.output}"
    )


def register(app: typer.Typer) -> None:
    """Add the training commands to `app`."""
    app.command("train", help=TRAIN_HELP)(train_command)
    app.command("evaluate", help=EVALUATE_HELP)(evaluate_command)
    app.command("ablate", help=ABLATE_HELP)(ablate_command)
    app.command("pretrain-ran", help=PRETRAIN_HELP)(pretrain_ran_command)
