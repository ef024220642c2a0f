"""The model card (README.md) written into every checkpoint, so that pushing a run folder to
the Hub (`huggingface-cli upload`, `SentenceTransformer(...).push_to_hub`) publishes what the
model was trained on, with which objective and weights, and how it scored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from training.checkpoint import Progress
from training.config import TrainConfig
from training.models.base import Encoder


def _hub_id(value: str | None) -> str | None:
    """A Hub id (owner/name that is not a local path), else None."""
    if not value or Path(value).exists() or value.count("/") != 1:
        return None
    return value


def model_card(
    config: TrainConfig, progress: Progress, encoder: Encoder, custom_encoder: bool = False
) -> str:
    """`custom_encoder`: the run started from an encoder object handed to `train()` (Python
    API), so `config.model` does not name the base model."""
    loss = config.loss
    if custom_encoder:
        base = f"a {type(encoder).__name__} given to train()"
    else:
        base = config.model or "sentence-transformers/all-MiniLM-L6-v2 (offline copy)"
    header: dict[str, Any] = {
        "library_name": "sentence-transformers",
        "pipeline_tag": "sentence-similarity",
        "tags": ["sentence-transformers", "sentence-similarity", "angle", "issues-sts"],
    }
    if not custom_encoder and (_hub_id(config.model) or not config.model):
        header["base_model"] = _hub_id(config.model) or "sentence-transformers/all-MiniLM-L6-v2"
    if _hub_id(config.data):
        header["datasets"] = [config.data]
    metrics = progress.extra.get("last_eval", {})
    lines = [
        "---",
        yaml.safe_dump(header, sort_keys=False).strip(),
        "---",
        "",
        f"# AnglE fine-tune of {base}",
        "",
        "Trained with issues-sts on GitHub issue pairs (duplicates = 1, other issues = 0).",
        "",
        "## Data",
        "",
        f"- dataset: `{config.data}`, split `{config.train_split}`"
        + (f" (first {config.max_train_pairs} pairs)" if config.max_train_pairs else ""),
        f"- validation: `{config.valid_split}`" if config.valid_split else "- validation: none",
        "",
        "## Objective",
        "",
        f"- `{loss.w_cos} * cosine(tau {loss.cos_tau}) + {loss.w_ibn} * in-batch negatives(tau "
        f"{loss.ibn_tau}) + {loss.w_angle} * angle(tau {loss.angle_tau})`",
        f"- identical-text detection: {'on' if loss.identical_detection else 'off'}",
        "",
        "## Training",
        "",
        f"- pooling: `{getattr(encoder, 'pooling', 'RAN cells')}`, max_seq_length "
        f"{encoder.max_seq_length}",
        f"- {progress.step} steps, batch {config.batch_size} pairs x {config.grad_accumulation}, "
        f"lr {config.learning_rate}, warmup {config.warmup_steps}, seed {config.seed}, precision "
        f"{config.precision}",
    ]
    if metrics:
        lines += [
            "",
            "## Metrics",
            "",
            f"On `{config.valid_split}` at step {progress.extra.get('evaluated_step')}:",
            "",
            "| metric | value |",
            "|---|---:|",
        ]
        lines += [
            f"| {key} | {value:.4f} |" for key, value in metrics.items() if isinstance(value, float)
        ]
    if progress.best_metric is not None:
        lines += [
            "",
            f"Best {config.valid_split} Spearman x100: {progress.best_metric:.2f} (step "
            f"{progress.best_step}).",
        ]
    lines += [
        "",
        "## Use",
        "",
        "```python",
        "from sentence_transformers import SentenceTransformer",
        'model = SentenceTransformer("PATH_OR_HUB_ID"'
        + (", trust_remote_code=True" if _needs_code(encoder) else "")
        + ")",
        'embeddings = model.encode(["first issue", "second issue"])',
        "```",
        "",
    ]
    return "\n".join(lines)


def _needs_code(encoder: Encoder) -> bool:
    from training.models.st_format import ST_POOLING_KEYS

    return getattr(encoder, "pooling", None) not in ST_POOLING_KEYS
