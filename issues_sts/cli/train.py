"""`issues-sts train | evaluate | ablate | pretrain-ran`: AnglE training on the built dataset.

Same conventions as the other commands: `--dataset` is what `issues-sts build` wrote (or a
Hub id), `--out` is the folder results go to (a file is `--json-out` or `--plot`), `--quiet`
turns progress bars off, `--max-train-pairs` / `--max-eval-pairs` limit the pairs trained and
evaluated, `--max-steps` the optimizer steps, and `--device` defaults to CUDA when available
in every command that takes it. Each command builds one frozen config
and calls one function of `training.api`; failures are `TrainingError`s (exit 8) printed on
one line by `app.main`. Torch loads only when a command runs, so `issues-sts --help` stays fast.

Defaults are read from `training/config.py`, whose fields name the option that sets them
(`Option("--lr")`). train and ablate name each parameter after the TrainConfig field it sets,
so that `_train_config` builds every TrainConfig from a command line alike.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import typer
from pydantic import BaseModel, ValidationError
from rich.table import Table

from issues_sts.cli.common import (
    DEFAULT_OUT,
    config_error,
    console,
    field_range,
    option_default,
    quiet_option,
)
from issues_sts.cli.common import out as stdout
from issues_sts.cli.options import config_from
from issues_sts.config import Option
from issues_sts.errors import (
    ConfigError,
    Interrupted,
    OutputError,
    Terminated,
    TrainingError,
    os_errors,
)
from issues_sts.store import Store
from training.config import (
    DEFAULT_LOSS_PRESET,
    EVAL_BATCH_SIZE,
    EVAL_SPLIT,
    LOSS_PRESETS,
    AblationConfig,
    LossConfig,
    PretrainConfig,
    TrainConfig,
)
from training.progress import Loading

#: where runs go unless --out says otherwise
RUNS = Path("runs")
# What the OS refuses while training (a read-only run folder, a full disk) is training's.
TRAINING_FILES = "training cannot read or write a file it needs"

# The help of options several commands share, said once; a command whose option means
# something else (evaluate's --max-length, pretrain-ran's --batch-size) writes its own.
SHARED_HELP = {
    "--dataset": "Pairs to use: a folder built by `issues-sts build`, a save_to_disk folder, "
    "or a Hub dataset id such as WhereIsAI/github-issue-similarity (network; HF_ENDPOINT is "
    "honoured).",
    "--model": "Backbone or trained model: a Hub id, a local folder, a run folder (its best "
    "checkpoint), ran-base / ran-tiny; default: the offline all-MiniLM-L6-v2.",
    "--pooling": "cls, cls-avg, avg, max, last or first-last-avg; default: what the backbone's "
    "own sentence-transformers config declares (MiniLM: avg + normalize), else cls (the "
    "paper's).",
    "--max-length": "Tokens per text for training and evaluation (paper: 512).",
    "--batch-size": "Pairs per micro-batch (paper: 32).",
    "--epochs": "Passes over the training split.",
    "--max-steps": "Stop after this many optimizer steps in all.",
    "--lr": "Peak learning rate (paper: 1e-5).",
    "--warmup-steps": "Linear warmup steps before linear decay.",
    "--seed": "Seed of initialisation, batch order and dropout.",
    "--precision": "auto (bf16 on capable GPUs), fp32 or bf16.",
    "--max-train-pairs": "Train on the first N pairs of the train split only.",
    "--max-eval-pairs": "Evaluate on N pairs of each evaluated split only, both labels in the "
    "split's proportions.",
    "--valid-split": "Split that picks the best checkpoint; '' to skip validation.",
}
# train and pretrain-ran choose their device alike (training.distributed.setup)
DEVICE_HELP = "cpu, cuda, cuda:1 ... (default: cuda when available, else cpu)."


def _shared(default: Any, flag: str, **kwargs: Any) -> Any:
    """An option several commands declare alike: its help from SHARED_HELP, its range from
    the TrainConfig field marked with it (shown in `--help`, checked by the parser)."""
    return typer.Option(default, flag, help=SHARED_HELP[flag], **_range(flag), **kwargs)


def _range(flag: str, model: type[BaseModel] = TrainConfig) -> dict[str, Any]:
    """The bounds of `model`'s field marked with `flag` (none when no field is)."""
    for name, info in model.model_fields.items():
        if any(isinstance(m, Option) and m.flag == flag for m in info.metadata):
            return field_range(model, name)
    return {}


def _known_pooling(value: str | None) -> str | None:
    """--pooling is checked by the parser (exit 2), not once the model is built."""
    from training.models.pooling import POOLINGS

    if value is not None and value not in POOLINGS:
        raise typer.BadParameter(f"choose one of {', '.join(POOLINGS)}", param_hint="--pooling")
    return value


def _pooling(default: str | None) -> Any:
    return _shared(default, "--pooling", callback=_known_pooling)


def _train(field: str) -> Any:
    """A train or ablate option's default: TrainConfig's field (training/config.py)."""
    return option_default(TrainConfig, field)


def _pretrain(field: str) -> Any:
    """A pretrain-ran option's default: PretrainConfig's field."""
    return option_default(PretrainConfig, field)


Built = TypeVar("Built")


def _config(
    build: Callable[[], Built], command: str, model: type[BaseModel] | None = None
) -> Built:
    """Run a config constructor, turning validation errors into one-line ConfigErrors (that
    name `model`'s fields by the options marked on them)."""
    try:
        return build()
    except ValidationError as exc:
        raise config_error(exc, command, model) from None


def _objective(options: dict[str, Any]) -> LossConfig:
    """`--loss`'s preset with the objective's options that were given (`--w-*`, `--*-tau`,
    `--identical-detection`, `--gather-negatives`; parameters named after LossConfig's
    fields) laid over it."""
    preset = options["loss"]
    if preset not in LOSS_PRESETS:
        raise ConfigError(
            f"unknown --loss {preset!r}", hint=f"choose one of {', '.join(LOSS_PRESETS)}"
        )
    given = {k: v for k, v in options.items() if k in LossConfig.model_fields and v is not None}
    return _config(
        lambda: LossConfig.model_validate({**LOSS_PRESETS[preset].model_dump(), **given}),
        "train",
        LossConfig,
    )


def _train_config(command: str, options: dict[str, Any]) -> TrainConfig:
    """The one place a TrainConfig is built from a command line: each option whose
    parameter is named after a field sets that field (train and ablate name theirs so; what
    a command does not take keeps the config's default). `--valid-split ''` skips
    validation; `--quiet` turns progress off."""
    fields = {k: v for k, v in options.items() if k in TrainConfig.model_fields}
    fields |= {"valid_split": options["valid_split"] or None, "progress": not options["quiet"]}
    return _config(lambda: TrainConfig.model_validate(fields), command, TrainConfig)


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
    ctx: typer.Context,
    data: str = _shared(str(DEFAULT_OUT), "--dataset"),
    output: Path = typer.Option(
        RUNS / "angle", "--out", help="Run folder: checkpoints, metrics; an existing run resumes."
    ),
    model: str | None = _shared(_train("model"), "--model"),
    pooling: str | None = _pooling(_train("pooling")),
    max_length: int = _shared(_train("max_length"), "--max-length"),
    batch_size: int = _shared(_train("batch_size"), "--batch-size"),
    epochs: int = _shared(_train("epochs"), "--epochs"),
    max_steps: int | None = _shared(_train("max_steps"), "--max-steps"),
    stop_after_steps: int | None = typer.Option(
        _train("stop_after_steps"),
        "--stop-after-steps",
        **_range("--stop-after-steps"),
        help="Checkpoint and stop after N more steps (rerun resumes).",
    ),
    learning_rate: float = _shared(_train("learning_rate"), "--lr"),
    warmup_steps: int = _shared(_train("warmup_steps"), "--warmup-steps"),
    weight_decay: float = typer.Option(
        _train("weight_decay"),
        "--weight-decay",
        **_range("--weight-decay"),
        help="AdamW weight decay (not on biases and norms).",
    ),
    grad_accumulation: int = typer.Option(
        _train("grad_accumulation"),
        "--grad-accumulation",
        **_range("--grad-accumulation"),
        help="Micro-batches per optimizer step.",
    ),
    precision: str = _shared(_train("precision"), "--precision"),
    gradient_checkpointing: bool = typer.Option(
        _train("gradient_checkpointing"),
        "--gradient-checkpointing",
        help="Recompute activations in backward: less memory, more time.",
    ),
    attention_dropout: float | None = typer.Option(
        _train("attention_dropout"),
        "--attention-dropout",
        **_range("--attention-dropout"),
        help="Override the backbone's attention dropout.",
    ),
    seed: int = _shared(_train("seed"), "--seed"),
    valid_split: str | None = _shared(_train("valid_split"), "--valid-split"),
    eval_steps: int | None = typer.Option(
        _train("eval_steps"),
        "--eval-steps",
        **_range("--eval-steps"),
        help="Validate every N steps (default: at epoch ends).",
    ),
    save_steps: int | None = typer.Option(
        _train("save_steps"),
        "--save-steps",
        **_range("--save-steps"),
        help="Checkpoint every N steps (default: with every validation).",
    ),
    max_train_pairs: int | None = _shared(_train("max_train_pairs"), "--max-train-pairs"),
    max_eval_pairs: int | None = _shared(_train("max_eval_pairs"), "--max-eval-pairs"),
    loss: str = typer.Option(
        DEFAULT_LOSS_PRESET,
        "--loss",
        help="Objective preset: paper (cos + ibn + angle, 1/1/1, tau 0.05/0.05/1) "
        "or angle-emb-0.6.1 (that library's current defaults). --w-* and --*-tau override it.",
    ),
    # the objective's options default to None: "as --loss's preset says"
    w_cos: float | None = typer.Option(
        None,
        "--w-cos",
        **_range("--w-cos", LossConfig),
        help="Weight of the cosine (CoSENT) objective.",
    ),
    w_ibn: float | None = typer.Option(
        None,
        "--w-ibn",
        **_range("--w-ibn", LossConfig),
        help="Weight of the in-batch-negative objective.",
    ),
    w_angle: float | None = typer.Option(
        None, "--w-angle", **_range("--w-angle", LossConfig), help="Weight of the angle objective."
    ),
    cos_tau: float | None = typer.Option(
        None, "--cos-tau", help="Temperature of the cosine objective."
    ),
    ibn_tau: float | None = typer.Option(
        None, "--ibn-tau", help="Temperature of the in-batch-negative objective."
    ),
    angle_tau: float | None = typer.Option(
        None, "--angle-tau", help="Temperature of the angle objective."
    ),
    identical_detection: bool | None = typer.Option(
        None,
        "--identical-detection/--no-identical-detection",
        help="Treat identical texts in a batch as positives (paper: on).",
    ),
    gather_across_processes: bool = typer.Option(
        option_default(LossConfig, "gather_across_processes"),
        "--gather-negatives/--no-gather-negatives",
        help="DDP: rank in-batch negatives against every process's rows.",
    ),
    resume: bool = typer.Option(
        _train("resume"), "--resume/--no-resume", help="Continue from OUT/last if it is there."
    ),
    device: str | None = typer.Option(_train("device"), "--device", help=DEVICE_HELP),
    progress_every: float = typer.Option(
        _train("progress_every"),
        "--progress-every",
        min=1,
        help="When stderr is not a terminal (a log file, nohup, a scheduler): a timestamped "
        "line (step, loss, pairs/s, ETA) at least this often, in seconds.",
    ),
    quiet: bool = quiet_option(),
) -> None:
    # torch and the model take a while to load: a log shows the run started, and is alive
    with Loading("train", progress_every, enabled=not quiet):
        from training.api import train

        config = _train_config("train", {**ctx.params, "loss": _objective(ctx.params)})
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

    issues-sts evaluate --model runs/angle --max-eval-pairs 200 --json-out runs/angle/test.json

A split whose pairs carry one label only is refused (exit 8): the metrics would be undefined.

--task retrieval measures duplicate retrieval instead (the build's retrieval view, protocol in
docs/retrieval.md): for each duplicate of the split, its earlier issues of the same repository
ranked by --method dense (the model's cosine), bm25 or hybrid (reciprocal-rank fusion of the
two); recall@1/5/10/20, mrr@10 and ndcg@10 x100 with bootstrap 95 % intervals, overall and per
repository. A build without the view, or a split without a query, is refused (exit 6):

    issues-sts evaluate --task retrieval --dataset data/dataset --split test --method hybrid --json
"""


def evaluate_command(
    dataset: str = _shared(str(DEFAULT_OUT), "--dataset"),
    model: str | None = _shared(None, "--model"),
    split: str = typer.Option(
        EVAL_SPLIT, "--split", help="A split the dataset has (a built one: train, valid, test)."
    ),
    pooling: str | None = _pooling(None),
    max_length: int | None = typer.Option(
        None, "--max-length", min=1, help="Tokens per text (default: the model's own limit)."
    ),
    batch_size: int = typer.Option(
        EVAL_BATCH_SIZE, "--batch-size", min=1, help="Texts per forward pass."
    ),
    max_pairs: int | None = typer.Option(
        None,
        "--max-eval-pairs",
        min=1,
        help="Evaluate on N pairs only, both labels in the split's proportions (the first "
        "pairs of each label).",
    ),
    plot: Path | None = typer.Option(
        None, "--plot", help="Write the cosine density-by-label PNG here."
    ),
    json_out: Path | None = typer.Option(
        None, "--json-out", help="Write the metrics as JSON to this file."
    ),
    as_json: bool = typer.Option(
        False, "--json", help="Print the metrics as JSON on stdout instead of a table."
    ),
    quiet: bool = quiet_option(),
    task: str = typer.Option(
        "pairs", "--task", help="pairs (the paper's Spearman, the default) or retrieval."
    ),
    method: str = typer.Option(
        "dense", "--method", help="With --task retrieval: dense (default), bm25 or hybrid."
    ),
) -> None:
    from training.api import evaluate

    if task == "retrieval":
        if max_pairs is not None or plot is not None:
            raise ConfigError(
                "--max-pairs and --plot belong to --task pairs", hint="drop them for retrieval"
            )
        options = dict(model=model, pooling=pooling, max_length=max_length, batch_size=batch_size)
        _evaluate_retrieval(dataset, split, method, options, json_out, as_json, quiet)
        return
    if task != "pairs":
        raise ConfigError(f"--task must be pairs or retrieval, not {task!r}")
    if method != "dense":
        raise ConfigError("--method belongs to --task retrieval", hint="add --task retrieval")
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


def _evaluate_retrieval(
    dataset: str,
    split: str,
    method: str,
    options: dict[str, Any],
    json_out: Path | None,
    as_json: bool,
    quiet: bool,
) -> None:
    """`evaluate --task retrieval`: the runner lives in issues_sts.retrieval.evaluate."""
    from issues_sts.cli.report import make_reporter
    from issues_sts.retrieval.evaluate import METHODS, RetrievalConfig, evaluate_retrieval

    if method not in METHODS:
        raise ConfigError(f"--method must be {', '.join(METHODS)}, not {method!r}")
    given = {"dataset": dataset, "split": split, "method": method, **options}
    cfg = config_from(RetrievalConfig, "evaluate", given)
    with os_errors(TrainingError, TRAINING_FILES), make_reporter(console, quiet=quiet) as reporter:
        result = evaluate_retrieval(cfg, reporter).to_dict()
    if json_out:
        with os_errors(OutputError, f"--json-out {json_out} cannot be written"):
            json_out.parent.mkdir(parents=True, exist_ok=True)
            json_out.write_text(json.dumps(result, indent=2, allow_nan=False) + "\n")
    if as_json:
        stdout.print(json.dumps(result, allow_nan=False), markup=False, highlight=False)
        return
    what = "BM25" if method == "bm25" else f"{options['model'] or 'offline backbone'} ({method})"
    table = Table(title=f"{what} on {split}: {result['queries']} queries")
    for column in ("metric", "value", "95 % interval"):
        table.add_column(column, justify="left" if column == "metric" else "right")
    for key, (low, high) in result["intervals"].items():
        table.add_row(key, f"{result[key]:.2f}", f"[{low:.2f}, {high:.2f}]")
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
    ctx: typer.Context,
    data: str = _shared(str(DEFAULT_OUT), "--dataset"),
    output: Path = typer.Option(
        RUNS / "ablation",
        "--out",
        help="Root folder: one run per variant plus ablation.md/csv/json.",
    ),
    model: str | None = _shared(_train("model"), "--model"),
    variants: str = typer.Option(
        ",".join(option_default(AblationConfig, "variants")),
        "--variants",
        help="Comma list of variants or groups: paper, baselines, objectives, "
        "pooling, all, only-cos, wo-ibn, ...",
    ),
    split: str = typer.Option(
        option_default(AblationConfig, "split"), "--split", help="The split the table reports."
    ),
    pooling: str | None = _pooling(_train("pooling")),
    max_length: int = _shared(_train("max_length"), "--max-length"),
    batch_size: int = _shared(_train("batch_size"), "--batch-size"),
    epochs: int = _shared(_train("epochs"), "--epochs"),
    max_steps: int | None = _shared(_train("max_steps"), "--max-steps"),
    learning_rate: float = _shared(_train("learning_rate"), "--lr"),
    warmup_steps: int = _shared(_train("warmup_steps"), "--warmup-steps"),
    seed: int = _shared(_train("seed"), "--seed"),
    precision: str = _shared(_train("precision"), "--precision"),
    max_train_pairs: int | None = _shared(_train("max_train_pairs"), "--max-train-pairs"),
    max_eval_pairs: int | None = _shared(_train("max_eval_pairs"), "--max-eval-pairs"),
    valid_split: str | None = _shared(_train("valid_split"), "--valid-split"),
    quiet: bool = quiet_option(),
) -> None:
    from training.api import ablate

    base = _train_config("ablate", ctx.params)
    names = [v.strip() for v in variants.split(",") if v.strip()]
    with os_errors(TrainingError, TRAINING_FILES):
        result = ablate(AblationConfig(base=base, variants=names, split=split))
    stdout.print(result.table_path.read_text())
    console.print(f"table: {result.table_path}")


PRETRAIN_HELP = """Masked-language-model pretraining of a RAN on issue texts, for fine-tuning with
`issues-sts train --model OUT` (no pretrained RAN weights exist offline).

Examples:

    issues-sts pretrain-ran --dataset data/dataset --out runs/ran-mlm --model ran-base

    issues-sts pretrain-ran --store data/store --out runs/ran-mlm --model ran-tiny --max-steps 200
"""


def pretrain_ran_command(
    dataset: Path | None = typer.Option(
        None, "--dataset", help="Built dataset folder (its --splits' unique texts)."
    ),
    store: Path | None = typer.Option(
        None, "--store", help="Crawl store instead: every issue's title and body."
    ),
    output: Path = typer.Option(
        RUNS / "ran-mlm", "--out", help="Folder the pretrained RAN encoder goes to."
    ),
    model: str = typer.Option(
        _pretrain("model"), "--model", help="ran-base, ran-small, ran-tiny or a RAN folder."
    ),
    splits: str = typer.Option(
        ",".join(_pretrain("splits")), "--splits", help="Dataset splits to read, comma separated."
    ),
    max_length: int = typer.Option(
        _pretrain("max_length"),
        "--max-length",
        min=8,
        help="Tokens per segment; longer texts are cut into segments.",
    ),
    batch_size: int = typer.Option(
        _pretrain("batch_size"), "--batch-size", min=1, help="Segments per step."
    ),
    steps: int = typer.Option(
        _pretrain("steps"), "--max-steps", min=1, help="Optimizer steps in all."
    ),
    learning_rate: float = _shared(_pretrain("learning_rate"), "--lr"),
    warmup_steps: int = _shared(_pretrain("warmup_steps"), "--warmup-steps"),
    max_texts: int | None = typer.Option(
        _pretrain("max_texts"), "--max-texts", min=1, help="Read at most N texts."
    ),
    init_embeddings_from: Path | None = typer.Option(
        _pretrain("init_embeddings_from"),
        "--init-embeddings-from",
        help="BERT-vocabulary checkpoint folder whose word embeddings seed RAN's (e.g. MiniLM).",
    ),
    seed: int = _shared(_pretrain("seed"), "--seed"),
    device: str | None = typer.Option(_pretrain("device"), "--device", help=DEVICE_HELP),
    settings: list[str] | None = typer.Option(
        None,
        "--set",
        help="RAN config field of a fresh preset, e.g. window_size=128 (repeatable).",
    ),
    quiet: bool = quiet_option(),
) -> None:
    from training.pretrain_ran import parse_settings, pretrain

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
            output=output,
            model=model,
            splits=tuple(splits.split(",")),
            max_length=max_length,
            batch_size=batch_size,
            steps=steps,
            learning_rate=learning_rate,
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
