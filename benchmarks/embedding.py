"""Benchmark of the embedding `issues-sts index` does: the project's encoder
(`retrieval.encode.encode_texts` over training's `build_encoder`) against sentence-transformers'
`SentenceTransformer.encode` with the same model (the offline all-MiniLM-L6-v2), the same
texts, token limit and batch size, in the same process. Target: at least equal throughput.

    .venv/bin/python -m benchmarks.embedding
    .venv/bin/python -m benchmarks.embedding --texts 2000 --max-length 256 --batch-size 64

The texts are issues of the calibrated paper world (x0.002, written once under --work), made
by the dataset's recipe as `index` makes them. Each side runs --repeats times, alternating,
after one warm-up batch each; the best run of each counts (the machine is shared). The two
sides' vectors are compared too: the same model must give the same vectors.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np


def issue_texts_of(work: Path, count: int) -> list[str]:
    from benchmarks.build import ensure_paper_store
    from issues_sts.retrieval.rows import store_rows
    from issues_sts.store import Store

    store, _ = ensure_paper_store(work, 0.002, 0)
    texts: list[str] = []
    with Store.open(store, readonly=True) as db:
        for rows in store_rows(db, "readers"):
            texts += rows["text"].to_list()
            if len(texts) >= count:
                break
    return texts[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--texts", type=int, default=1000)
    parser.add_argument("--max-length", type=int, default=128)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--work", type=Path, default=Path("/tmp/issues-sts-bench-embedding"))
    args = parser.parse_args()
    import torch
    from sentence_transformers import SentenceTransformer

    from issues_sts.dataset import offline_model_path
    from issues_sts.retrieval.encode import encode_texts, load_encoder

    texts = issue_texts_of(args.work, args.texts)
    ours = load_encoder(None, None, args.max_length)
    theirs = SentenceTransformer(str(offline_model_path()), device="cpu")
    theirs.max_seq_length = args.max_length

    def run_ours(batch: list[str]) -> np.ndarray:
        return encode_texts(ours, batch, batch_size=args.batch_size, max_length=args.max_length)

    def run_theirs(batch: list[str]) -> np.ndarray:
        return np.asarray(
            theirs.encode(
                batch,
                batch_size=args.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        )

    run_ours(texts[: args.batch_size])
    run_theirs(texts[: args.batch_size])
    best = {"project": float("inf"), "sentence-transformers": float("inf")}
    vectors: dict[str, np.ndarray] = {}
    for _ in range(args.repeats):
        for name, run in (("project", run_ours), ("sentence-transformers", run_theirs)):
            start = time.perf_counter()
            vectors[name] = run(texts)
            best[name] = min(best[name], time.perf_counter() - start)
    rate = {name: len(texts) / seconds for name, seconds in best.items()}
    diff = float(np.abs(vectors["project"] - vectors["sentence-transformers"]).max())
    ratio = rate["project"] / rate["sentence-transformers"]
    print(
        f"{len(texts):,} issue texts, max length {args.max_length}, batch {args.batch_size}, "
        f"{torch.get_num_threads()} torch threads: project {rate['project']:.1f} texts/s, "
        f"sentence-transformers {rate['sentence-transformers']:.1f} texts/s: ratio {ratio:.2f} "
        f"(target >= 1.00: {'met' if ratio >= 1.0 else 'missed'}); largest difference between "
        f"their vectors {diff:.2e}",
        flush=True,
    )
    print(json.dumps({"texts": len(texts), "rates": rate, "ratio": ratio, "max_diff": diff}))


if __name__ == "__main__":
    main()
