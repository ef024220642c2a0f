"""Positives + negatives + texts -> the final, ordered pair table with provenance."""

from __future__ import annotations

import numpy as np
import polars as pl

from issues_sts.dataset.config import SPLITS

PAIR_COLUMNS = (
    "split",
    "label",
    "repo1",
    "number1",
    "repo2",
    "number2",
    "url1",
    "url2",
    "signal",
    "confidence",
    "text1",
    "text2",
)


def positives_with_split(positives: pl.DataFrame, assignment: pl.DataFrame) -> pl.DataFrame:
    """A positive's split is its cluster's (both ends share a group, hence a split)."""
    return positives.join(
        assignment.select(
            pl.col("repo").alias("repo1"), pl.col("number").alias("number1"), "split"
        ),
        on=["repo1", "number1"],
        how="left",
    )


def assemble_pairs(
    positives: pl.DataFrame, negatives: pl.DataFrame, texts: pl.DataFrame, seed: int
) -> pl.DataFrame:
    """All pairs with texts, urls and provenance; within a split, rows come in a seeded
    shuffled order (positives and negatives interleaved) that depends only on the data."""
    cols = ["repo1", "number1", "repo2", "number2", "split", "signal", "confidence"]
    both = pl.concat(
        [
            positives.select(cols).with_columns(pl.lit(1, pl.Int64).alias("label")),
            negatives.select(cols).with_columns(pl.lit(0, pl.Int64).alias("label")),
        ]
    ).sort("split", "label", "repo1", "number1", "repo2", "number2")
    side = texts.with_row_index("idx").select("repo", "number", "idx", "url", "text")
    for k in ("1", "2"):
        both = both.join(
            side.rename({"idx": f"idx{k}", "url": f"url{k}", "text": f"text{k}"}),
            left_on=[f"repo{k}", f"number{k}"],
            right_on=["repo", "number"],
            how="left",
        )
    both = both.sort("split", "label", "repo1", "number1", "repo2", "number2")  # joins may reorder
    order = np.random.default_rng([seed, 7]).permutation(both.height)
    both = both.with_columns(
        pl.Series("_order", order),
        pl.col("split")
        .replace_strict(list(SPLITS), list(range(len(SPLITS))), return_dtype=pl.Int64)
        .alias("_split"),
    )
    return both.sort("_split", "_order").select(*PAIR_COLUMNS, "idx1", "idx2")
