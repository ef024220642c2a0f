"""`issues-sts train | evaluate | ablate | pretrain-ran`: AnglE training on the built dataset.

Same conventions as the other commands: `--dataset` is what `issues-sts build` wrote (or a
Hub id), `--out` is the folder results go to (a file is `--json-out` or `--plot`), `--quiet`
turns progress bars off, `--max-train-pairs` / `--max-eval-pairs` limit the pairs trained and
evaluated, `--max-steps` the optimizer steps, and `--device` defaults to CUDA when available
in every command that takes it. Each command builds one frozen config
and calls one function of `training.api`; failures are `TrainingError`s (exit 8) printed on
one line by `app.main`. Torch loads only when a command runs, so `issues-sts --help` stays fast.

Options are declared from `training/config.py`, whose fields name the option that sets them
and its help (`Option("--lr", help=...)`; default and range are the field's, cli/options.py).
train and ablate name each parameter after the TrainConfig field it sets, so that
`_train_config` builds every TrainConfig from a command line alike.
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
    option_default,
    quiet_option,
)
from issues_sts.cli.common import out as stdout
from issues_sts.cli.options import config_from, config_option, option_marker
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


def _option(field: str, **overrides: Any) -> Any:
    """A train or ablate option, declared from TrainConfig's field (flag, help, default and
    range said there, in training/config.py)."""
    return config_option(TrainConfig, field, **overrides)


def _shared(default: Any, flag: str, **kwargs: Any) -> Any:
    """An option evaluate or pretrain-ran declares as train does (help and range from the
    TrainConfig field marked with `flag`), with a default of its own."""
    field = next(
        name
        for name, info in TrainConfig.model_fields.items()
        if (marker := option_marker(info)) is not None and marker.flag == flag
    )
    return _option(field, default=default, **kwargs)


def _known_pooling(value: str | None) -> str | None:
    """--pooling is checked by the parser (exit 2), not once the model is built."""
    from training.models.pooling import POOLINGS

    if value is not None and value not in POOLINGS:
        raise typer.BadParameter(f"choose one of {', '.join(POOLINGS)}", param_hint="--pooling")
    return value


def _pooling(default: str | None) -> Any:
    return _shared(default, "--pooling", callback=_known_pooling)


def _objective_option(field: str) -> Any:
    """An objective option: unset (None) means "as --loss's preset says"."""
    return config_option(LossConfig, field, default=None)


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
    data: str = _option("data", default=str(DEFAULT_OUT)),
    output: Path = _option("output", default=RUNS / "angle"),
    model: str | None = _option("model"),
    pooling: str | None = _option("pooling", callback=_known_pooling),
    max_length: int = _option("max_length"),
    batch_size: int = _option("batch_size"),
    epochs: int = _option("epochs"),
    max_steps: int | None = _option("max_steps"),
    stop_after_steps: int | None = _option("stop_after_steps"),
    learning_rate: float = _option("learning_rate"),
    warmup_steps: int = _option("warmup_steps"),
    weight_decay: float = _option("weight_decay"),
    grad_accumulation: int = _option("grad_accumulation"),
    precision: str = _option("precision"),
    gradient_checkpointing: bool = _option("gradient_checkpointing"),
    attention_dropout: float | None = _option("attention_dropout"),
    seed: int = _option("seed"),
    valid_split: str | None = _option("valid_split"),
    eval_steps: int | None = _option("eval_steps"),
    save_steps: int | None = _option("save_steps"),
    max_train_pairs: int | None = _option("max_train_pairs"),
    max_eval_pairs: int | None = _option("max_eval_pairs"),
    loss: str = typer.Option(
        DEFAULT_LOSS_PRESET,
        "--loss",
        help="Objective preset: paper (cos + ibn + angle, 1/1/1, tau 0.05/0.05/1) "
        "or angle-emb-0.6.1 (that library's current defaults). --w-* and --*-tau override it.",
    ),
    w_cos: float | None = _objective_option("w_cos"),
    w_ibn: float | None = _objective_option("w_ibn"),
    w_angle: float | None = _objective_option("w_angle"),
    cos_tau: float | None = _objective_option("cos_tau"),
    ibn_tau: float | None = _objective_option("ibn_tau"),
    angle_tau: float | None = _objective_option("angle_tau"),
    identical_detection: bool | None = _objective_option("identical_detection"),
    gather_across_processes: bool = config_option(LossConfig, "gather_across_processes"),
    resume: bool = _option("resume"),
    device: str | None = _option("device"),
    progress_every: float = _option("progress_every"),
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
    data: str = _option("data", default=str(DEFAULT_OUT)),
    output: Path = _option(
        "output",
        default=RUNS / "ablation",
        help="Root folder: one run per variant plus ablation.md/csv/json.",
    ),
    model: str | None = _option("model"),
    variants: str = config_option(
        AblationConfig, "variants", default=",".join(option_default(AblationConfig, "variants"))
    ),
    split: str = config_option(AblationConfig, "split"),
    pooling: str | None = _option("pooling", callback=_known_pooling),
    max_length: int = _option("max_length"),
    batch_size: int = _option("batch_size"),
    epochs: int = _option("epochs"),
    max_steps: int | None = _option("max_steps"),
    learning_rate: float = _option("learning_rate"),
    warmup_steps: int = _option("warmup_steps"),
    seed: int = _option("seed"),
    precision: str = _option("precision"),
    max_train_pairs: int | None = _option("max_train_pairs"),
    max_eval_pairs: int | None = _option("max_eval_pairs"),
    valid_split: str | None = _option("valid_split"),
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
    device: str | None = _shared(_pretrain("device"), "--device"),
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
