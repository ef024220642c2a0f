"""Property test: whatever the clusters, no issue and no cluster crosses splits."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from issues_sts.dataset.assemble import assemble_pairs, positives_with_split
from issues_sts.dataset.negatives import sample_negatives
from issues_sts.dataset.pairs import positive_pairs
from issues_sts.dataset.references import pair_keys
from issues_sts.dataset.splits import assign_splits, check_no_leakage, issue_groups
from issues_sts.errors import LeakageError
from issues_sts.sandbox.stores import FixedLinks

FRACTIONS = {"train": 18565 / 21660, "valid": 1547 / 21660, "test": 1548 / 21660}


@st.composite
def stores(draw: st.DrawFn) -> tuple[pl.DataFrame, FixedLinks]:
    n = draw(st.integers(4, 60))
    repos = draw(st.lists(st.sampled_from(["a/x", "b/y", "c/z"]), min_size=n, max_size=n))
    keys = [(repos[i], i + 1) for i in range(n)]
    edges = draw(
        st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=1, max_size=n)
    )
    rows = [(*keys[a], *keys[b]) for a, b in edges]
    texts = pl.DataFrame(
        {
            "repo": [k[0] for k in keys],
            "number": [k[1] for k in keys],
            "url": ["u"] * n,
            "text": [f"t{i}" for i in range(n)],
        }
    ).sort("repo", "number")
    return texts, FixedLinks.from_rows(rows)


@settings(max_examples=60, deadline=None)
@given(stores(), st.integers(0, 2**31), st.floats(0.5, 2.0))
def test_no_issue_crosses_splits(
    data: tuple[pl.DataFrame, FixedLinks], seed: int, ratio: float
) -> None:
    texts, links = data
    positives, _ = positive_pairs(links.links, texts)
    groups = issue_groups(texts, positives, links.clusters)
    assignment = assign_splits(groups, positives, FRACTIONS, seed)
    positives = positives_with_split(positives, assignment)
    per_split = dict(positives.group_by("split").len().iter_rows())
    negatives, _ = sample_negatives(
        assignment,
        per_split,
        np.empty(0, dtype=np.int64),
        seed=seed,
        ratio=ratio,
        same_repo_share=0.8,
    )
    pairs = assemble_pairs(positives, negatives, texts, seed)
    check_no_leakage(pairs, groups)  # the build's own guard agrees with the checks below

    ends = pl.concat(
        [
            pairs.select(pl.col("idx1").alias("idx"), "split"),
            pairs.select(pl.col("idx2").alias("idx"), "split"),
        ]
    )
    assert ends.group_by("idx").agg(pl.col("split").n_unique())["split"].max() in (None, 1)
    # every member of a cluster shares its split, whether or not it appears in a pair
    assert assignment.group_by("group").agg(pl.col("split").n_unique())["split"].max() == 1
    # positives never pair an issue with itself; negatives never join one cluster
    assert (pairs["idx1"] != pairs["idx2"]).all()
    group_of = assignment.sort("idx")["group"].to_numpy()
    neg = pairs.filter(pl.col("label") == 0)
    assert (group_of[neg["idx1"].to_numpy()] != group_of[neg["idx2"].to_numpy()]).all()
    assert (
        len(pair_keys(neg["idx1"].to_numpy(), neg["idx2"].to_numpy(), texts.height)) == neg.height
    )


def test_the_leakage_guard_fails_on_a_crossing_issue() -> None:
    pairs = pl.DataFrame(
        {
            "repo1": ["a/x", "a/x"],
            "number1": [1, 1],
            "repo2": ["a/x", "a/x"],
            "number2": [2, 3],
            "split": ["train", "test"],
        }
    )
    with pytest.raises(LeakageError):
        check_no_leakage(pairs)
