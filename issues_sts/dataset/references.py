"""Which issues reference each other: such a pair is never used as a negative.

Two issues reference each other when either one's text or comments mention the other
(``#123`` in the same repository, ``owner/name#123``, or a github.com issue/PR URL, also
under the repository's old names), or when
the link stage saw any candidate link between them (usable or not). A mention is weak
evidence of similarity, so these pairs are simply not "known different".
"""

from __future__ import annotations

import numpy as np
import polars as pl

_MENTION = r"github\.com/[\w.-]+/[\w.-]+/(?:issues|pull)/\d+|[\w.-]+/[\w.-]+#\d+|#\d+"


def mention_edges(frame: pl.DataFrame, text_column: str) -> pl.DataFrame:
    """(repo, number) of the mentioning issue and (to_repo, to_number) it mentions."""
    found = (
        frame.select("repo", "number", pl.col(text_column).str.extract_all(_MENTION).alias("m"))
        .explode("m")
        .drop_nulls("m")
    )
    url = pl.col("m").str.extract(r"github\.com/([\w.-]+/[\w.-]+)/", 1)
    short = pl.col("m").str.extract(r"^([\w.-]+/[\w.-]+)#", 1)
    return found.select(
        "repo",
        "number",
        pl.coalesce(url, short, pl.col("repo")).alias("to_repo"),
        pl.col("m").str.extract(r"(\d+)$", 1).cast(pl.Int64, strict=False).alias("to_number"),
    ).drop_nulls("to_number")


def reference_keys(
    index: pl.DataFrame,
    texts: pl.DataFrame,
    comments: pl.DataFrame | None,
    links: pl.DataFrame,
    renames: tuple[tuple[str, str], ...] = (),
) -> np.ndarray:
    """Sorted unique keys ``min(i, j) * n + max(i, j)`` over issue indices that reference
    each other; `index` maps (repo, number) to idx (0..n-1). A mention under a repository's
    old name (`renames`: old -> new, from `--alias` and the store's recorded renames, e.g.
    `mozilla/rust#5` for rust-lang/rust#5) is a mention of the issue under its new name."""
    parts = [mention_edges(texts, "text")]
    if comments is not None and comments.height:
        parts.append(mention_edges(comments.select("repo", "number", "body"), "body"))
    return keys_from_mentions(index, pl.concat(parts), links, renames)


def keys_from_mentions(
    index: pl.DataFrame,
    mentions: pl.DataFrame,
    links: pl.DataFrame,
    renames: tuple[tuple[str, str], ...] = (),
) -> np.ndarray:
    """`reference_keys` from mentions found beforehand (`mention_edges`, e.g. one repository
    at a time), the links and the renames."""
    parts = [mentions]
    parts.append(
        links.select(
            "repo",
            "number",
            pl.col("target_repo").alias("to_repo"),
            pl.col("target_number").cast(pl.Int64).alias("to_number"),
        ).drop_nulls()
    )
    moved = {old.lower(): new.lower() for old, new in renames}
    edges = pl.concat(parts).with_columns(
        pl.col("repo").str.to_lowercase(), pl.col("to_repo").str.to_lowercase().replace(moved)
    )
    lower = index.select(pl.col("repo").str.to_lowercase(), "number", "idx")
    joined = edges.join(lower, on=["repo", "number"]).join(
        lower, left_on=["to_repo", "to_number"], right_on=["repo", "number"], suffix="_to"
    )
    a = joined["idx"].to_numpy().astype(np.int64)
    b = joined["idx_to"].to_numpy().astype(np.int64)
    return pair_keys(a, b, index.height)


def pair_keys(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    """Order-free integer key of each pair (a[k], b[k]), sorted and unique."""
    return np.unique(np.minimum(a, b) * np.int64(n) + np.maximum(a, b))
