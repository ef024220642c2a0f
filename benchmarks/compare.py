"""Does fine-tuning help on this data? AnglE vs cosine-only vs the untrained backbone, over
several seeds, with bootstrap confidence intervals on test Spearman.

    .venv/bin/python -m benchmarks.compare --dataset data/dataset --seeds 0,1,2 --max-length 128

Every model is evaluated at the same length, each with its proper pooling: the untrained
all-MiniLM-L6-v2 as its own sentence-transformers config says (mean + normalise), the
fine-tuned ones with the same pooling they were trained with (the default: the backbone's
own). The backbone with [CLS] pooling (the project's old default) is shown for reference.

Per seed, `angle` (cos + ibn + angle, the paper's weights) and `cos-only` (CoSENT) train one
run each (`--out/seed-N/{angle,cos-only}`, resumable: a finished run is not trained again).
Confidence intervals: 2,000 bootstrap resamples of the test pairs; in each resample every
model's Spearman is averaged over the seeds, so an interval covers test-set sampling and,
through the seed average, the training runs at hand (not seeds never run). The difference
intervals are paired (same resamples for both models).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from scipy.stats import rankdata

# `python -m benchmarks all` skips this one, saying why: it has no dataset of its own to default to
NEEDS = "--dataset DIR (a built dataset, e.g. make demo's data/demo/dataset)"


def spearman_rows(scores: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Spearman x100 of each row of `scores` [R, N] against the matching row of `labels` [R, N]."""
    a = np.apply_along_axis(rankdata, 1, scores)
    b = np.apply_along_axis(rankdata, 1, labels)
    a -= a.mean(axis=1, keepdims=True)
    b -= b.mean(axis=1, keepdims=True)
    return 100 * (a * b).sum(axis=1) / np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1))


def bootstrap(
    models: dict[str, list[np.ndarray]], labels: np.ndarray, resamples: int, seed: int = 0
) -> dict[str, np.ndarray]:
    """Seed-averaged Spearman of every model on each bootstrap resample of the test pairs."""
    rng = np.random.default_rng(seed)
    index = rng.integers(0, len(labels), size=(resamples, len(labels)))
    resampled_labels = labels[index]
    return {
        name: np.mean([spearman_rows(s[index], resampled_labels) for s in runs], axis=0)
        for name, runs in models.items()
    }


def interval(values: np.ndarray) -> str:
    low, high = np.percentile(values, [2.5, 97.5])
    return f"[{low:.2f}, {high:.2f}]"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dataset", required=True, help="a built dataset folder (or Hub id)")
    parser.add_argument(
        "--out", type=Path, default=Path("runs/compare"), help="run folders and compare.json"
    )
    parser.add_argument(
        "--model", default=None, help="backbone (default: the offline all-MiniLM-L6-v2)"
    )
    parser.add_argument("--seeds", default="0,1,2", help="comma list of training seeds")
    parser.add_argument("--max-length", type=int, default=128)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--lr", type=float, default=2e-5)
    parser.add_argument("--warmup-steps", type=int, default=10)
    parser.add_argument("--max-train-pairs", type=int, default=None)
    parser.add_argument(
        "--max-pairs", type=int, default=None, help="test pairs evaluated (default: all)"
    )
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument(
        "--threads", type=int, default=1, help="torch threads (1: stable on shared machines)"
    )
    args = parser.parse_args()

    import torch

    from training.api import LossConfig, TrainConfig, train
    from training.data import load_pairs
    from training.evaluation import cosine_scores
    from training.models import build_encoder, load_encoder

    torch.set_num_threads(args.threads)
    seeds = [int(s) for s in args.seeds.split(",")]
    test = load_pairs(args.dataset, "test", args.max_pairs)
    labels = test.labels.astype(np.float64)
    models: dict[str, list[np.ndarray]] = {}
    started = time.time()
    # a backbone without a sentence-transformers config has [CLS] as its own: the rows coincide
    for name, pooling in (
        ("backbone, its own pooling", None),
        ("backbone, [CLS] (old default)", "cls"),
    ):
        models[name] = [
            cosine_scores(
                build_encoder(args.model, pooling, args.max_length),
                test,
                max_length=args.max_length,
            )
        ]
    objectives = {
        "AnglE (cos+ibn+angle)": LossConfig(),
        "cosine only (CoSENT)": LossConfig(w_ibn=0.0, w_angle=0.0),
    }
    rows: list[dict[str, object]] = []
    for seed in seeds:
        for name, loss in objectives.items():
            folder = (
                args.out / f"seed-{seed}" / ("angle" if name.startswith("AnglE") else "cos-only")
            )
            config = TrainConfig(
                data=args.dataset,
                output=folder,
                model=args.model,
                max_length=args.max_length,
                batch_size=args.batch_size,
                epochs=args.epochs,
                learning_rate=args.lr,
                warmup_steps=args.warmup_steps,
                seed=seed,
                valid_split=None,
                max_train_pairs=args.max_train_pairs,
                progress=False,
                loss=loss,
            )
            result = train(config)
            if (
                result.interrupted
            ):  # Ctrl-C: the run is checkpointed; rerunning this command resumes
                raise SystemExit(130)
            scores = cosine_scores(load_encoder(result.model_dir), test, max_length=args.max_length)
            models.setdefault(name, []).append(scores)
            rows.append(
                {
                    "model": name,
                    "seed": seed,
                    "steps": result.steps,
                    "train_seconds": round(result.train_seconds, 1),
                    "spearman": float(spearman_rows(scores[None], labels[None])[0]),
                }
            )
            print(
                f"  seed {seed} {name}: test Spearman {rows[-1]['spearman']:.2f} "
                f"({result.steps} steps, {result.train_seconds:.0f} s)",
                flush=True,
            )
    boot = bootstrap(models, labels, args.resamples)
    point = {
        name: float(np.mean([spearman_rows(s[None], labels[None])[0] for s in runs]))
        for name, runs in models.items()
    }
    spread = {
        name: float(np.std([spearman_rows(s[None], labels[None])[0] for s in runs]))
        for name, runs in models.items()
    }
    print(
        f"\ntest Spearman x100 on {len(labels)} pairs of {args.dataset}; seeds {seeds}; "
        f"{args.max_length} tokens, batch {args.batch_size}, lr {args.lr}, {args.epochs} epoch(s); "
        f"{args.resamples} bootstrap resamples ({time.time() - started:.0f} s)"
    )
    print(f"{'model':34} {'mean':>7} {'seed sd':>8} {'95% CI':>18}")
    for name in models:
        print(f"{name:34} {point[name]:7.2f} {spread[name]:8.2f} {interval(boot[name]):>18}")
    angle, cosine, own = (
        "AnglE (cos+ibn+angle)",
        "cosine only (CoSENT)",
        "backbone, its own pooling",
    )
    differences = {
        "AnglE - cosine only": boot[angle] - boot[cosine],
        "AnglE - backbone": boot[angle] - boot[own],
        "cosine only - backbone": boot[cosine] - boot[own],
    }
    print(f"\n{'paired difference':34} {'mean':>7} {'95% CI':>27}")
    for name, values in differences.items():
        print(f"{name:34} {float(np.mean(values)):7.2f} {interval(values):>27}")
    args.out.mkdir(parents=True, exist_ok=True)
    summary = {
        "args": {k: str(v) for k, v in vars(args).items()},
        "pairs": len(labels),
        "runs": rows,
        "mean": point,
        "seed_sd": spread,
        "ci95": {k: list(np.percentile(v, [2.5, 97.5])) for k, v in boot.items()},
        "differences_ci95": {
            k: [float(np.mean(v)), *np.percentile(v, [2.5, 97.5]).tolist()]
            for k, v in differences.items()
        },
    }
    (args.out / "compare.json").write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
