"""The build's reading of the store, a part of a repository at a time (at most
`store.PART_ISSUES` issues and their comments), so that memory does not grow with the store.

A dataset needs the texts of the few issues that end in pairs (about 40,000 of the paper's
2.5 million), but its statistics and its negatives need facts about every text: how many
issues have a usable text (and were dropped why), how many secrets were redacted, and which
issues mention which (two issues that reference each other are never a negative). `scan_store`
reads each repository's issues and comments once, keeps those facts and an index row per
issue, and lets the texts go. `fill_texts` then reads back the texts of the issues in pairs.

Each text goes through exactly the functions the in-memory build applies to the whole store
(`issue_texts`, `redact_column`, `references.mention_edges`), which work row by row, so the
streamed build gives the same bytes (a test compares the two).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import polars as pl

from issues_sts.dataset.redact import redact_column
from issues_sts.dataset.references import mention_edges
from issues_sts.dataset.texts import TextRecipe, issue_texts
from issues_sts.partwork import map_parts
from issues_sts.store import Part, Store

# the columns `issue_texts` reads
TEXT_INPUTS = ("repo", "number", "is_pull_request", "tombstone", "title", "body", "html_url", "created_at")


@dataclass(frozen=True)
class StoreScan:
    """Everything the build needs from every issue, without the texts."""

    texts: pl.DataFrame  # `issue_texts`' frame (repo, number, url, text, created_at) with `text` null
    counters: dict[str, int]  # `issue_texts`' counters over the whole store
    redaction: dict[str, int]  # `redact_column`'s counters over every text
    mentions: pl.DataFrame  # repo, number, to_repo, to_number: references in texts and comments


def _add(total: dict[str, int], part: dict[str, int]) -> None:
    """Sum counters, keeping the order their stage writes them in (stats.json is ordered)."""
    for key, value in part.items():
        total[key] = total.get(key, 0) + value


def _scan_part(store: Store, part: Part, recipe: TextRecipe) -> tuple[pl.DataFrame, dict[str, int], dict[str, int],
                                                                     pl.DataFrame]:
    """One part's index rows (texts dropped), counters, redaction counters and mentions."""
    repo, first, last = part
    span = (first, last)
    texts, text_counters = issue_texts(store.issues_frame(repo=repo, columns=TEXT_INPUTS, span=span), recipe)
    texts, redacted = redact_column(texts)
    comments = store.comments_frame(repo=repo, columns=("repo", "number", "body"), span=span)
    found = [mention_edges(texts, "text")] + ([mention_edges(comments, "body")] if comments.height else [])
    mentions = pl.concat(found).unique()  # repeats change nothing downstream
    return texts.with_columns(pl.lit(None, pl.Utf8).alias("text")), text_counters, redacted, mentions


def scan_store(store: Store, recipe: TextRecipe, *, on_repo: Callable[[str], None] | None = None) -> StoreScan:
    """One pass over the store, a part of a repository at a time (see the module's docstring),
    on every core for a big store (`map_parts`: the same result in the same order)."""
    parts: list[pl.DataFrame] = []
    mentions: list[pl.DataFrame] = []
    counters: dict[str, int] = {}
    redaction: dict[str, int] = {}
    store_parts = store.parts()
    for (repo, _, _), (texts, text_counters, redacted, found) in zip(
            store_parts, map_parts(store, store_parts, _scan_part, recipe), strict=True):
        _add(counters, text_counters)
        _add(redaction, redacted)
        mentions.append(found)
        parts.append(texts)
        if on_repo is not None:
            on_repo(repo)
    if not parts:  # an empty store: the in-memory path's shapes
        texts, counters = issue_texts(store.issues_frame(), recipe)
        texts, redaction = redact_column(texts)
        return StoreScan(texts, counters, redaction, mention_edges(texts, "text"))
    return StoreScan(pl.concat(parts), counters, redaction, pl.concat(mentions))


def fill_texts(store: Store, texts: pl.DataFrame, keys: pl.DataFrame, recipe: TextRecipe) -> pl.DataFrame:
    """`texts` with the `text` of the issues in `keys` (repo, number) read back from the store
    and made exactly as `scan_store` made them (recipe, then redaction)."""
    wanted = keys.unique().join(texts.select("repo", "number").with_row_index("_row"), on=["repo", "number"])
    rows: list[np.ndarray] = []
    values: list[pl.Series] = []
    for (repo,), group in wanted.sort("repo", "number").group_by("repo", maintain_order=True):
        issues = store.issues_frame(repo=str(repo), numbers=group["number"].to_list(), columns=TEXT_INPUTS)
        made, _ = issue_texts(issues, recipe)
        made, _ = redact_column(made)
        made = group.join(made.select("number", "text"), on="number", how="left")
        rows.append(made["_row"].to_numpy())
        values.append(made["text"])
    if not rows:
        return texts
    column = texts["text"].scatter(np.concatenate(rows), pl.concat(values))
    return texts.with_columns(column)


def pair_keys_frame(*frames: pl.DataFrame) -> pl.DataFrame:
    """(repo, number) of both ends of every pair in `frames` (positives, negatives)."""
    ends = [f.select(pl.col(f"repo{k}").alias("repo"), pl.col(f"number{k}").alias("number"))
            for f in frames for k in ("1", "2")]
    return pl.concat(ends).unique()
