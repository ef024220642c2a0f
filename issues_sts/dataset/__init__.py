"""The build stage: a crawl store -> the GitHub Issues Similarity dataset folder.

    from issues_sts.dataset.build import run_build
    from issues_sts.dataset.config import BuildConfig
    summary = run_build(BuildConfig(store="data/store", out="data/dataset"))

One pure stage per module, sequenced by `build.run_build`:

    texts        issue -> text (the documented recipe), PRs and tombstones dropped
    redact       credentials -> [REDACTED:<kind>], counted
    pairs        usable duplicate links -> positive pairs (duplicate, cluster canonical)
    splits       duplicate clusters -> train/valid/test, leakage-free
    references   which issues mention each other (never a negative)
    negatives    seeded negatives inside each split (hard_negatives: BM25 partners)
    assemble     positives + negatives + texts -> the ordered pair table with provenance
    stats        token lengths, the paper's table, per-repository counts, the violin plot
    card         README.md dataset card
    export       deterministic Parquet, manifest, staged write-then-rename

The public reading API (what `training/` may use): `store_texts(store_dir)`,
`offline_model_path()`, the bundled model whose tokenizer measures the dataset,
`earlier_candidates(corpus, query_ids)`, the retrieval protocol's candidates of each query, by
its one rule `earlier_mask` (with `NO_TIME` for an unknown creation time, which `similar` uses too);
`issue_text` and `issue_texts` (one title and body, or a store's issues frame, -> texts by the
recipe) and `redact_column` (the redaction), which retrieval's `index` applies as the build does.
"""

from __future__ import annotations

from issues_sts.dataset.redact import redact_column
from issues_sts.dataset.retrieval_view import (
    NO_TIME,
    created_time,
    earlier_candidates,
    earlier_mask,
)
from issues_sts.dataset.stats import offline_model_path
from issues_sts.dataset.texts import issue_text, issue_texts, store_texts

__all__ = [
    "NO_TIME",
    "created_time",
    "earlier_candidates",
    "earlier_mask",
    "issue_text",
    "issue_texts",
    "offline_model_path",
    "redact_column",
    "store_texts",
]
