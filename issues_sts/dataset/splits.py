"""Leakage-free train/valid/test assignment that stays put when the store grows.

The unit of assignment is a *group*: a duplicate cluster (every issue linked to another by
a positive pair or by the link stage's cluster table, closed transitively), or a single
issue that is in no cluster. A whole group goes to one split, so no issue, and no member of
its cluster, is ever seen in two splits. Negatives are sampled afterwards *inside* each
split (see negatives.py), which keeps that guarantee for them too.

Stability across versions. A model trained on version 1's `train` must never meet those
issues in version 2's `test`, so a group's split is a pure function of the group's *stable
identity*: its oldest member (by creation date, then repository and number). New issues
join clusters later than their members were created, so a growing cluster keeps its identity
and its split, whatever else the store gains (new repositories, new clusters). The split is
read off a seeded hash of the identity, `u` in [0, 1), against the cumulative proportions
(the paper's 18,565 / 1,547 / 1,548 by default): no permutation, no row numbers, nothing that
a new issue elsewhere can shift. Hashing gives the proportions on average; `_balance` then
moves the few groups whose hash lies nearest a cut point until every split is within half a
point of its share of positive pairs (and valid and test are not empty). Those balanced
groups, counted, are the only ones whose split can differ between two builds made without
the earlier build at hand.

`--split-by time` orders clusters by that identity's creation date instead: the oldest go
to train until train holds its share of positive pairs, the newest to valid and test (split
between them by the hash).

A previous build pins exactly (`Previous`): an issue it held keeps its split. When new links
merge clusters that sat in different splits, the merged cluster goes where most of its
earlier positive pairs were; the issues that sat elsewhere are left out of this version
(split null, so no pair and no negative uses them) and counted.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal

import numpy as np
import polars as pl

from issues_sts.dataset.config import SPLITS
from issues_sts.errors import LeakageError

SplitBy = Literal["random", "time"]


def _index(texts: pl.DataFrame) -> pl.DataFrame:
    created = pl.col("created_at") if "created_at" in texts.columns else pl.lit(None, pl.Utf8)
    return texts.select("repo", "number", created.cast(pl.Utf8).alias("created_at")).with_row_index(
        "idx"
    )


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


def issue_groups(
    texts: pl.DataFrame, positives: pl.DataFrame, clusters: pl.DataFrame
) -> pl.DataFrame:
    """idx, repo, number, created_at, group for every issue with a text (idx = row of
    `texts`); clustered issues share a group. `group` is a row label, valid in this build only."""
    index = _index(texts)
    cluster_edges = clusters.select(
        pl.col("repo").alias("repo1"),
        pl.col("number").alias("number1"),
        pl.col("root_repo").alias("repo2"),
        pl.col("root_number").cast(pl.Int64).alias("number2"),
    ).drop_nulls()
    edges = pl.concat([positives.select("repo1", "number1", "repo2", "number2"), cluster_edges])
    left, right = _edge_indices(index, edges)
    labels = _components(index.height, left, right)
    return index.select("idx", "repo", "number", "created_at", pl.Series("group", labels))


def unit_hash(keys: list[str], seed: int) -> np.ndarray:
    """A seeded hash of each key mapped to [0, 1): the same in every build, Python and platform."""
    prefix = f"issues-sts-split:{seed}:".encode()
    out = np.empty(len(keys), dtype=np.float64)
    for i, key in enumerate(keys):
        digest = hashlib.blake2b(prefix + key.encode(), digest_size=8).digest()
        out[i] = int.from_bytes(digest, "big") / 2.0**64
    return out


def group_identities(groups: pl.DataFrame, positives: pl.DataFrame) -> pl.DataFrame:
    """Per group: its identity (oldest member, `repo#number`), the identity's creation date and
    its weight (positive pairs whose duplicate is a member)."""
    oldest = (
        groups.sort(pl.col("created_at").fill_null("~"), "repo", "number")
        .group_by("group", maintain_order=True)
        .first()
        .select(
            "group",
            pl.format("{}#{}", "repo", "number").alias("identity"),
            pl.col("created_at").alias("identity_created_at"),
        )
    )
    weights = (
        positives.join(groups, left_on=["repo1", "number1"], right_on=["repo", "number"])
        .group_by("group")
        .len()
        .rename({"len": "weight"})
    )
    return (
        oldest.join(weights, on="group", how="left")
        .with_columns(pl.col("weight").fill_null(0).cast(pl.Int64))
        .sort("identity")
    )


def _by_hash(u: np.ndarray, fractions: np.ndarray) -> np.ndarray:
    """Split index of each hash value against the cumulative proportions."""
    cuts = np.cumsum(fractions)[:-1]
    return np.searchsorted(cuts, u, side="right").astype(np.int64)


def _by_time(ident: pl.DataFrame, u: np.ndarray, fractions: np.ndarray) -> np.ndarray:
    """Oldest clusters to train until it holds its share of pairs; the rest to valid/test by hash.
    Groups without pairs (single issues) follow the date at which train was cut."""
    order = np.lexsort(
        (ident["identity"].to_numpy(), ident["identity_created_at"].fill_null("~").to_numpy())
    )
    weight = ident["weight"].to_numpy().astype(float)[order]
    before = np.cumsum(weight) - weight
    is_train_sorted = (weight > 0) & (before < fractions[0] * weight.sum())
    created = ident["identity_created_at"].fill_null("~").to_numpy()[order]
    trained = created[is_train_sorted]
    cutoff = trained.max() if len(trained) else ""
    is_train_sorted |= (weight == 0) & (created <= cutoff)
    is_train = np.empty(len(order), dtype=bool)
    is_train[order] = is_train_sorted
    rest = fractions[1:] / fractions[1:].sum()
    return np.where(is_train, 0, 1 + _by_hash(u, rest))


# Balancing keeps every split's share of positive pairs within this of its target (0.5 point).
TOLERANCE = 0.005


def _interval_distance(u: np.ndarray, k: int, fractions: np.ndarray) -> np.ndarray:
    bounds = np.concatenate([[0.0], np.cumsum(fractions)])
    return np.maximum(bounds[k] - u, 0.0) + np.maximum(u - bounds[k + 1], 0.0)


def _balance(
    split_id: np.ndarray,
    u: np.ndarray,
    weight: np.ndarray,
    movable: np.ndarray,
    fractions: np.ndarray,
    tolerance: float,
) -> np.ndarray:
    """Hashing gives the proportions only on average (a split's share of pairs drifts by about
    a point at a thousand clusters). While a split is more than `tolerance` short of its share,
    or empty, the movable group whose hash lies nearest that split's interval, in the fullest
    split and small enough not to overshoot, moves there. Only groups near a cut point move,
    and only as many as the drift needs: these are the groups whose split may differ between
    two builds made without `--previous` (counted as `balanced_groups`)."""
    out = split_id.copy()
    members = weight > 0
    total = float(weight.sum())
    if total == 0 or members.sum() < len(fractions):
        return out
    for _ in range(int(members.sum())):
        share = np.bincount(out[members], weights=weight[members], minlength=len(fractions)) / total
        present = np.bincount(out[members], minlength=len(fractions))
        deficit = fractions - share
        empty = (present == 0) & (np.arange(len(fractions)) > 0)  # valid and test must not be empty
        k = int(np.argmax(np.where(empty, np.inf, deficit)))
        if not empty[k] and deficit[k] <= tolerance:
            break
        donor = int(np.argmin(np.where(present > 1, deficit, np.inf)))
        room = (
            np.inf
            if empty[k]
            else max((deficit[k] + tolerance) * total, float(weight[members].min()))
        )
        candidates = np.flatnonzero(movable & members & (out == donor) & (weight <= room))
        if len(candidates) == 0:
            break
        pick = candidates[np.argmin(_interval_distance(u[candidates], k, fractions))]
        out[pick] = k
    return out


@dataclass(frozen=True)
class Previous:
    """The splits of an earlier build: every issue it used, with its split, and its positive
    pairs (to weigh a merge). Read by `dataset.previous`."""

    issues: pl.DataFrame  # repo, number, split
    positives: pl.DataFrame  # repo1, number1, split (one row per earlier positive pair)
    version: str | None = None


def _pin(groups: pl.DataFrame, split_ids: pl.DataFrame, previous: Previous) -> pl.DataFrame:
    """Groups holding issues of `previous` go where most of their earlier positive pairs were
    (then most earlier issues; ties by split order). Returns group, split_id for those groups."""
    ids = {s: k for k, s in enumerate(SPLITS)}
    old_issue = groups.join(previous.issues, on=["repo", "number"]).select(
        "group", pl.col("split").replace_strict(ids, return_dtype=pl.Int64).alias("old")
    )
    if old_issue.height == 0:
        return split_ids.clear()
    old_pairs = groups.join(
        previous.positives, left_on=["repo", "number"], right_on=["repo1", "number1"]
    ).select("group", pl.col("split").replace_strict(ids, return_dtype=pl.Int64).alias("old"))
    votes = (
        old_issue.group_by("group", "old")
        .len()
        .rename({"len": "issues"})
        .join(
            old_pairs.group_by("group", "old").len().rename({"len": "pairs"}),
            on=["group", "old"],
            how="left",
        )
        .with_columns(pl.col("pairs").fill_null(0))
        .sort(["group", "pairs", "issues", "old"], descending=[False, True, True, False])
    )
    return (
        votes.group_by("group", maintain_order=True)
        .first()
        .select("group", pl.col("old").alias("split_id"))
    )


def assign_splits(
    groups: pl.DataFrame,
    positives: pl.DataFrame,
    fractions: dict[str, float],
    seed: int,
    *,
    by: SplitBy = "random",
    previous: Previous | None = None,
) -> pl.DataFrame:
    """`groups` plus a split for every issue (null for issues a merge left out of this
    version, see `Previous`), `pinned_from` (the issue's split in `previous`, else null) and
    `balanced` (moved off its hash split to keep proportions, `_balance`). A group's issues
    always share a split."""
    frac = np.array([fractions[s] for s in SPLITS])
    ident = group_identities(groups, positives)
    u = unit_hash(ident["identity"].to_list(), seed)
    split_id = _by_time(ident, u, frac) if by == "time" else _by_hash(u, frac)
    movable = np.ones(ident.height, dtype=bool)
    old = pl.DataFrame(schema={"repo": pl.Utf8, "number": pl.Int64, "pinned_from": pl.Utf8})
    if previous is not None:
        hashed = pl.DataFrame({"group": ident["group"], "split_id": split_id})
        pinned = ident.select("group").join(_pin(groups, hashed, previous), on="group", how="left")[
            "split_id"
        ]
        movable = pinned.is_null().to_numpy()
        split_id = np.where(movable, split_id, pinned.fill_null(0).to_numpy())
        old = previous.issues.select("repo", "number", pl.col("split").alias("pinned_from"))
    weight = ident["weight"].to_numpy().astype(float)
    # Time splits keep their date order: only an empty split is filled there.
    tolerance = TOLERANCE if by == "random" else 1.0
    balanced = _balance(split_id, u, weight, movable, frac, tolerance)
    balanced = _balance(
        balanced, u, (weight == 0).astype(float), movable, frac, 1.0
    )  # singles: none empty
    chosen = pl.DataFrame(
        {"group": ident["group"], "split_id": balanced, "balanced": balanced != split_id}
    )
    names = pl.col("split_id").replace_strict(
        list(range(len(SPLITS))), list(SPLITS), return_dtype=pl.Utf8
    )
    out = (
        groups.join(chosen, on="group", how="left")
        .with_columns(names.alias("split"))
        .drop("split_id")
    )
    out = out.join(old, on=["repo", "number"], how="left")
    # An issue an earlier version held in another split stays out of this one (a counted merge).
    moved = pl.col("pinned_from").is_not_null() & (pl.col("pinned_from") != pl.col("split"))
    return out.with_columns(
        pl.when(moved).then(None).otherwise(pl.col("split")).alias("split")
    ).sort("idx")


def split_counters(assignment: pl.DataFrame) -> dict[str, int]:
    """Issues per split, groups, and what merges across splits cost (left-out issues)."""
    issues = dict(
        assignment.filter(pl.col("split").is_not_null()).group_by("split").len().iter_rows()
    )
    out = {f"issues:{s}": int(issues.get(s, 0)) for s in SPLITS}
    out["groups"] = int(assignment["group"].n_unique())
    out["clustered_issues"] = int(
        assignment.group_by("group").len().filter(pl.col("len") > 1)["len"].sum() or 0
    )
    out["balanced_groups"] = int(assignment.filter(pl.col("balanced"))["group"].n_unique())
    pinned = assignment.filter(pl.col("pinned_from").is_not_null())
    out["pinned_issues"] = pinned.height
    left_out = pinned.filter(pl.col("split").is_null())
    out["merge_left_out_issues"] = left_out.height
    out["merged_clusters"] = int(left_out["group"].n_unique())
    return out


def check_no_leakage(pairs: pl.DataFrame, groups: pl.DataFrame | None = None) -> None:
    """Raise LeakageError if an issue, or a cluster, appears in more than one split."""
    ends = pl.concat(
        [
            pairs.select(pl.col("repo1").alias("repo"), pl.col("number1").alias("number"), "split"),
            pairs.select(pl.col("repo2").alias("repo"), pl.col("number2").alias("number"), "split"),
        ]
    )
    crossing = (
        ends.group_by("repo", "number")
        .agg(pl.col("split").n_unique().alias("n"))
        .filter(pl.col("n") > 1)
    )
    if crossing.height:
        row = crossing.sort("repo", "number").row(0)
        raise LeakageError(
            f"{crossing.height} issues appear in several splits, e.g. {row[0]}#{row[1]}",
            hint="this is a bug in the build; please report it with the store",
        )
    if groups is not None:
        with_group = ends.join(groups.select("repo", "number", "group"), on=["repo", "number"])
        bad = (
            with_group.group_by("group")
            .agg(pl.col("split").n_unique().alias("n"))
            .filter(pl.col("n") > 1)
        )
        if bad.height:
            raise LeakageError(
                f"{bad.height} duplicate clusters are spread over several splits",
                hint="this is a bug in the build; please report it with the store",
            )
