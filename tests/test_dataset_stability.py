"""Property test: a rebuild from a grown store keeps every earlier issue in its split.

Random stores grow by new issues (created later, in existing repositories), new repositories
(any dates), new duplicate links, and links that merge earlier clusters. With the earlier
build at hand (`Previous`), every earlier issue keeps its split exactly or, when a merge
joined clusters from different splits, is left out of the new version and counted. Without
it, only merged clusters and clusters that gained an older member may move.
"""

from __future__ import annotations

from datetime import date, timedelta

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from issues_sts.dataset.pairs import positive_pairs
from issues_sts.dataset.splits import Previous, assign_splits, issue_groups, split_counters
from issues_sts.sandbox.stores import FixedLinks

FRACTIONS = {
    "train": 0.6,
    "valid": 0.2,
    "test": 0.2,
}  # wide splits: small stores exercise all three
Key = tuple[str, int]


def _texts(created: dict[Key, str]) -> pl.DataFrame:
    keys = sorted(created)
    return pl.DataFrame(
        {
            "repo": [k[0] for k in keys],
            "number": [k[1] for k in keys],
            "url": ["u"] * len(keys),
            "text": [f"{r}#{n}" for r, n in keys],
            "created_at": [created[k] for k in keys],
        }
    )


def _assign(
    created: dict[Key, str],
    links: list[tuple[Key, Key]],
    seed: int,
    previous: Previous | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    texts = _texts(created)
    table = FixedLinks.from_rows([(*a, *b) for a, b in links])
    positives, _ = positive_pairs(table.links, texts)
    groups = issue_groups(texts, positives, table.clusters)
    return assign_splits(groups, positives, FRACTIONS, seed, previous=previous), positives


def _day(i: int) -> str:
    return (date(2010, 1, 1) + timedelta(days=i)).isoformat() + "T00:00:00Z"


def _one_target_each(links: list[tuple[Key, Key]]) -> list[tuple[Key, Key]]:
    """Growth adds links; a duplicate marked again (re-targeted) would *lose* one, which is not
    growth. Merges still happen: an earlier canonical marked as a duplicate of another cluster."""
    seen: set[Key] = set()
    out = []
    for source, target in links:
        if source not in seen:
            seen.add(source)
            out.append((source, target))
    return out


@st.composite
def histories(
    draw: st.DrawFn,
) -> tuple[dict[Key, str], list[tuple[Key, Key]], dict[Key, str], list[tuple[Key, Key]]]:
    """(old issues with dates, old links, new issues with dates, new links)."""
    repos = ["a/x", "b/y", "c/z"][: draw(st.integers(1, 3))]
    old: dict[Key, str] = {}
    for repo in repos:
        for n in range(1, draw(st.integers(2, 15)) + 1):
            old[(repo, n)] = _day(draw(st.integers(0, 2000)))
    keys = sorted(old)
    pick = st.sampled_from(keys)
    distinct = st.tuples(pick, pick).filter(lambda ab: ab[0] != ab[1])
    old_links = _one_target_each(draw(st.lists(distinct, max_size=len(keys))))
    new: dict[Key, str] = {}
    for repo in repos:  # new issues: later numbers, later dates
        top = max(n for r, n in old if r == repo)
        for n in range(top + 1, top + 1 + draw(st.integers(0, 10))):
            new[(repo, n)] = _day(2100 + draw(st.integers(0, 300)))
    for repo in draw(
        st.lists(st.sampled_from(["d/new", "0/first"]), unique=True)
    ):  # new repositories, any dates
        for n in range(1, draw(st.integers(1, 10)) + 1):
            new[(repo, n)] = _day(draw(st.integers(0, 2400)))
    everything = sorted({**old, **new})
    any_key = st.sampled_from(everything)
    merges = draw(st.lists(distinct, max_size=4))  # old-to-old: may merge clusters
    fresh = st.tuples(any_key, any_key).filter(lambda ab: ab[0] != ab[1])
    new_links = _one_target_each(
        old_links + merges + draw(st.lists(fresh, max_size=len(everything)))
    )
    return old, old_links, new, new_links


def _previous(assignment: pl.DataFrame, positives: pl.DataFrame) -> Previous:
    issues = assignment.select("repo", "number", "split")
    with_split = positives.join(issues, left_on=["repo1", "number1"], right_on=["repo", "number"])
    return Previous(issues=issues, positives=with_split.select("repo1", "number1", "split"))


@settings(max_examples=60, deadline=None)
@given(histories(), st.integers(0, 2**31))
def test_every_earlier_issue_keeps_its_split_except_counted_merges(history, seed: int) -> None:  # type: ignore[no-untyped-def]
    old, old_links, new, new_links = history
    before, before_pos = _assign(old, old_links, seed)
    grown = {**old, **new}
    old_split = dict(
        zip(zip(before["repo"], before["number"], strict=True), before["split"], strict=True)
    )

    # 1. with the earlier build: exact, merges resolved and counted
    after, _ = _assign(grown, new_links, seed, _previous(before, before_pos))
    rows = after.filter(pl.col("pinned_from").is_not_null())
    assert rows.height == len(old)
    kept = rows.filter(pl.col("split").is_not_null())
    assert (kept["split"] == kept["pinned_from"]).all()
    left_out = rows.filter(pl.col("split").is_null())
    counters = split_counters(after)
    assert counters["merge_left_out_issues"] == left_out.height
    assert counters["merged_clusters"] == left_out["group"].n_unique()
    earlier_splits = rows.group_by("group").agg(pl.col("pinned_from").n_unique().alias("n"))
    merged = set(earlier_splits.filter(pl.col("n") > 1)["group"].to_list())
    assert (
        set(left_out["group"].to_list()) <= merged
    )  # only a merge across splits leaves an issue out
    for group in merged:  # the merged cluster went where most of its earlier issues' pairs were
        assert after.filter(pl.col("group") == group)["split"].drop_nulls().n_unique() == 1

    # 2. without it: only clusters that merged earlier clusters or gained an older member move
    free, _ = _assign(grown, new_links, seed)
    before_group = dict(
        zip(zip(before["repo"], before["number"], strict=True), before["group"], strict=True)
    )
    # balancing (proportions, no empty split) moves a few groups near the hash cut points (counted)
    filled_before = set(before.filter(pl.col("balanced"))["group"].to_list())
    moved_ok: set[int] = set()
    for group, members in free.group_by("group"):
        keys = list(zip(members["repo"], members["number"], strict=True))
        earlier = {before_group[k] for k in keys if k in before_group}
        oldest = min(keys, key=lambda k: (grown[k], k))
        if (
            len(earlier) > 1
            or oldest not in old
            or members["balanced"].any()
            or earlier & filled_before
        ):
            moved_ok.add(int(group[0]))  # type: ignore[arg-type]
    for repo, number, group, split in free.select("repo", "number", "group", "split").iter_rows():
        if (repo, number) in old_split and group not in moved_ok:
            assert split == old_split[(repo, number)], (repo, number)


def test_proportions_stay_on_track_as_the_store_grows() -> None:
    fractions = {"train": 18565 / 21660, "valid": 1547 / 21660, "test": 1548 / 21660}
    created = {("o/r", n): _day(n // 20) for n in range(1, 30001)}
    links = [(("o/r", 2 * i + 1), ("o/r", 2 * i + 2)) for i in range(12000)]
    grown = {**created, **{("n/ew", n): _day(n // 20) for n in range(1, 12001)}}
    grown_links = links + [(("n/ew", 2 * i + 1), ("n/ew", 2 * i + 2)) for i in range(5000)]
    grown_links += [(("o/r", 4 * i + 1), ("o/r", 4 * i + 3)) for i in range(300)]  # merges
    for store, edges in ((created, links), (grown, grown_links)):
        texts = _texts(store)
        table = FixedLinks.from_rows([(*a, *b) for a, b in edges])
        positives, _ = positive_pairs(table.links, texts)
        groups = issue_groups(texts, positives, table.clusters)
        for by in ("random", "time"):
            assignment = assign_splits(groups, positives, fractions, 42, by=by)  # type: ignore[arg-type]
            got = dict(
                positives.join(
                    assignment, left_on=["repo1", "number1"], right_on=["repo", "number"]
                )
                .group_by("split")
                .len()
                .iter_rows()
            )
            for split, frac in fractions.items():
                assert abs(got[split] / positives.height - frac) <= 0.01, (by, split, got)


def test_split_by_time_trains_on_the_older_clusters() -> None:
    created = {("o/r", n): _day(n) for n in range(1, 2001)}
    links = [
        (("o/r", 2 * i + 2), ("o/r", 2 * i + 1)) for i in range(900)
    ]  # clusters of two, then singles
    dated, _ = _assign_by_time(created, links)
    clustered = dated.filter(pl.col("number") <= 1800)
    newest_train = clustered.filter(pl.col("split") == "train")["created_at"].max()
    oldest_eval = clustered.filter(pl.col("split") != "train")["created_at"].min()
    assert newest_train is not None and oldest_eval is not None and newest_train <= oldest_eval
    assert (
        clustered.filter(pl.col("split") == "valid").height
        and clustered.filter(pl.col("split") == "test").height
    )
    singles = dated.filter(pl.col("number") > 1800)  # newer than every cluster: never train
    assert (singles["split"] != "train").all()


def _assign_by_time(
    created: dict[Key, str], links: list[tuple[Key, Key]]
) -> tuple[pl.DataFrame, pl.DataFrame]:
    texts = _texts(created)
    table = FixedLinks.from_rows([(*a, *b) for a, b in links])
    positives, _ = positive_pairs(table.links, texts)
    groups = issue_groups(texts, positives, table.clusters)
    return assign_splits(groups, positives, FRACTIONS, 3, by="time"), positives
