"""Split stability on real data: the rust archive as it stood at a cutoff date ("v1") and
whole ("v2", a store that grew by the later issues and links), splits assigned both ways.

    .venv/bin/python -m benchmarks.splits [--cutoff 2014-01-01T00:00:00Z] [--cache DIR]

Printed: positive-pair shares per split against the paper's (v1 is a fresh build), and how
many issues of v1's positive pairs land in another split in v2, built without the earlier
build (hash + balancing) and with it (`--previous`: pinned, merges counted). The baseline is
the assignment this tool used before (a seeded permutation of row-ordered groups with greedy
filling), measured in the same run.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import polars as pl

from issues_sts.annotations.archives import ARCHIVES, RUST_REPO_ALIASES, load_archive
from issues_sts.dataset.config import SPLITS, BuildConfig
from issues_sts.dataset.pairs import positive_pairs
from issues_sts.dataset.splits import Previous, assign_splits, issue_groups, split_counters
from issues_sts.dataset.texts import issue_texts
from issues_sts.links import LinkConfig, build_links

FRACTIONS = BuildConfig().split_fractions()


def _old_assignment(groups: pl.DataFrame, positives: pl.DataFrame, seed: int) -> pl.DataFrame:
    """The former rule: groups labelled by row number, a seeded permutation, greedy filling."""
    rng = np.random.default_rng(seed)
    frac = np.array([FRACTIONS[s] for s in SPLITS])
    weights = (
        positives.join(groups, left_on=["repo1", "number1"], right_on=["repo", "number"])
        .group_by("group")
        .len()
        .sort("group")
    )
    order = rng.permutation(weights.height)
    w = weights["len"].to_numpy()[order].astype(float)
    targets, filled = frac * w.sum(), np.zeros(3)
    out = np.empty(len(w), dtype=np.int64)
    for i, weight in enumerate(w):
        k = int(np.argmax(targets - filled)) if i >= 2 else i + 1
        out[i] = k
        filled[k] += weight
    chosen = pl.DataFrame(
        {"group": weights["group"].to_numpy()[order], "split": np.array(SPLITS)[out]}
    )
    return groups.join(chosen, on="group", how="inner")


def _shares(assignment: pl.DataFrame, positives: pl.DataFrame) -> str:
    got = dict(
        positives.join(assignment, left_on=["repo1", "number1"], right_on=["repo", "number"])
        .filter(pl.col("split").is_not_null())
        .group_by("split")
        .len()
        .iter_rows()
    )
    total = sum(got.values())
    return " / ".join(f"{got.get(s, 0) / total * 100:.2f}" for s in SPLITS)


def _moved(
    before: pl.DataFrame, after: pl.DataFrame, positives: pl.DataFrame
) -> tuple[int, int, int]:
    used = pl.concat(
        [
            positives.select(repo="repo1", number="number1"),
            positives.select(repo="repo2", number="number2"),
        ]
    ).unique()
    old = before.join(used, on=["repo", "number"]).select("repo", "number", "split")
    both = old.join(
        after.select("repo", "number", pl.col("split").alias("new")), on=["repo", "number"]
    )
    moved = both.filter(pl.col("new").is_not_null() & (pl.col("new") != pl.col("split"))).height
    left_out = both.filter(pl.col("new").is_null()).height
    return old.height, moved, left_out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cutoff", default="2014-01-01T00:00:00Z")
    parser.add_argument("--cache", type=Path, default=ARCHIVES["rust"].cache)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    store = load_archive("rust", cache=args.cache)
    try:
        table = build_links(store, LinkConfig(repo_aliases=RUST_REPO_ALIASES))
        texts, _ = issue_texts(store.issues_frame())
    finally:
        store.close()
    early = texts.filter(pl.col("created_at") < args.cutoff)
    early_links = table.links.filter(pl.col("created_at") < args.cutoff)
    runs = {}
    for name, tx, links in (("v1", early, early_links), ("v2", texts, table.links)):
        positives, _ = positive_pairs(links, tx)
        keys = tx.select("repo", "number")
        clusters = table.clusters.join(keys, on=["repo", "number"], how="semi")
        runs[name] = (tx, positives, issue_groups(tx, positives, clusters))
    (_, pos1, groups1), (_, pos2, groups2) = runs["v1"], runs["v2"]
    v1 = assign_splits(groups1, pos1, FRACTIONS, args.seed)
    v2_free = assign_splits(groups2, pos2, FRACTIONS, args.seed)
    previous = Previous(
        issues=v1.select("repo", "number", "split"),
        positives=pos1.join(
            v1.select("repo", "number", "split"),
            left_on=["repo1", "number1"],
            right_on=["repo", "number"],
        ).select("repo1", "number1", "split"),
    )
    v2_pinned = assign_splits(groups2, pos2, FRACTIONS, args.seed, previous=previous)
    old1, old2 = (
        _old_assignment(groups1, pos1, args.seed),
        _old_assignment(groups2, pos2, args.seed),
    )
    paper = " / ".join(f"{FRACTIONS[s] * 100:.2f}" for s in SPLITS)
    print(
        f"rust archive, cutoff {args.cutoff}: v1 {early.height:,} issues, {pos1.height:,} "
        f"positives; v2 {texts.height:,} issues, {pos2.height:,} positives"
    )
    print(f"positive shares train / valid / test (paper {paper})")
    for label, assignment, pos in (
        ("v1 fresh (hash + balancing)", v1, pos1),
        ("v2 without --previous", v2_free, pos2),
        ("v2 with --previous", v2_pinned, pos2),
        ("v1 former rule", old1, pos1),
        ("v2 former rule", old2, pos2),
    ):
        print(f"  {label:<30} {_shares(assignment, pos)}")
    print(
        "v1 positive-pair issues that land in another split in v2 (moved) or are left out (merge)"
    )
    for label, before, after in (
        ("without --previous", v1, v2_free),
        ("with --previous", v1, v2_pinned),
        ("former rule (baseline)", old1, old2),
    ):
        total, moved, left_out = _moved(before, after, pos1)
        print(f"  {label:<30} {moved:>5} moved, {left_out:>4} left out, of {total:,}")
    counters = split_counters(v2_pinned)
    print(
        f"  with --previous: {counters['merged_clusters']} merged clusters, "
        f"{counters['balanced_groups']} balanced groups; without: "
        f"{split_counters(v2_free)['balanced_groups']} balanced"
    )


if __name__ == "__main__":
    main()
