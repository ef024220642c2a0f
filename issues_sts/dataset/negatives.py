"""Negative pairs, sampled inside each split (so they cannot leak across splits).

The paper calls "the remaining issues" negatives. Here a negative is two issues of the same
split that are *known not to be duplicates* as far as the data can tell: never the same
issue, never two members of one duplicate cluster, never two issues that reference each
other (references.py), never the same pair twice. Anchors are drawn uniformly from the
split's issues (cluster members included); the partner comes from the anchor's repository
with probability `same_repo_share` (harder and more realistic than a cross-project pair),
otherwise from the whole split.

`--negatives hard` replaces the partner by the anchor's most lexically similar valid issue
of the same repository: BM25 over the anchor's rarest terms (hard_negatives.py).
Everything is driven by one seeded numpy Generator per split.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
import polars as pl

from issues_sts.dataset.config import SPLITS
from issues_sts.dataset.hard_negatives import bm25_partners
from issues_sts.dataset.references import pair_keys

_MAX_ROUNDS = 50


@dataclass(frozen=True)
class IssueArrays:
    """The issues of the build as aligned arrays indexed by idx."""

    repo: np.ndarray  # int codes, equal codes = same repository
    group: np.ndarray  # equal = same duplicate cluster (or the same issue)
    split: np.ndarray  # index into SPLITS

    @classmethod
    def from_assignment(cls, assignment: pl.DataFrame) -> IssueArrays:
        ordered = assignment.sort("idx")
        repo = ordered["repo"].rank("dense").to_numpy().astype(np.int64)
        # null: an issue a merge left out of this version (splits.py); it joins no pool
        split = (
            ordered["split"]
            .replace_strict(list(SPLITS), list(range(len(SPLITS))), default=-1)
            .to_numpy()
        )
        return cls(repo, ordered["group"].to_numpy().astype(np.int64), split.astype(np.int64))


def _draw(
    rng: np.random.Generator, pool: np.ndarray, repo: np.ndarray, m: int, same_share: float
) -> tuple[np.ndarray, np.ndarray]:
    """m anchors from `pool` (sorted by repo) and a partner for each."""
    anchors = pool[rng.integers(0, len(pool), m)]
    partners = pool[rng.integers(0, len(pool), m)]
    pool_repo = repo[pool]
    start = np.searchsorted(pool_repo, repo[anchors], side="left")
    stop = np.searchsorted(pool_repo, repo[anchors], side="right")
    same = rng.random(m) < same_share
    offsets = np.floor(rng.random(m) * (stop - start)).astype(np.int64)
    partners = np.where(same, pool[start + offsets], partners)
    return anchors, partners


def _validate(
    a: np.ndarray,
    b: np.ndarray,
    issues: IssueArrays,
    refs: np.ndarray,
    taken: np.ndarray,
    counts: Counter[str],
) -> np.ndarray:
    """Boolean mask of candidate pairs that are valid negatives; counts every rejection."""
    n = np.int64(len(issues.group))
    keys = np.minimum(a, b) * n + np.maximum(a, b)
    self_pair = a == b
    same_cluster = ~self_pair & (issues.group[a] == issues.group[b])
    referenced = ~self_pair & ~same_cluster & np.isin(keys, refs)
    _, first = np.unique(keys, return_index=True)
    first_seen = np.zeros(len(keys), dtype=bool)
    first_seen[first] = True
    repeated = ~(self_pair | same_cluster | referenced) & (~first_seen | np.isin(keys, taken))
    counts["negative_rejected_self"] += int(self_pair.sum())
    counts["negative_rejected_same_cluster"] += int(same_cluster.sum())
    counts["negative_rejected_reference"] += int(referenced.sum())
    counts["negative_rejected_repeat"] += int(repeated.sum())
    return ~(self_pair | same_cluster | referenced | repeated)


def sample_random(
    rng: np.random.Generator,
    pool: np.ndarray,
    need: int,
    issues: IssueArrays,
    refs: np.ndarray,
    same_share: float,
    counts: Counter[str],
    taken: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """`need` valid negative pairs (anchor, partner) from `pool`, fewer only if impossible;
    pairs whose key is in `taken` are not drawn again."""
    got_a: list[np.ndarray] = []
    got_b: list[np.ndarray] = []
    taken = np.empty(0, dtype=np.int64) if taken is None else taken
    have = 0
    for _ in range(_MAX_ROUNDS):
        if have >= need or len(pool) < 2:
            break
        a, b = _draw(rng, pool, issues.repo, int((need - have) * 1.3) + 8, same_share)
        ok = _validate(a, b, issues, refs, taken, counts)
        a, b = a[ok][: need - have], b[ok][: need - have]
        got_a.append(a)
        got_b.append(b)
        taken = np.union1d(taken, pair_keys(a, b, len(issues.group)))
        have += len(a)
    if not got_a:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    return np.concatenate(got_a), np.concatenate(got_b)


def split_pools(issues: IssueArrays) -> dict[int, np.ndarray]:
    """Issue indices of each split, sorted by repository (then idx)."""
    pools = {}
    for k in range(len(SPLITS)):
        members = np.flatnonzero(issues.split == k)
        pools[k] = members[np.lexsort((members, issues.repo[members]))]
    return pools


def negatives_frame(
    a: np.ndarray, b: np.ndarray, split: np.ndarray, signal: np.ndarray, index: pl.DataFrame
) -> pl.DataFrame:
    """Index pairs -> repo1, number1, repo2, number2, split, signal, confidence (null)."""
    ordered = index.sort("idx")
    one, two = ordered[a.astype(np.int64)], ordered[b.astype(np.int64)]
    return pl.DataFrame(
        {
            "repo1": one["repo"],
            "number1": one["number"],
            "repo2": two["repo"],
            "number2": two["number"],
            "split": pl.Series(split.astype(np.int64)).replace_strict(
                list(range(len(SPLITS))), list(SPLITS), return_dtype=pl.Utf8
            ),
            "signal": pl.Series(signal.tolist(), dtype=pl.Utf8),
            "confidence": pl.Series([None] * len(a), dtype=pl.Float64),
        }
    )


@dataclass(frozen=True)
class HardMode:
    """Inputs of `--negatives hard`: term postings of every issue and the BM25 settings."""

    postings: pl.DataFrame
    query_terms: int = 24
    max_df: int = 1000


def _sample_hard(
    rng: np.random.Generator,
    pool: np.ndarray,
    need: int,
    issues: IssueArrays,
    refs: np.ndarray,
    hard: HardMode,
    counts: Counter[str],
) -> tuple[np.ndarray, np.ndarray]:
    """BM25 partners for `need` seeded anchors; failures are counted (caller falls back)."""
    if need == 0 or len(pool) < 2:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    anchors = (
        pool[rng.permutation(len(pool))[:need]]
        if need <= len(pool)
        else pool[rng.integers(0, len(pool), need)]
    )
    partners = bm25_partners(
        anchors,
        pool,
        hard.postings,
        issues.repo,
        issues.group,
        refs,
        query_terms=hard.query_terms,
        max_df=hard.max_df,
    )
    found = partners >= 0
    counts["hard_no_lexical_match"] += int((~found).sum())
    a, b = anchors[found], partners[found]
    ok = _validate(a, b, issues, refs, np.empty(0, dtype=np.int64), counts)
    counts["hard_bm25"] += int(ok.sum())
    return a[ok], b[ok]


def sample_negatives(
    assignment: pl.DataFrame,
    positives_per_split: dict[str, int],
    refs: np.ndarray,
    *,
    seed: int,
    ratio: float,
    same_repo_share: float,
    hard: HardMode | None = None,
) -> tuple[pl.DataFrame, dict[str, int]]:
    """round(ratio * positives) negatives for every split: random ones, or with `hard` BM25
    partners first and random ones for anchors that have no valid lexical match."""
    issues = IssueArrays.from_assignment(assignment)
    counts: Counter[str] = Counter()
    pools = split_pools(issues)
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    n = len(issues.group)
    for k, name in enumerate(SPLITS):
        need = int(round(ratio * positives_per_split.get(name, 0)))
        rng = np.random.default_rng([seed, k])
        a, b = np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
        if hard is not None:
            a, b = _sample_hard(rng, pools[k], need, issues, refs, hard, counts)
        signal = np.full(len(a), "bm25", dtype=object)
        ra, rb = sample_random(
            rng,
            pools[k],
            need - len(a),
            issues,
            refs,
            same_repo_share,
            counts,
            taken=pair_keys(a, b, n),
        )
        signal = np.concatenate(
            [
                signal,
                np.where(
                    issues.repo[ra] == issues.repo[rb], "random_same_repo", "random_other_repo"
                ),
            ]
        )
        a, b = np.concatenate([a, ra]), np.concatenate([b, rb])
        counts[f"negative_shortfall:{name}"] += need - len(a)
        parts.append((a, b, np.full(len(a), k, dtype=np.int64), signal))
    a, b, s, sig = (np.concatenate([p[i] for p in parts]) for i in range(4))
    frame = negatives_frame(a, b, s, sig, assignment.select("idx", "repo", "number"))
    counts["negatives"] = frame.height
    return frame, dict(sorted(counts.items()))
