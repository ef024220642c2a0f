"""How the text recipe changes issue texts and their token lengths, on the rust archive
(2010-2015, before issue templates) and the onnxruntime archive (2018-2023, templates).

    .venv/bin/python -m benchmarks.recipe [--cache DIR]

For every issue with a text (PRs and tombstones dropped, as in a build), recipe `raw`
against recipe `readers` (HTML comments removed): texts touched, characters removed, and
BERT-uncased token lengths (special tokens included, no truncation) of all issue texts:
mean, median, p95 and the share above 512. Skips an archive that is absent.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

from issues_sts.annotations.archives import ARCHIVES, load_archive
from issues_sts.dataset.stats import load_tokenizer, token_lengths
from issues_sts.dataset.texts import issue_texts
from issues_sts.store import Store

MEASURED = ("rust", "onnxruntime")


def _summary(lengths: np.ndarray, chars: int) -> dict[str, Any]:
    return {
        "chars": chars,
        "mean": float(lengths.mean()),
        "p50": float(np.median(lengths)),
        "p95": float(np.quantile(lengths, 0.95)),
        "over_512": float((lengths > 512).mean() * 100),
    }


def measure(store: Store, tokenizer: Any) -> tuple[dict[str, dict[str, Any]], dict[str, int]]:
    issues = store.issues_frame()
    out: dict[str, dict[str, Any]] = {}
    counters: dict[str, int] = {}
    for recipe in ("raw", "readers"):
        texts, counts = issue_texts(issues, recipe)  # type: ignore[arg-type]
        values = texts["text"].to_list()
        out[recipe] = _summary(token_lengths(tokenizer, values), sum(map(len, values)))
        out[recipe]["texts"] = len(values)
        counters |= counts
    return out, counters


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="folder for the archive stores (default data/cache)",
    )
    args = parser.parse_args()
    tokenizer = load_tokenizer(None)
    for spec in (ARCHIVES[kind] for kind in MEASURED):
        name, archive, cache = spec.repo, spec.path, spec.cache
        if not archive.is_dir():
            print(f"{name}: archive not found at {archive}, skipped")
            continue
        store = load_archive(spec.name, archive, (args.cache / cache.name) if args.cache else cache)
        try:
            result, counters = measure(store, tokenizer)
        finally:
            store.close()
        raw = result["raw"]
        print(
            f"{name}: {raw['texts']:,} issue texts; {counters['texts_with_html_comments']:,} "
            f"({counters['texts_with_html_comments'] / raw['texts'] * 100:.1f} %) carry HTML "
            f"comments; {counters['html_comment_chars_removed']:,} characters removed "
            f"({counters['html_comment_chars_removed'] / raw['chars'] * 100:.1f} % of all text)"
        )
        print(f"  {'recipe':<8} {'mean':>8} {'median':>8} {'p95':>8} {'> 512':>8}")
        for recipe in ("raw", "readers"):
            r = result[recipe]
            print(
                f"  {recipe:<8} {r['mean']:>8.1f} {r['p50']:>8.0f} {r['p95']:>8.0f} "
                f"{r['over_512']:>7.2f}%"
            )


if __name__ == "__main__":
    main()
