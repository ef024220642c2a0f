"""The Python API (what the CLI and the demo call).

from training.api import TrainConfig, train, evaluate
result = train(TrainConfig(data="data/dataset", output="runs/angle", max_length=128))
metrics = evaluate(result.model_dir, "data/dataset", split="test", plot="runs/angle/test.png")
metrics["spearman"]   # x100, the paper's metric
"""

from __future__ import annotations

import json
from pathlib import Path

from issues_sts.errors import OutputError, os_errors
from training.ablate import AblationConfig, AblationResult, run_ablation
from training.checkpoint import PROGRESS_FILE
from training.config import EVAL_BATCH_SIZE, EVAL_SPLIT, TrainConfig, TrainResult
from training.data import eval_pairs
from training.evaluation import SimilarityEvaluator
from training.losses import LossConfig
from training.models import build_encoder
from training.plots import plot_similarity_density
from training.trainer import train  # train(config, encoder=None) -> TrainResult

__all__ = [
    "AblationConfig",
    "AblationResult",
    "LossConfig",
    "TrainConfig",
    "TrainResult",
    "ablate",
    "evaluate",
    "train",
]


def evaluate(
    model: str | Path | None,
    data: str,
    split: str = EVAL_SPLIT,
    *,
    pooling: str | None = None,
    max_length: int | None = None,
    batch_size: int = EVAL_BATCH_SIZE,
    max_pairs: int | None = None,
    plot: str | Path | None = None,
    output: str | Path | None = None,
) -> dict[str, float]:
    """Spearman x100 (primary), Pearson, ROC-AUC, best-threshold accuracy/F1 of `model` on
    `split`; optionally the density plot (PNG) and the metrics (JSON) written to disk.
    `model` None evaluates the untrained offline backbone."""
    pairs = eval_pairs(data, split, max_pairs)  # a wrong split fails before the model loads
    encoder = build_encoder(str(resolve_model(model)) if model else None, pooling, max_length)
    evaluator = SimilarityEvaluator(pairs, split, batch_size, max_length)
    metrics = evaluator(encoder)
    if plot:
        title = (
            f"{Path(str(model)).name if model else 'backbone'} on {split}: Spearman "
            f"{metrics['spearman']:.2f}"
        )
        with os_errors(OutputError, f"--plot {plot} cannot be written"):
            plot_similarity_density(evaluator.last_scores, pairs.labels, Path(plot), title)
    if output:
        with os_errors(OutputError, f"--json-out {output} cannot be written"):
            Path(output).parent.mkdir(parents=True, exist_ok=True)
            Path(output).write_text(json.dumps(metrics, indent=2, allow_nan=False) + "\n")
    return metrics


def resolve_model(model: str | Path) -> str | Path:
    """A run folder (what `train --out` wrote) stands for its best checkpoint, else its last;
    anything else (a model folder, a Hub id, a preset name) is returned unchanged."""
    folder = Path(str(model))
    for checkpoint in ("best", "last"):
        if (
            not (folder / "encoder.json").is_file()
            and (folder / checkpoint / PROGRESS_FILE).is_file()
        ):
            return folder / checkpoint
    return model


def ablate(config: AblationConfig) -> AblationResult:
    """Paper Table 4 (objectives, pooling) plus baselines, as one table."""
    return run_ablation(config)
