"""RAN vs. BERT: forward+backward time and peak memory by input length, on CPU, in one run.

    .venv/bin/python -m benchmarks.ran            # 768 wide, 1 RAN layer vs. size-matched BERT
    .venv/bin/python -m benchmarks.ran --full     # ran-base (7 layers) vs. size-matched BERT

Both models are 768 wide and built from a config (no download); BERT gets as many layers as
brings its parameter count closest to the RAN's, and `max_position_embeddings` raised to the
longest length so that it can run past its real 512-token cap: that shows what quadratic
attention would cost. BERT keeps its training-time attention dropout (0.1), so its attention
matrices are materialised as in training. The default run keeps the width but cuts depth so
the whole table takes a few minutes (and BERT at 4096 tokens ~3 GB rather than ~20 GB) on a
small shared CPU; per-layer costs, and so the ratios, are what the depth cut preserves.

Each point runs in a fresh subprocess: one warm-up pass on a short input, then one timed
forward+backward on `--batch` texts of the given length. Peak memory is the growth of the
process's peak resident set during the timed pass (ru_maxrss), which covers activations
kept for backward, gradients and temporaries. Threads are pinned (default 1) because a
shared 2-core machine makes multi-threaded timings erratic.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from dataclasses import dataclass

import torch

BERT_LAYER_PARAMS = 12 * 768 * 768 + 13 * 768  # attention 4 D^2 + FFN 8 D^2, biases, norms


@dataclass(frozen=True)
class Point:
    model: str
    length: int
    seconds: float
    peak_mb: float
    params: int


def build(model: str, layers: int, max_length: int) -> torch.nn.Module:
    if model == "ran":
        from training.models.ran import RanEncoder
        from training.models.ran_config import preset

        return RanEncoder(preset("ran-base", num_layers=layers, max_seq_length=max_length))
    from transformers import BertConfig, BertModel

    config = BertConfig(num_hidden_layers=layers, max_position_embeddings=max(512, max_length))
    return BertModel(config, add_pooling_layer=False)


def step(module: torch.nn.Module, model: str, batch: int, length: int) -> None:
    """One forward+backward on random token ids (no padding)."""
    ids = torch.randint(1000, 29000, (batch, length))
    mask = torch.ones_like(ids)
    if model == "ran":
        embedding = module({"input_ids": ids, "attention_mask": mask})["sentence_embedding"]
    else:
        embedding = module(input_ids=ids, attention_mask=mask).last_hidden_state[:, 0]
    embedding.pow(2).sum().backward()
    # keep the gradient buffers: the timed pass then measures activations, not allocation
    module.zero_grad(set_to_none=False)


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize() / 2**20


def worker(model: str, layers: int, length: int, batch: int, threads: int, repeats: int) -> Point:
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    module = build(model, layers, length).train()
    step(module, model, batch, 64)  # warm-up: allocator and kernels, not measured
    before = rss_mb()
    timings = []
    for _ in range(repeats):
        started = time.perf_counter()
        step(module, model, batch, length)
        timings.append(time.perf_counter() - started)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    params = sum(p.numel() for p in module.parameters())
    return Point(model, length, min(timings), max(0.0, peak - before), params)


def matching_bert_layers(ran_layers: int) -> int:
    from training.models.ran import RanEncoder
    from training.models.ran_config import preset

    with torch.device("meta"):
        ran = RanEncoder(preset("ran-base", num_layers=ran_layers))
        bert0 = build("bert", 0, 512)
    gap = sum(p.numel() for p in ran.parameters()) - sum(p.numel() for p in bert0.parameters())
    return max(1, round(gap / BERT_LAYER_PARAMS))


def measure(model: str, layers: int, length: int, args: argparse.Namespace) -> Point | None:
    command = [sys.executable, "-m", "benchmarks.ran", "--worker", model, "--layers", str(layers),
               "--length", str(length), "--batch", str(args.batch), "--threads", str(args.threads),
               "--repeats", str(args.repeats)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
    if done.returncode != 0:
        print(f"  {model} at {length}: failed ({done.stderr.strip().splitlines()[-1:]})")
        return None
    return Point(**json.loads(done.stdout.strip().splitlines()[-1]))


def report(points: dict[tuple[str, int], Point], lengths: list[int]) -> None:
    print(f"\n{'tokens':>7} | {'RAN s':>7} {'BERT s':>7} {'BERT/RAN':>8} | "
          f"{'RAN MB':>7} {'BERT MB':>8} {'BERT/RAN':>8}")  # fmt: skip
    for length in lengths:
        ran, bert = points.get(("ran", length)), points.get(("bert", length))
        cells = [f"{length:>7} |"]
        cells.append(f"{ran.seconds:>7.2f}" if ran else f"{'-':>7}")
        cells.append(f"{bert.seconds:>7.2f}" if bert else f"{'-':>7}")
        cells.append(f"{bert.seconds / ran.seconds:>7.2f}x |" if ran and bert else f"{'-':>8} |")
        cells.append(f"{ran.peak_mb:>7.0f}" if ran else f"{'-':>7}")
        cells.append(f"{bert.peak_mb:>8.0f}" if bert else f"{'-':>8}")
        ratio = bert.peak_mb / ran.peak_mb if ran and bert and ran.peak_mb else None
        cells.append(f"{ratio:>7.2f}x" if ratio else f"{'-':>8}")
        print(" ".join(cells))
    print("\ngrowth from the shortest to the longest length (linear = length ratio):")
    first, last = lengths[0], lengths[-1]
    for model in ("ran", "bert"):
        a, b = points.get((model, first)), points.get((model, last))
        if a and b:
            print(f"  {model.upper():>4}: time x{b.seconds / a.seconds:.1f}, memory "
                  f"x{b.peak_mb / max(a.peak_mb, 1.0):.1f} for x{last / first:.0f} "
                  "tokens")  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="ran-base depth (7 layers)")
    parser.add_argument("--layers", type=int, default=None, help="RAN layers (default 1; --full 7)")
    parser.add_argument("--lengths", default="512,1024,2048,4096")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=1, help="timed passes; the fastest counts")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per point")
    parser.add_argument("--worker", choices=("ran", "bert"), help=argparse.SUPPRESS)
    parser.add_argument("--length", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        point = worker(
            args.worker, args.layers, args.length, args.batch, args.threads, args.repeats
        )
        print(json.dumps(point.__dict__))
        return
    ran_layers = args.layers or (7 if args.full else 1)
    bert_layers = matching_bert_layers(ran_layers)
    lengths = [int(x) for x in args.lengths.split(",")]
    print(f"RAN: 768 wide, {ran_layers} layers, window 256 | BERT: 768 wide, {bert_layers} layers "
          f"| batch {args.batch}, {args.threads} thread(s), CPU, forward+backward")  # fmt: skip
    points: dict[tuple[str, int], Point] = {}
    for length in lengths:
        for model, layers in (("ran", ran_layers), ("bert", bert_layers)):
            measured = measure(model, layers, length, args)
            if measured:
                points[(model, length)] = point = measured
                print(f"  {model:>4} {length:>5} tokens: {point.seconds:6.2f} s, "
                      f"{point.peak_mb:6.0f} MB, {point.params / 1e6:.1f}M "
                      "params", flush=True)  # fmt: skip
    report(points, lengths)


if __name__ == "__main__":
    main()
