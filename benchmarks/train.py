"""Training throughput, peak memory and test Spearman: this module vs angle-emb's own trainer
and sentence-transformers' fit.

    .venv/bin/python -m benchmarks.train [--steps 6] [--batch 16] [--length 128]
    .venv/bin/python -m benchmarks.train --data data/demo/dataset --steps 40 --eval-pairs 400

Same model (the offline all-MiniLM-L6-v2, mean pooling), same pairs, same batch size,
length, learning rate (no warmup, linear decay) and fp32 precision. Without `--data` the
pairs are synthetic (long enough to fill `--length` tokens) and only speed and memory mean
something; with `--data` (a built dataset folder) every row trains on the first
steps x batch pairs of its train split and is scored on the first `--eval-pairs` pairs of
its test split (Spearman x100 of cosine, one evaluator for every row). Each configuration
runs in its own process (peak RSS is per process; on CUDA, peak allocated GPU memory).
Throughput is pairs/s over steps 2..N, so model loading and the first step's warm-up are
excluded for all. Rows:

    angle-emb AnglE.fit    the paper authors' library (0.6.1), paper objective cos + ibn +
                           angle with weights 1/1/1 and taus 20/20/1, no duplicate filtering
    sentence-transformers  SentenceTransformerTrainer + AnglELoss (angle objective only)
    training (AnglE)       this module, the same paper objective
    training bf16          the same with bf16 autocast (slower on CPUs without bf16 units)
    training attn-drop 0   the same with attention dropout 0 (MiniLM's default is 0.1)

Targets: training (AnglE) / angle-emb >= 1.0x pairs/s and test Spearman equal within noise;
training (AnglE) / sentence-transformers >= 1.0x pairs/s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORDS = [
    "error",
    "borrow",
    "checker",
    "cargo",
    "build",
    "fails",
    "nightly",
    "stable",
    "trait",
    "async",
    "lifetime",
    "macro",
    "panic",
    "linker",
    "windows",
    "linux",
    "compile",
    "version",
    "update",
    "crate",
    "feature",
    "test",
    "doc",
    "regression",
]


def make_pairs(count: int, length_words: int, seed: int = 0) -> dict[str, list]:
    rng = random.Random(seed)
    first = [" ".join(rng.choices(WORDS, k=length_words)) for _ in range(count)]
    second = [" ".join(rng.choices(WORDS, k=length_words)) for _ in range(count)]
    return {"text1": first, "text2": second, "label": [i % 2 for i in range(count)]}


def peak_memory_mb() -> float:
    import torch

    if torch.cuda.is_available():
        return torch.cuda.max_memory_allocated() / 2**20
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def rate(stamps: list[float], batch: int) -> float:
    """Pairs per second between the end of step 1 and the end of the last step."""
    return (len(stamps) - 1) * batch / (stamps[-1] - stamps[0])


def train_pairs(args: argparse.Namespace) -> dict[str, list]:
    """The pairs every row trains on: the dataset's first steps x batch, or synthetic ones."""
    if not args.data:
        return make_pairs(args.batch * args.steps, args.length)
    from training.data import load_pairs

    pairs = load_pairs(args.data, "train", args.batch * args.steps)
    return {"text1": pairs.text1, "text2": pairs.text2, "label": pairs.labels.tolist()}


def test_spearman(encoder, args: argparse.Namespace) -> float | None:
    """Test Spearman x100 of any `training.models.Encoder`, the same evaluator for every row."""
    if not args.data:
        return None
    from training.data import load_pairs
    from training.evaluation import SimilarityEvaluator

    pairs = load_pairs(args.data, "test", args.eval_pairs)
    return SimilarityEvaluator(pairs, "test", 64, args.length)(encoder)["spearman"]


def run_ours(args: argparse.Namespace, workdir: Path) -> dict[str, float | None]:
    import polars as pl

    from training.config import TrainConfig
    from training.trainer import Trainer

    (workdir / "data").mkdir(parents=True)
    pl.DataFrame(train_pairs(args)).write_parquet(workdir / "data" / "train-00000-of-00001.parquet")
    config = TrainConfig(
        data=str(workdir),
        output=workdir / "run",
        pooling="avg",
        max_length=args.length,
        batch_size=args.batch,
        max_steps=args.steps,
        learning_rate=1e-5,
        warmup_steps=0,
        valid_split=None,
        logging_steps=1,
        progress=False,
        precision="bf16" if args.bf16 else "fp32",
        attention_dropout=args.attention_dropout,
    )
    trainer = Trainer(config)
    trainer.fit()
    stamps = [r["time"] for r in json.loads((workdir / "run" / "metrics.json").read_text())]
    return {
        "pairs_per_s": rate(stamps, args.batch),
        "peak_mb": peak_memory_mb(),
        "spearman": test_spearman(trainer.encoder, args),
    }


def run_angle_emb(args: argparse.Namespace, workdir: Path) -> dict[str, float | None]:
    """angle-emb's own `AnglE.fit` (a Hugging Face Trainer) on the same model and pairs."""
    import warnings

    from datasets import Dataset
    from transformers import TrainerCallback

    with warnings.catch_warnings():  # bitsandbytes warns about missing CPU kernels
        warnings.simplefilter("ignore")
        from angle_emb import AnglE
        from angle_emb import angle as angle_module

    from training.models.bert import BertEncoder, offline_backbone

    stamps: list[float] = []

    class Stamp(TrainerCallback):
        def on_step_end(self, *_args, **_kwargs):
            stamps.append(time.time())

    original_init = angle_module.AngleTrainer.__init__

    def with_stamps(self, *a, **k):  # AnglE.fit builds its trainer itself: add our clock to it
        original_init(self, *a, **k)
        self.add_callback(Stamp())

    angle_module.AngleTrainer.__init__ = with_stamps
    angle = AnglE.from_pretrained(
        offline_backbone(),
        max_length=args.length,
        pooling_strategy="avg",
        device="cuda" if _cuda() else "cpu",
    )
    angle.fit(
        train_ds=Dataset.from_dict(train_pairs(args)),
        output_dir=str(workdir / "angle"),
        batch_size=args.batch,
        epochs=1,
        learning_rate=1e-5,
        warmup_steps=0,
        logging_steps=10**6,
        save_strategy="no",
        bf16=args.bf16,
        filter_duplicate=False,
        argument_kwargs={
            "max_steps": args.steps,
            "report_to": "none",
            "disable_tqdm": True,
            "dataloader_num_workers": 0,
            "seed": 42,
        },
        loss_kwargs={
            "cosine_w": 1.0,
            "ibn_w": 1.0,
            "angle_w": 1.0,
            "cosine_tau": 20.0,
            "ibn_tau": 20.0,
            "angle_tau": 1.0,
        },
    )
    speed = rate(stamps, args.batch)
    model = getattr(angle.backbone, "_orig_mod", angle.backbone)  # fit wraps it in torch.compile
    encoder = BertEncoder(model, angle.tokenizer, pooling="avg", max_seq_length=args.length)
    return {
        "pairs_per_s": speed,
        "peak_mb": peak_memory_mb(),
        "spearman": test_spearman(encoder, args),
    }


def run_sentence_transformers(args: argparse.Namespace, workdir: Path) -> dict[str, float]:
    from datasets import Dataset
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.losses import AnglELoss
    from sentence_transformers.sentence_transformer.trainer import SentenceTransformerTrainer
    from sentence_transformers.sentence_transformer.training_args import (
        SentenceTransformerTrainingArguments,
    )
    from transformers import TrainerCallback

    from training.models.bert import offline_backbone

    stamps: list[float] = []

    class Stamp(TrainerCallback):
        def on_step_end(self, *_args, **_kwargs):
            stamps.append(time.time())

    model = SentenceTransformer(offline_backbone(), device="cpu" if not _cuda() else "cuda")
    model.max_seq_length = args.length
    dataset = Dataset.from_dict(train_pairs(args))
    training_args = SentenceTransformerTrainingArguments(
        output_dir=str(workdir / "st"),
        max_steps=args.steps,
        per_device_train_batch_size=args.batch,
        learning_rate=1e-5,
        warmup_steps=0,
        save_strategy="no",
        report_to="none",
        logging_steps=10**6,
        bf16=args.bf16,
        dataloader_num_workers=0,
        disable_tqdm=True,
        seed=42,
    )
    trainer = SentenceTransformerTrainer(
        model=model,
        args=training_args,
        train_dataset=dataset,
        loss=AnglELoss(model),
        callbacks=[Stamp()],
    )
    trainer.train()
    speed = rate(stamps, args.batch)
    from training.models.bert import BertEncoder

    transformer = model[0]
    encoder = BertEncoder(
        transformer.auto_model if hasattr(transformer, "auto_model") else transformer.model,
        model.tokenizer,
        pooling="avg",
        max_seq_length=args.length,
    )
    return {
        "pairs_per_s": speed,
        "peak_mb": peak_memory_mb(),
        "spearman": test_spearman(encoder, args),
    }


def _cuda() -> bool:
    import torch

    return torch.cuda.is_available()


def worker(args: argparse.Namespace) -> None:
    import torch

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        runner = {"ours": run_ours, "st": run_sentence_transformers, "angle-emb": run_angle_emb}[
            args.worker
        ]
        print(json.dumps(runner(args, Path(tmp))))


ROWS = [
    ("angle-emb AnglE.fit (paper objective)", ["--worker", "angle-emb"]),
    ("sentence-transformers fit + AnglELoss", ["--worker", "st"]),
    ("training (AnglE, fp32)", ["--worker", "ours"]),
    ("training bf16 autocast", ["--worker", "ours", "--bf16"]),
    ("training attention dropout 0", ["--worker", "ours", "--attention-dropout", "0.0"]),
]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--batch", type=int, default=8, help="pairs per step")
    parser.add_argument("--length", type=int, default=64, help="max tokens per text")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch threads per run (1: stable on shared machines)",
    )
    parser.add_argument(
        "--repeats", type=int, default=2, help="runs per row, interleaved; the best counts"
    )
    parser.add_argument(
        "--data", default=None, help="a built dataset folder: train on it, report test Spearman"
    )
    parser.add_argument("--eval-pairs", type=int, default=400, help="test pairs scored with --data")
    parser.add_argument(
        "--rows", default="all", help="comma list of row numbers (1-based) to run, or all"
    )
    parser.add_argument("--worker", choices=["ours", "st", "angle-emb"])
    parser.add_argument("--bf16", action="store_true")
    parser.add_argument("--attention-dropout", type=float, default=None)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    common = [
        "--steps",
        str(args.steps),
        "--batch",
        str(args.batch),
        "--length",
        str(args.length),
        "--threads",
        str(args.threads),
        "--eval-pairs",
        str(args.eval_pairs),
    ]
    if args.data:
        common += ["--data", args.data]
    rows = ROWS if args.rows == "all" else [ROWS[int(i) - 1] for i in args.rows.split(",")]
    results: dict[str, dict[str, float]] = {}
    # Interleaved repeats, best run kept: other load on a shared machine slows runs at random.
    for _ in range(args.repeats):
        for name, extra in rows:
            row = run_row(name, [*common, *extra])
            if row and row["pairs_per_s"] > results.get(name, {}).get("pairs_per_s", 0.0):
                results[name] = row
    report(results, args)


def run_row(name: str, arguments: list[str]) -> dict[str, float] | None:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.train", *arguments],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    if done.returncode != 0:
        print(f"{name}: failed\n{done.stderr[-2000:]}", file=sys.stderr)
        return None
    row = json.loads(done.stdout.strip().splitlines()[-1])
    print(
        f"  {name}: {row['pairs_per_s']:.2f} pairs/s, peak {row['peak_mb']:.0f} MB",
        file=sys.stderr,
        flush=True,
    )
    return row


def report(results: dict[str, dict[str, float]], args: argparse.Namespace) -> None:
    base = results.get(ROWS[0][0])
    data = (
        f"{args.data} (test: first {args.eval_pairs} pairs)"
        if args.data
        else "synthetic pairs (no Spearman)"
    )
    print(
        f"\ntraining: MiniLM-L6 mean pooling, batch {args.batch} pairs, {args.length} tokens, "
        f"{args.steps} steps, {args.threads} threads, best of {args.repeats}; data: {data}"
    )
    print(
        f"{'configuration':40} {'pairs/s':>9} {'vs AE':>7} {'peak MB':>9} {'vs AE':>7} "
        f"{'test Sp.':>9}"
    )
    for name, row in results.items():
        speed = f"{row['pairs_per_s'] / base['pairs_per_s']:.2f}x" if base else "-"
        memory = f"{row['peak_mb'] / base['peak_mb']:.2f}x" if base else "-"
        spearman = f"{row['spearman']:.2f}" if row.get("spearman") is not None else "-"
        print(
            f"{name:40} {row['pairs_per_s']:9.2f} {speed:>7} {row['peak_mb']:9.0f} {memory:>7} "
            f"{spearman:>9}"
        )
    ours = results.get(ROWS[2][0])
    for label, other in (("angle-emb", base), ("sentence-transformers", results.get(ROWS[1][0]))):
        if other and ours:
            ratio = ours["pairs_per_s"] / other["pairs_per_s"]
            print(
                f"target pairs/s vs {label} >= 1.0x: {'met' if ratio >= 1.0 else 'NOT met'} "
                f"({ratio:.2f}x)"
            )
    if base and ours and base.get("spearman") is not None and ours.get("spearman") is not None:
        print(
            f"test Spearman: training {ours['spearman']:.2f} vs angle-emb {base['spearman']:.2f} "
            f"(difference {ours['spearman'] - base['spearman']:+.2f})"
        )


if __name__ == "__main__":
    main()
