"""Hard negatives: lexically similar non-duplicates, by BM25 over shared rare terms.

For each anchor the query is its `query_terms` rarest terms (document frequency >= 2, so
they can match something); candidates are the issues of the same split and repository
sharing a query term (a term found in more than `max_df` of a repository's issues is too
common there to count, which also bounds the work), scored
with Okapi BM25 (k1 = 1.2, b = 0.75). The best-scoring *valid* candidate (not the same
cluster, no reference between them) becomes the partner. Pure polars joins, no index
server, no new dependency.
"""

from __future__ import annotations

import numpy as np
import polars as pl

K1 = 1.2
B = 0.75
_TOKEN = r"[a-z][a-z0-9_]{2,}"


def term_postings(texts: pl.DataFrame) -> pl.DataFrame:
    """idx, term, tf, dl, df for every (issue, distinct term); `texts` has idx and text."""
    return _with_df(_counts(texts))


def part_postings(texts: pl.DataFrame) -> pl.DataFrame:
    """`term_postings` of a slice of the texts (idx: the row in `texts`), without `df`, which
    needs every slice: `whole_postings` joins the slices."""
    return _counts(texts.with_row_index("idx"))


def whole_postings(parts: list[tuple[int, pl.DataFrame]]) -> pl.DataFrame:
    """`term_postings` of the texts whose slices gave `parts` ((rows of the slice, its
    `part_postings`), in order): each slice's idx moved past the rows before it."""
    shifted, offset = [], 0
    for rows, postings in parts:
        shifted.append(postings.with_columns((pl.col("idx") + offset).cast(pl.UInt32)))
        offset += rows
    return _with_df(pl.concat(shifted))


def _counts(texts: pl.DataFrame) -> pl.DataFrame:
    """idx, term, tf, dl for every (issue, distinct term) of `texts` (idx, text)."""
    tokens = texts.select(
        "idx", pl.col("text").str.to_lowercase().str.extract_all(_TOKEN).alias("term")
    )
    lengths = tokens.select("idx", pl.col("term").list.len().cast(pl.Float64).alias("dl"))
    postings = tokens.explode("term").drop_nulls("term").group_by("idx", "term").len("tf")
    return postings.join(lengths, on="idx")


def _with_df(counts: pl.DataFrame) -> pl.DataFrame:
    df = counts.group_by("term").len("df")
    return counts.join(df, on="term").sort("idx", "term")


def _queries(anchors: np.ndarray, postings: pl.DataFrame, query_terms: int) -> pl.DataFrame:
    """pos, anchor, term, df: each anchor's `query_terms` rarest terms that occur elsewhere."""
    return (
        pl.DataFrame({"pos": np.arange(len(anchors)), "anchor": anchors})
        .join(postings.select(pl.col("idx").alias("anchor"), "term", "df"), on="anchor")
        .filter(pl.col("df") >= 2)
        .sort("pos", "df", "term")
        .group_by("pos", maintain_order=True)
        .head(query_terms)
    )


def _candidates(
    postings: pl.DataFrame, members: np.ndarray, repo: np.ndarray, max_df: int
) -> pl.DataFrame:
    """Postings of `members` with their repository; (term, repository) lists longer than
    `max_df` are dropped (too common there to say anything, and they bound the join)."""
    codes = pl.DataFrame({"idx": members, "repo_code": repo[members]})
    found = postings.join(codes, on="idx")
    return found.filter(pl.len().over("term", "repo_code") <= max_df)


def bm25_partners(
    anchors: np.ndarray,
    members: np.ndarray,
    postings: pl.DataFrame,
    repo: np.ndarray,
    group: np.ndarray,
    refs: np.ndarray,
    *,
    query_terms: int,
    max_df: int,
) -> np.ndarray:
    """For each anchor, the idx of its best BM25 partner among `members` of its own
    repository, or -1 when none shares a query term and is a valid negative."""
    n_docs = len(group)
    mean_dl = postings.group_by("idx").agg(pl.col("dl").first())["dl"].mean()
    avgdl = float(mean_dl) if isinstance(mean_dl, (int, float)) and mean_dl > 0 else 1.0
    queries = _queries(anchors, postings, query_terms).with_columns(
        pl.col("anchor").map_batches(lambda a: pl.Series(repo[a.to_numpy()])).alias("repo_code")
    )
    idf = (1.0 + (n_docs - pl.col("df") + 0.5) / (pl.col("df") + 0.5)).log()
    tf_part = pl.col("tf") * (K1 + 1) / (pl.col("tf") + K1 * (1 - B + B * pl.col("dl") / avgdl))
    scored = (
        queries.join(
            _candidates(postings, members, repo, max_df).select(
                "idx", "term", "repo_code", "tf", "dl"
            ),
            on=["term", "repo_code"],
        )
        .filter(pl.col("idx") != pl.col("anchor"))
        .with_columns((idf * tf_part).alias("s"))
        .group_by("pos", "anchor", "idx")
        .agg(pl.col("s").sum())
    )
    a, b = scored["anchor"].to_numpy(), scored["idx"].to_numpy()
    keys = np.minimum(a, b) * np.int64(n_docs) + np.maximum(a, b)
    valid = (group[a] != group[b]) & ~np.isin(keys, refs)
    best = (
        scored.filter(pl.Series(valid))
        .sort(["pos", "s", "idx"], descending=[False, True, False])
        .group_by("pos", maintain_order=True)
        .first()
    )
    partners = np.full(len(anchors), -1, dtype=np.int64)
    partners[best["pos"].to_numpy()] = best["idx"].to_numpy()
    return partners
