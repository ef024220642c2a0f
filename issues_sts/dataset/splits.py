"""Leakage-free train/valid/test assignment.

The unit of assignment is a *group*: a duplicate cluster (every issue linked to another by
a positive pair or by the link stage's cluster table, closed transitively), or a single
issue that is in no cluster. A whole group goes to one split, so no issue, and no member of
its cluster, is ever seen in two splits. Negatives are sampled afterwards *inside* each
split (see negatives.py), which keeps that guarantee for them too.

Clusters are assigned greedily in a seeded order to the split furthest below its share of
positive pairs (the paper's 18,565 / 1,547 / 1,548 proportions); with three or more
clusters, valid and test each get one first so that no split is empty.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from issues_sts.dataset.config import SPLITS
from issues_sts.errors import LeakageError


def _index(texts: pl.DataFrame) -> pl.DataFrame:
    return texts.select("repo", "number").with_row_index("idx")


def _edge_indices(index: pl.DataFrame, edges: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    joined = edges.join(index, left_on=["repo1", "number1"], right_on=["repo", "number"]).join(
        index, left_on=["repo2", "number2"], right_on=["repo", "number"], suffix="_2"
    )
    return joined["idx"].to_numpy().astype(np.int64), joined["idx_2"].to_numpy().astype(np.int64)


def _components(n: int, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Connected components by union-find; each label is the smallest index in its component."""
    parent = np.arange(n, dtype=np.int64)

    def find(i: int) -> int:
        root = i
        while parent[root] != root:
            root = int(parent[root])
        while parent[i] != root:
            parent[i], i = root, int(parent[i])
        return root

    for a, b in zip(left.tolist(), right.tolist(), strict=True):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    while True:  # pointer jumping, vectorised: every index ends at its root
        jumped = parent[parent]
        if np.array_equal(jumped, parent):
            return parent
        parent = jumped


def issue_groups(texts: pl.DataFrame, positives: pl.DataFrame, clusters: pl.DataFrame) -> pl.DataFrame:
    """idx, repo, number, group for every issue with a text (idx = row of `texts`);
    clustered issues share a group."""
    index = _index(texts)
    cluster_edges = clusters.select(
        pl.col("repo").alias("repo1"), pl.col("number").alias("number1"),
        pl.col("root_repo").alias("repo2"), pl.col("root_number").cast(pl.Int64).alias("number2"),
    ).drop_nulls()
    edges = pl.concat([positives.select("repo1", "number1", "repo2", "number2"), cluster_edges])
    left, right = _edge_indices(index, edges)
    labels = _components(index.height, left, right)
    return index.select("idx", "repo", "number", pl.Series("group", labels))


def _greedy(weights: np.ndarray, fractions: np.ndarray) -> np.ndarray:
    """Assign weighted items (already in seeded order) to the split with the largest deficit."""
    targets = fractions * float(weights.sum())
    filled = np.zeros(len(fractions))
    out = np.empty(len(weights), dtype=np.int64)
    start = 0
    if len(weights) >= len(fractions):
        for k in range(1, len(fractions)):  # one group each for valid and test first
            out[k - 1] = k
            filled[k] += weights[k - 1]
        start = len(fractions) - 1
    for i in range(start, len(weights)):
        k = int(np.argmax(targets - filled))
        out[i] = k
        filled[k] += weights[i]
    return out


def assign_splits(groups: pl.DataFrame, positives: pl.DataFrame, fractions: dict[str, float], seed: int) -> pl.DataFrame:
    """`groups` plus a split for every issue; a group's issues always share a split."""
    rng = np.random.default_rng(seed)
    frac = np.array([fractions[s] for s in SPLITS])
    weights = (
        positives.join(groups, left_on=["repo1", "number1"], right_on=["repo", "number"])
        .group_by("group").len().sort("group")
    )
    clustered = weights["group"].to_numpy()
    order = rng.permutation(len(clustered))
    split_of_cluster = _greedy(weights["len"].to_numpy()[order].astype(float), frac)
    assigned = pl.DataFrame({"group": clustered[order], "split_id": split_of_cluster})

    singles = np.setdiff1d(groups["group"].unique().sort().to_numpy(), clustered)
    singles = singles[rng.permutation(len(singles))]
    cuts = np.floor(np.cumsum(frac)[:-1] * len(singles)).astype(np.int64)
    single_ids = np.searchsorted(cuts, np.arange(len(singles)), side="right")
    assigned = pl.concat([assigned, pl.DataFrame({"group": singles, "split_id": single_ids})])
    return groups.join(assigned, on="group", how="left").with_columns(
        pl.col("split_id").replace_strict(list(range(len(SPLITS))), list(SPLITS), return_dtype=pl.Utf8).alias("split")
    ).drop("split_id").sort("idx")


def check_no_leakage(pairs: pl.DataFrame, groups: pl.DataFrame | None = None) -> None:
    """Raise LeakageError if an issue, or a cluster, appears in more than one split."""
    ends = pl.concat([
        pairs.select(pl.col("repo1").alias("repo"), pl.col("number1").alias("number"), "split"),
        pairs.select(pl.col("repo2").alias("repo"), pl.col("number2").alias("number"), "split"),
    ])
    crossing = ends.group_by("repo", "number").agg(pl.col("split").n_unique().alias("n")).filter(pl.col("n") > 1)
    if crossing.height:
        row = crossing.sort("repo", "number").row(0)
        raise LeakageError(f"{crossing.height} issues appear in several splits, e.g. {row[0]}#{row[1]}",
                           hint="this is a bug in the build; please report it with the store")
    if groups is not None:
        with_group = ends.join(groups.select("repo", "number", "group"), on=["repo", "number"])
        bad = with_group.group_by("group").agg(pl.col("split").n_unique().alias("n")).filter(pl.col("n") > 1)
        if bad.height:
            raise LeakageError(f"{bad.height} duplicate clusters are spread over several splits",
                               hint="this is a bug in the build; please report it with the store")
