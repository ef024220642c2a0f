"""`python -m training`: train, evaluate and ablate AnglE text embeddings.

Commands parse options, build one frozen config, call one function of `training.api`.
Errors print as one line (`error: ... (what to do)`) with a non-zero exit; `--debug` shows
the traceback.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.table import Table

from issues_sts.errors import ConfigError, IssuesStsError
from training.config import Precision

console = Console(stderr=True)
out = Console()
app = typer.Typer(
    name="training",
    help="Train, evaluate and ablate AnglE text embeddings on GitHub issue pairs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
_state = {"debug": False}

Data = Annotated[str, typer.Option("--data", help="built dataset folder, save_to_disk folder, or Hub id (network)")]
Model = Annotated[str | None, typer.Option("--model", help="Hub id, local folder, saved run, or ran-base/ran-tiny; default: offline all-MiniLM-L6-v2")]
Pooling = Annotated[str | None, typer.Option(help="cls (default), cls-avg, avg, max, last, first-last-avg")]
MaxLength = Annotated[int, typer.Option(help="max tokens per text (paper: 512)")]


@app.callback()
def _root(debug: Annotated[bool, typer.Option(help="show tracebacks")] = False) -> None:
    _state["debug"] = debug


@app.command("train")
def train_command(
    data: Data,
    output: Annotated[Path, typer.Option("--output", help="run folder (checkpoints, metrics)")],
    model: Model = None,
    pooling: Pooling = None,
    max_length: MaxLength = 512,
    batch_size: Annotated[int, typer.Option(help="pairs per micro-batch")] = 32,
    epochs: int = 1,
    max_steps: Annotated[int | None, typer.Option(help="cap on optimizer steps")] = None,
    stop_after_steps: Annotated[int | None, typer.Option(help="checkpoint and stop after N steps (rerun resumes)")] = None,
    lr: Annotated[float, typer.Option("--lr", help="peak learning rate")] = 1e-5,
    warmup_steps: int = 100,
    weight_decay: float = 0.0,
    grad_accumulation: int = 1,
    precision: Annotated[Precision, typer.Option(help="auto (bf16 on capable GPUs), fp32, bf16")] = "auto",
    gradient_checkpointing: bool = False,
    attention_dropout: Annotated[float | None, typer.Option(help="override attention dropout")] = None,
    seed: int = 42,
    valid_split: Annotated[str | None, typer.Option(help="'' to skip evaluation during training")] = "valid",
    eval_steps: Annotated[int | None, typer.Option(help="evaluate every N steps (default: epoch ends)")] = None,
    save_steps: Annotated[int | None, typer.Option(help="checkpoint every N steps (default: with evaluations)")] = None,
    max_train_pairs: Annotated[int | None, typer.Option(help="train on the first N pairs only")] = None,
    max_eval_pairs: Annotated[int | None, typer.Option(help="evaluate on the first N pairs only")] = None,
    w_cos: float = 1.0,
    w_ibn: float = 1.0,
    w_angle: float = 1.0,
    cos_tau: float = 0.05,
    ibn_tau: float = 0.05,
    angle_tau: float = 1.0,
    identical_detection: Annotated[bool, typer.Option(help="treat identical texts in a batch as positives")] = True,
    gather_negatives: Annotated[bool, typer.Option(help="DDP: in-batch negatives from every process")] = False,
    resume: Annotated[bool, typer.Option(help="continue from OUTPUT/last if present")] = True,
    device: Annotated[str | None, typer.Option(help="cpu, cuda, cuda:1 ... (default: cuda if available)")] = None,
    progress: bool = True,
) -> None:
    """Fine-tune an encoder with the AnglE objective (paper defaults).

    Examples:

      python -m training train --data data/dataset --output runs/angle --max-length 128

      python -m training train --data WhereIsAI/github-issue-similarity --model bert-base-uncased --output runs/bert

      torchrun --nproc-per-node 4 -m training train --data data/dataset --output runs/ddp --gather-negatives
    """
    from training.api import LossConfig, TrainConfig, train

    loss = LossConfig(w_cos=w_cos, w_ibn=w_ibn, w_angle=w_angle, cos_tau=cos_tau, ibn_tau=ibn_tau,
                      angle_tau=angle_tau, identical_detection=identical_detection,
                      gather_across_processes=gather_negatives)
    config = TrainConfig(
        data=data, output=output, model=model, pooling=pooling, max_length=max_length, batch_size=batch_size,
        epochs=epochs, max_steps=max_steps, stop_after_steps=stop_after_steps, learning_rate=lr,
        warmup_steps=warmup_steps, weight_decay=weight_decay, grad_accumulation=grad_accumulation,
        precision=precision, gradient_checkpointing=gradient_checkpointing, attention_dropout=attention_dropout,
        seed=seed, valid_split=valid_split or None, eval_steps=eval_steps, save_steps=save_steps,
        max_train_pairs=max_train_pairs, max_eval_pairs=max_eval_pairs, resume=resume, device=device,
        progress=progress, loss=loss)
    result = train(config)
    best = f", best valid Spearman {result.best_metric:.2f}" if result.best_metric is not None else ""
    out.print(f"trained {result.steps} steps ({result.pairs_per_second:.1f} pairs/s){best}; model: {result.model_dir}")


@app.command("evaluate")
def evaluate_command(
    data: Data,
    model: Model = None,
    split: Annotated[str, typer.Option(help="train, valid or test")] = "test",
    pooling: Pooling = None,
    max_length: Annotated[int | None, typer.Option(help="max tokens per text (default: the model's)")] = None,
    batch_size: int = 64,
    max_pairs: Annotated[int | None, typer.Option(help="evaluate on the first N pairs only")] = None,
    plot: Annotated[Path | None, typer.Option(help="write the cosine density-by-label PNG here")] = None,
    output: Annotated[Path | None, typer.Option(help="write the metrics JSON here")] = None,
) -> None:
    """Score a model on a split: Spearman x100 (the paper's metric), Pearson, ROC-AUC, accuracy/F1.

    Examples:

      python -m training evaluate --model runs/angle/best --data data/dataset --split test --plot test.png

      python -m training evaluate --data data/dataset   # the untrained offline backbone
    """
    from training.api import evaluate

    metrics = evaluate(model, data, split, pooling=pooling, max_length=max_length, batch_size=batch_size,
                       max_pairs=max_pairs, plot=plot, output=output)
    table = Table(title=f"{model or 'offline backbone'} on {split}")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key, value in metrics.items():
        table.add_row(key, f"{value:.4f}")
    out.print(table)


@app.command("ablate")
def ablate_command(
    data: Data,
    output: Annotated[Path, typer.Option("--output", help="root folder: one run per variant + ablation.md/csv/json")],
    model: Model = None,
    variants: Annotated[str, typer.Option(help="comma list of variants/groups: paper, baselines, objectives, pooling, all, only-cos, ...")] = "paper",
    split: str = "test",
    pooling: Pooling = None,
    max_length: MaxLength = 512,
    batch_size: int = 32,
    epochs: int = 1,
    max_steps: int | None = None,
    lr: Annotated[float, typer.Option("--lr")] = 1e-5,
    warmup_steps: int = 100,
    seed: int = 42,
    precision: Precision = "auto",
    max_train_pairs: int | None = None,
    max_eval_pairs: int | None = None,
    valid_split: Annotated[str | None, typer.Option(help="'' to skip validation (take the last step)")] = "valid",
    progress: bool = True,
) -> None:
    """Paper Table 4 on this data (objectives, pooling) plus baselines, as one table.

    Baselines: the untrained backbone and the cosine-only (CoSENT) fine-tune. Writes
    OUTPUT/ablation.md, .csv and .json, and one run folder per variant.

    Examples:

      python -m training ablate --data data/dataset --output runs/ablate --max-length 128

      python -m training ablate --data data/dataset --output runs/base --variants baselines --max-train-pairs 2000
    """
    from training.api import AblationConfig, TrainConfig, ablate

    base = TrainConfig(data=data, output=output, model=model, pooling=pooling, max_length=max_length,
                       batch_size=batch_size, epochs=epochs, max_steps=max_steps, learning_rate=lr,
                       warmup_steps=warmup_steps, seed=seed, precision=precision, max_train_pairs=max_train_pairs,
                       max_eval_pairs=max_eval_pairs, valid_split=valid_split or None, progress=progress)
    result = ablate(AblationConfig(base=base, variants=[v.strip() for v in variants.split(",") if v.strip()], split=split))
    out.print(result.table_path.read_text())
    console.print(f"table: {result.table_path}")


def _register_optional_commands() -> None:
    # RAN pretraining registers its own command when its module is present (once).
    if _state.get("registered"):
        return
    _state["registered"] = True
    if importlib.util.find_spec("training.pretrain_ran") is not None:
        pretrain = importlib.import_module("training.pretrain_ran")
        if hasattr(pretrain, "register"):
            pretrain.register(app)


def main(argv: list[str] | None = None) -> None:
    _register_optional_commands()
    try:
        # Standalone mode: typer itself reports usage errors (exit 2) and exits on success.
        app(args=argv, prog_name="python -m training")
    except IssuesStsError as error:
        _fail(error, error.one_line(), error.exit_code)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        _fail(error, f"invalid option {where}: {first['msg']}", ConfigError.exit_code)
    except KeyboardInterrupt:
        console.print("interrupted: run the same command again to resume")
        raise SystemExit(130) from None


def _fail(error: BaseException, message: str, code: int) -> None:
    if _state["debug"]:
        console.print_exception()
    console.print(f"[red]error:[/red] {message}", highlight=False, soft_wrap=True)
    raise SystemExit(code) from None
