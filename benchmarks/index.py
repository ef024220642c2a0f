"""Benchmark of `issues-sts index` on the calibrated paper world: wall time, throughput and
the peak RSS of the whole process tree, with the pure embedding of the same texts measured in
the same run as the baseline (index time / embedding time: what the reading, hashing, chunk
commits and publishing add), then a second run over the unchanged store (what a re-crawl that
changed nothing costs).

    .venv/bin/python -m benchmarks.index                   # x0.05: about 100,000 issues
    .venv/bin/python -m benchmarks.index --scale 0.005     # about 10,000, then extrapolated

The store is written once per scale under --work (`benchmarks.build.ensure_paper_store`).
`index` runs as its own process (the installed console script), sampled for the resident
memory of its process tree. Below --scale 0.05, the x0.05 time is extrapolated linearly in
the number of issues (embedding dominates and is linear) and printed as an extrapolation.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

TARGET_SCALE = 0.05
SAMPLE = 300


def run_index(store: Path, out: Path, max_length: int, batch_size: int) -> dict[str, float]:
    from benchmarks.build import TreeRss

    script = Path(sys.executable).parent / "issues-sts"
    command = [str(script), "index", "--store", str(store), "--out", str(out), "--quiet"]
    command += ["--max-length", str(max_length), "--batch-size", str(batch_size)]
    start = time.perf_counter()
    with TreeRss() as rss:
        done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"index failed ({done.returncode}): {done.stderr[-2000:]}")
    manifest = json.loads((out / "index.json").read_text())
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    return {
        "seconds": seconds,
        "peak_rss": float(rss.peak),
        "rows": manifest["rows"],
        "embedded": manifest["last_run"]["embedded"],
        "bytes": float(size),
    }


def embedding_seconds(store: Path, max_length: int, batch_size: int, sample: int) -> float:
    """Seconds per text of the bare embedding (encode_texts) on the store's first texts."""
    from issues_sts.retrieval.encode import encode_texts, load_encoder
    from issues_sts.retrieval.rows import store_rows
    from issues_sts.store import Store

    with Store.open(store, readonly=True) as db:
        texts: list[str] = []
        for rows in store_rows(db, "readers"):
            texts += rows["text"].to_list()
            if len(texts) >= sample:
                break
    encoder = load_encoder(None, None, max_length)
    encode_texts(encoder, texts[:batch_size], batch_size=batch_size, max_length=max_length)
    start = time.perf_counter()
    encode_texts(encoder, texts[:sample], batch_size=batch_size, max_length=max_length)
    return (time.perf_counter() - start) / len(texts[:sample])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=TARGET_SCALE)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-length", type=int, default=128)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--sample", type=int, default=SAMPLE, help="texts of the bare embedding")
    parser.add_argument("--work", type=Path, default=Path("/tmp/issues-sts-bench-index"))
    args = parser.parse_args()
    from benchmarks.build import ensure_paper_store

    store, _ = ensure_paper_store(args.work, args.scale, args.seed)
    out = args.work / f"index-x{args.scale:g}"
    shutil.rmtree(out, ignore_errors=True)
    first = run_index(store, out, args.max_length, args.batch_size)
    again = run_index(store, out, args.max_length, args.batch_size)
    per_text = embedding_seconds(store, args.max_length, args.batch_size, args.sample)
    ratio = first["seconds"] / (per_text * first["rows"])
    print(
        f"paper world x{args.scale:g}: {first['rows']:,.0f} issues indexed in "
        f"{first['seconds']:.0f} s ({first['rows'] / first['seconds']:.1f} issues/s, max length "
        f"{args.max_length}, batch {args.batch_size}); peak RSS of the process tree "
        f"{first['peak_rss'] / 1e9:.2f} GB; index {first['bytes'] / 1e6:.0f} MB; index / bare "
        f"embedding of the same texts {ratio:.2f}x; again on the unchanged store: "
        f"{again['seconds']:.0f} s, {again['embedded']:,.0f} embedded",
        flush=True,
    )
    if args.scale < TARGET_SCALE:
        grow = TARGET_SCALE / args.scale
        print(
            f"EXTRAPOLATED (not measured) to x{TARGET_SCALE:g}: about "
            f"{first['rows'] * grow:,.0f} issues in about {first['seconds'] * grow / 60:.0f} min "
            f"(linear in issues); index about {first['bytes'] * grow / 1e6:.0f} MB",
            flush=True,
        )
    print(json.dumps({"scale": args.scale, "first": first, "again": again, "ratio": ratio}))


if __name__ == "__main__":
    main()
