"""Ablations (paper Table 4) and baselines, trained and evaluated as one table.

Variants (names usable in ``--variants``; groups expand to several):

    backbone        the backbone before fine-tuning (no training)
    all             cos + ibn + angle (AnglE, the paper's setting)
    wo-ibn          w/o in-batch negatives          wo-angle   w/o angle objective
    only-cos        cosine only (CoSENT/SBERT-style baseline)
    only-ibn        in-batch negatives only         only-angle angle objective only
    wo-isp          all objectives, no identical-sentence detection
    pool-cls-avg, pool-avg, pool-max, pool-last, pool-first-last-avg   AnglE with that pooling

    groups: baselines = backbone, only-cos, all;  objectives = all, wo-ibn, wo-angle,
    only-cos, only-ibn, only-angle, wo-isp;  pooling = all + pool-*;  paper = all of them.

Each trained variant lives in ``OUTPUT/<variant>/`` (a normal training run, resumable); a
variant with a finished ``result.json`` is not trained again, so an interrupted ablation
resumes where it stopped.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from issues_sts.errors import ConfigError
from training.config import AblationConfig, TrainConfig
from training.data import eval_pairs
from training.evaluation import SimilarityEvaluator
from training.models import build_encoder, encoder_type
from training.plots import plot_similarity_density
from training.trainer import train

#: name -> (table label, loss overrides, pooling override); None overrides = no training
VARIANTS: dict[str, tuple[str, dict[str, Any] | None, str | None]] = {
    "backbone": ("backbone (no fine-tuning)", None, None),
    "all": ("AnglE (cos + ibn + angle)", {}, None),
    "wo-ibn": ("- w/o ibn", {"w_ibn": 0.0}, None),
    "wo-angle": ("- w/o angle", {"w_angle": 0.0}, None),
    "only-cos": ("only cosine (CoSENT)", {"w_ibn": 0.0, "w_angle": 0.0}, None),
    "only-ibn": ("only ibn", {"w_cos": 0.0, "w_angle": 0.0}, None),
    "only-angle": ("only angle", {"w_cos": 0.0, "w_ibn": 0.0}, None),
    "wo-isp": ("- w/o identical-sentence detection", {"identical_detection": False}, None),
    "pool-cls-avg": ("pooling cls-avg (cls-last-avg)", {}, "cls-avg"),
    "pool-avg": ("pooling avg (last-avg)", {}, "avg"),
    "pool-max": ("pooling max (last-max)", {}, "max"),
    "pool-last": ("pooling last token", {}, "last"),
    "pool-first-last-avg": ("pooling first-last-avg", {}, "first-last-avg"),
}
GROUPS = {
    "baselines": ["backbone", "only-cos", "all"],
    "objectives": ["all", "wo-ibn", "wo-angle", "only-cos", "only-ibn", "only-angle", "wo-isp"],
    "pooling": ["all", "pool-cls-avg", "pool-avg", "pool-max", "pool-last", "pool-first-last-avg"],
}
GROUPS["paper"] = ["backbone", *GROUPS["objectives"], *GROUPS["pooling"][1:]]
TABLE_METRICS = ("spearman", "pearson", "roc_auc", "accuracy", "f1")


def expand_variants(names: list[str]) -> list[str]:
    chosen: list[str] = []
    for name in names:
        for variant in GROUPS.get(name, [name]):
            if variant not in VARIANTS:
                known = ", ".join([*GROUPS, *VARIANTS])
                raise ConfigError(  # a usage error (exit 2), found before any training
                    f"unknown ablation variant {variant!r}", hint=f"choose from {known}"
                )
            if variant not in chosen:
                chosen.append(variant)
    return chosen


class AblationResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    rows: list[dict[str, Any]]
    table_path: Path


def variant_config(base: TrainConfig, name: str) -> TrainConfig:
    _, overrides, pooling = VARIANTS[name]
    loss = base.loss.model_copy(update=overrides or {})
    return base.model_copy(
        update={
            "output": Path(base.output) / name,
            "loss": type(base.loss).model_validate(loss.model_dump()),
            "pooling": pooling or base.pooling,
        }
    )


def run_variant(config: AblationConfig, name: str) -> dict[str, Any]:
    """Train (unless `backbone`) and evaluate one variant on the ablation's split."""
    base = config.base
    run = variant_config(base, name)
    done = Path(run.output) / "result.json"
    if done.is_file():
        return json.loads(done.read_text())
    row: dict[str, Any] = {"variant": name, "label": VARIANTS[name][0]}
    if VARIANTS[name][1] is None:
        encoder = build_encoder(base.model, base.pooling, base.max_length)
        row.update(steps=0, train_seconds=0.0)
    else:
        result = train(run)
        encoder = build_encoder(str(result.model_dir))
        row.update(
            steps=result.steps,
            train_seconds=round(result.train_seconds, 1),
            valid_spearman=result.best_metric,
        )
    pairs = eval_pairs(
        base.data, config.split, base.max_eval_pairs, limit_option="--max-eval-pairs"
    )
    evaluator = SimilarityEvaluator(pairs, config.split, base.eval_batch_size, base.max_length)
    metrics = evaluator(encoder)
    row.update({k: metrics[k] for k in TABLE_METRICS})
    Path(run.output).mkdir(parents=True, exist_ok=True)
    plot_similarity_density(
        evaluator.last_scores,
        pairs.labels,
        Path(run.output) / f"{config.split}-density.png",
        f"{row['label']}: Spearman {metrics['spearman']:.2f}",
    )
    done.write_text(json.dumps(row, indent=2) + "\n")
    return row


def render_markdown(rows: list[dict[str, Any]], split: str) -> str:
    head = f"| variant | {split} Spearman x100 | Pearson x100 | ROC-AUC | acc | F1 | steps |"
    lines = [head, "|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(
            f"| {r['label']} | {r['spearman']:.2f} | {r['pearson']:.2f} | {r['roc_auc']:.4f} "
            f"| {r['accuracy']:.4f} | {r['f1']:.4f} | {r['steps']} |"
        )
    return "\n".join(lines) + "\n"


def run_ablation(config: AblationConfig) -> AblationResult:
    root = Path(config.base.output)
    root.mkdir(parents=True, exist_ok=True)
    (root / "ablation_config.json").write_text(config.model_dump_json(indent=2) + "\n")
    names = expand_variants(config.variants)
    if encoder_type(config.base.model or "") == "ran":
        # RAN pools its own window cells: BERT pooling variants do not apply.
        names = [n for n in names if VARIANTS[n][2] is None]
    rows = [run_variant(config, name) for name in names]
    table = root / "ablation.md"
    table.write_text(render_markdown(rows, config.split))
    (root / "ablation.json").write_text(json.dumps(rows, indent=2) + "\n")
    columns = sorted(
        {key for row in rows for key in row}, key=lambda k: (k not in ("variant", "label"), k)
    )
    with (root / "ablation.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    return AblationResult(rows=rows, table_path=table)
