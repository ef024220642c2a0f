"""Benchmark of `issues-sts build`: wall time and peak memory at growing store sizes, and the
statistics stage's tokenizer throughput against the raw `tokenizers` batch encoder.

    .venv/bin/python -m benchmarks.build                          # 10k, 100k, 1M issues
    .venv/bin/python -m benchmarks.build --sizes 10000,100000     # smaller
    .venv/bin/python -m benchmarks.build --link-stage fixed        # the build stage alone

Stores are generated (55 repositories, 5 % duplicates closed by a "Duplicate of #k" comment,
log-normal text lengths) under --work and reused by later runs. Each build runs in a fresh
child process, so its peak RSS is its own. Growth is reported per issue: linear scaling
keeps seconds/1k issues flat. The tokenizer comparison encodes the same texts with the
build's `token_lengths` and with one `Tokenizer.encode_batch` call (target ratio >= 0.8).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

DEFAULT_SIZES = (10_000, 100_000, 1_000_000)


def ensure_store(work: Path, n: int, seed: int) -> tuple[Path, float]:
    """The generated store for `n` issues (reused when complete); seconds spent generating."""
    from issues_sts.dataset.synthetic import write_generated_store

    root = work / f"store-{n}"
    done = root / "GENERATED"
    if done.exists():
        return root, 0.0
    if root.exists():
        import shutil

        shutil.rmtree(root)
    start = time.perf_counter()
    links = write_generated_store(root, n, n_repos=55, dup_share=0.05, seed=seed)
    links.links.write_parquet(root / "planted_links.parquet")
    done.write_text(str(n))
    return root, time.perf_counter() - start


def child(store: Path, out: Path, link_stage: str) -> None:
    """Run one build in this process and print its measurements as JSON."""
    import polars as pl

    from issues_sts.dataset.build import run_build
    from issues_sts.dataset.config import BuildConfig
    from issues_sts.dataset.synthetic import FixedLinks

    stage = None
    if link_stage == "fixed":
        planted = pl.read_parquet(store / "planted_links.parquet").select(
            "repo", "number", "target_repo", "target_number", "signal", "confidence", "usable", "excluded_reason")
        fixed = FixedLinks(planted)
        stage = lambda _store: fixed  # noqa: E731
    start = time.perf_counter()
    summary = run_build(BuildConfig(store=store, out=out), progress=False, link_stage=stage)
    wall = time.perf_counter() - start
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    pairs = sum(summary.sizes["default"].values())
    print(json.dumps({"wall_s": wall, "peak_mib": peak_kib / 1024, "pairs": pairs, "timings": summary.timings,
                      "positives": summary.counters["positives"]["positives"]}))


def measure_build(store: Path, out: Path, link_stage: str) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "benchmarks.build", "--child", str(store), "--out", str(out),
           "--link-stage", link_stage]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"build of {store} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def tokenizer_throughput(store: Path, n_texts: int) -> dict[str, float]:
    """texts/s of the build's token_lengths vs one raw encode_batch call, same texts."""
    from issues_sts.dataset.stats import load_tokenizer, token_lengths
    from issues_sts.dataset.texts import issue_texts
    from issues_sts.store import Store

    with Store.open(store) as opened:
        texts, _ = issue_texts(opened.issues_frame())
    sample = texts["text"].head(n_texts).to_list()
    tokenizer = load_tokenizer(None)
    tokenizer.encode_batch_fast(sample[:256])  # warm-up
    # The machine is shared: alternate the two, three rounds, and keep each one's best time.
    ours_s = raw_s = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        ours = token_lengths(tokenizer, sample)
        ours_s = min(ours_s, time.perf_counter() - start)
        start = time.perf_counter()
        raw = [len(e.ids) for e in tokenizer.encode_batch(sample)]
        raw_s = min(raw_s, time.perf_counter() - start)
    assert ours.tolist() == raw, "token_lengths disagrees with the raw encoder"
    chars = sum(map(len, sample))
    return {"texts": len(sample), "mean_chars": chars / len(sample), "ours_texts_per_s": len(sample) / ours_s,
            "raw_texts_per_s": len(sample) / raw_s, "ratio": raw_s / ours_s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)))
    parser.add_argument("--work", type=Path, default=Path("data/bench/build"))
    parser.add_argument("--link-stage", choices=("real", "fixed"), default="real",
                        help="real: issues_sts.links.build_links (a full build); fixed: the planted links")
    parser.add_argument("--tokenizer-texts", type=int, default=5_000,
                        help="texts of the smallest store for the tokenizer comparison (0: skip)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.out, args.link_stage)
        return
    args.work.mkdir(parents=True, exist_ok=True)
    rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        store, gen_s = ensure_store(args.work, n, args.seed)
        result = measure_build(store, args.work / f"out-{n}", args.link_stage)
        rows.append((n, result))
        print(f"n={n:>9,}  generate {gen_s:7.1f} s  build {result['wall_s']:7.1f} s  "
              f"({1000 * result['wall_s'] / n:.3f} s/1k issues)  peak {result['peak_mib']:7.0f} MiB  "
              f"pairs {result['pairs']:,}  stages {result['timings']}", flush=True)
    base_n, base = rows[0]
    for n, result in rows[1:]:
        scale = n / base_n
        print(f"x{scale:.0f} issues -> x{result['wall_s'] / base['wall_s']:.1f} time, "
              f"x{result['peak_mib'] / base['peak_mib']:.1f} peak memory")
    if args.tokenizer_texts <= 0:
        return
    tok_store, _ = ensure_store(args.work, rows[0][0], args.seed)
    tok = tokenizer_throughput(tok_store, args.tokenizer_texts)
    print(f"tokenizer: {tok['texts']:,} texts (mean {tok['mean_chars']:.0f} chars): build path "
          f"{tok['ours_texts_per_s']:,.0f} texts/s, raw encode_batch {tok['raw_texts_per_s']:,.0f} texts/s, "
          f"ratio {tok['ratio']:.2f}x (target >= 0.8x)")


if __name__ == "__main__":
    main()
