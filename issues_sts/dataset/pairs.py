"""Positive pairs: one per usable duplicate link, each duplicate paired with its cluster's
canonical issue (the root the link stage resolved chains and cycles to).

A cluster {A, B, C} whose root is C yields (A, C) and (B, C): what a user expects from
"A and B were closed as duplicates of C", and never (C, C).
"""

from __future__ import annotations

import polars as pl

PAIR_KEY = ("repo1", "number1", "repo2", "number2")
POSITIVE_COLUMNS = (*PAIR_KEY, "signal", "confidence")


def _canonical(links: pl.DataFrame) -> pl.DataFrame:
    """The canonical of each link: the cluster root when known, else the direct target."""
    root_repo = pl.col("root_repo") if "root_repo" in links.columns else pl.lit(None, pl.Utf8)
    root_number = (
        pl.col("root_number") if "root_number" in links.columns else pl.lit(None, pl.Int64)
    )
    return links.with_columns(
        pl.coalesce(root_repo, pl.col("target_repo")).alias("repo2"),
        pl.coalesce(root_number, pl.col("target_number")).cast(pl.Int64).alias("number2"),
    ).rename({"repo": "repo1", "number": "number1"})


def _reason_counts(links: pl.DataFrame) -> dict[str, int]:
    if "excluded_reason" not in links.columns:
        return {}
    reasons = (
        links.filter(~pl.col("usable")).group_by("excluded_reason").len().sort("excluded_reason")
    )
    return {f"link_excluded:{r or 'unspecified'}": int(n) for r, n in reasons.iter_rows()}


def positive_pairs(
    links: pl.DataFrame, texts: pl.DataFrame, *, min_confidence: float = 0.0
) -> tuple[pl.DataFrame, dict[str, int]]:
    """Usable links -> positive pairs with both texts available.

    `links` follows the link stage's contract (repo, number, target_repo, target_number,
    signal, confidence, usable, root_repo, root_number, ...); `texts` is `issue_texts`'s frame.
    """
    counters: dict[str, int] = {"links_total": links.height, **_reason_counts(links)}
    usable = links.filter(pl.col("usable"))
    counters["links_usable"] = usable.height
    confident = usable.filter(pl.col("confidence") >= min_confidence)
    counters["dropped_low_confidence"] = usable.height - confident.height

    pairs = _canonical(confident)
    is_self = (pl.col("repo1") == pl.col("repo2")) & (pl.col("number1") == pl.col("number2"))
    counters["dropped_self_pair"] = pairs.filter(is_self).height
    pairs = pairs.filter(~is_self)

    # One pair per duplicate issue: its most confident link wins, ties broken by target.
    before = pairs.height
    pairs = pairs.sort(
        ["repo1", "number1", "confidence", "repo2", "number2"],
        descending=[False, False, True, False, False],
    )
    pairs = pairs.unique(subset=["repo1", "number1"], keep="first", maintain_order=True)
    pairs = _drop_mirrored(pairs)
    counters["dropped_repeated_link"] = before - pairs.height

    before = pairs.height
    present = texts.select("repo", "number")
    for side in ("1", "2"):
        pairs = pairs.join(
            present,
            left_on=[f"repo{side}", f"number{side}"],
            right_on=["repo", "number"],
            how="semi",
        )
    counters["dropped_missing_text"] = before - pairs.height
    pairs = pairs.select(
        *PAIR_KEY, pl.col("signal").cast(pl.Utf8), pl.col("confidence").cast(pl.Float64)
    ).sort(list(PAIR_KEY))
    counters["positives"] = pairs.height
    return pairs, counters


def _drop_mirrored(pairs: pl.DataFrame) -> pl.DataFrame:
    """(A, B) and (B, A) are one pair: keep the first in order."""
    lo_first = (pl.col("repo1") < pl.col("repo2")) | (
        (pl.col("repo1") == pl.col("repo2")) & (pl.col("number1") < pl.col("number2"))
    )
    keyed = pairs.with_columns(
        pl.when(lo_first).then(pl.col("repo1")).otherwise(pl.col("repo2")).alias("_ra"),
        pl.when(lo_first).then(pl.col("number1")).otherwise(pl.col("number2")).alias("_na"),
        pl.when(lo_first).then(pl.col("repo2")).otherwise(pl.col("repo1")).alias("_rb"),
        pl.when(lo_first).then(pl.col("number2")).otherwise(pl.col("number1")).alias("_nb"),
    )
    return keyed.unique(
        subset=["_ra", "_na", "_rb", "_nb"], keep="first", maintain_order=True
    ).drop("_ra", "_na", "_rb", "_nb")
