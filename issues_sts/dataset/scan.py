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

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
import polars as pl

from issues_sts.dataset.redact import redact_column
from issues_sts.dataset.references import mention_edges
from issues_sts.dataset.texts import TextRecipe, issue_texts
from issues_sts.links import (
    THREAD_COMMENT_COLUMNS,
    DuplicateLink,
    LinkConfig,
    LinkTable,
    PartLinks,
    ThreadReaders,
    build_links,
    finish_links,
    link_config,
    part_links,
)
from issues_sts.partwork import map_parts, workers_for
from issues_sts.store import Part, Store

# the columns `issue_texts` reads
TEXT_INPUTS = (
    "repo",
    "number",
    "is_pull_request",
    "tombstone",
    "title",
    "body",
    "html_url",
    "created_at",
)


@dataclass(frozen=True)
class StoreScan:
    """Everything the build needs from every issue, without the texts."""

    texts: (
        pl.DataFrame
    )  # `issue_texts`' frame (repo, number, url, text, created_at) with `text` null
    counters: dict[str, int]  # `issue_texts`' counters over the whole store
    redaction: dict[str, int]  # `redact_column`'s counters over every text
    mentions: pl.DataFrame  # repo, number, to_repo, to_number: references in texts and comments


def _add(total: dict[str, int], part: dict[str, int]) -> None:
    """Sum counters, keeping the order their stage writes them in (stats.json is ordered)."""
    for key, value in part.items():
        total[key] = total.get(key, 0) + value


ScanPart = tuple[pl.DataFrame, dict[str, int], dict[str, int], pl.DataFrame]


def _scan_part(store: Store, part: Part, recipe: TextRecipe) -> ScanPart:
    """One part's index rows (texts dropped), counters, redaction counters and mentions."""
    repo, first, last = part
    span = (first, last)
    issues = store.issues_frame(repo=repo, columns=TEXT_INPUTS, span=span)
    return _scan_frames(
        issues,
        store.comments_frame(repo=repo, columns=("repo", "number", "body"), span=span),
        recipe,
    )


def _scan_frames(issues: pl.DataFrame, comments: pl.DataFrame, recipe: TextRecipe) -> ScanPart:
    texts, text_counters = issue_texts(issues, recipe)
    texts, redacted = redact_column(texts)
    found = [mention_edges(texts, "text")] + (
        [mention_edges(comments, "body")] if comments.height else []
    )
    mentions = pl.concat(found).unique()  # repeats change nothing downstream
    return (
        texts.with_columns(pl.lit(None, pl.Utf8).alias("text")),
        text_counters,
        redacted,
        mentions,
    )


def _links_and_scan_part(
    store: Store, part: Part, args: tuple[LinkConfig, TextRecipe, ThreadReaders | None]
) -> tuple[PartLinks, ScanPart]:
    """The link stage's and the scan's work on one part from one reading of its rows."""
    cfg, recipe, readers = args
    repo, first, last = part
    issues = store.issues_frame(repo=repo, span=(first, last))
    # every comment's body, for both; who posted it, when and where: only for threads read
    comments = store.comments_frame(repo=repo, columns=THREAD_COMMENT_COLUMNS, span=(first, last))
    links = part_links(store, part, cfg, issues, comments, readers)
    return links, _scan_frames(
        issues.select(TEXT_INPUTS), comments.select("repo", "number", "body"), recipe
    )


def links_and_scan(
    store: Store, recipe: TextRecipe, cfg: LinkConfig
) -> tuple[LinkTable, StoreScan]:
    """`build_links(store, cfg)` and `scan_store(store, recipe)` in one pass over the store:
    each part's issues and comments are read once for both (on every core for a big store).
    The same link table and scan as the two calls, part by part in the same order."""
    cfg = link_config(store, cfg)
    store_parts = store.parts()
    if not store_parts:
        return build_links(store, cfg), scan_store(store, recipe)
    counters: Counter[str] = Counter()
    found: list[DuplicateLink] = []
    scanned: list[ScanPart] = []
    with ThreadReaders(
        cfg
    ) as readers:  # a small store's big parts: their threads in a pool, as build_links does
        arg = (cfg, recipe, None if workers_for(store_parts) else readers)
        for (links, part_counters, _), scan in map_parts(
            store, store_parts, _links_and_scan_part, arg
        ):
            counters.update(part_counters)
            found.extend(links)
            scanned.append(scan)
    return finish_links(store, found, counters), _gather(scanned)


def _gather(scanned: Iterable[ScanPart], on_repo: Callable[[], None] | None = None) -> StoreScan:
    parts: list[pl.DataFrame] = []
    mentions: list[pl.DataFrame] = []
    counters: dict[str, int] = {}
    redaction: dict[str, int] = {}
    for texts, text_counters, redacted, found in scanned:
        _add(counters, text_counters)
        _add(redaction, redacted)
        mentions.append(found)
        parts.append(texts)
        if on_repo is not None:
            on_repo()
    return StoreScan(pl.concat(parts), counters, redaction, pl.concat(mentions))


def scan_store(
    store: Store, recipe: TextRecipe, *, on_repo: Callable[[str], None] | None = None
) -> StoreScan:
    """One pass over the store, a part of a repository at a time (see the module's docstring),
    on every core for a big store (`map_parts`: the same result in the same order)."""
    store_parts = store.parts()
    if not store_parts:  # an empty store: the in-memory path's shapes
        texts, counters = issue_texts(store.issues_frame(), recipe)
        texts, redaction = redact_column(texts)
        return StoreScan(texts, counters, redaction, mention_edges(texts, "text"))
    names = iter([repo for repo, _, _ in store_parts])
    return _gather(
        map_parts(store, store_parts, _scan_part, recipe),
        (lambda: on_repo(next(names))) if on_repo is not None else None,
    )


def fill_texts(
    store: Store, texts: pl.DataFrame, keys: pl.DataFrame, recipe: TextRecipe
) -> pl.DataFrame:
    """`texts` with the `text` of the issues in `keys` (repo, number) read back from the store
    and made exactly as `scan_store` made them (recipe, then redaction)."""
    wanted = keys.unique().join(
        texts.select("repo", "number").with_row_index("_row"), on=["repo", "number"]
    )
    rows: list[np.ndarray] = []
    values: list[pl.Series] = []
    for (repo,), group in wanted.sort("repo", "number").group_by("repo", maintain_order=True):
        issues = store.issues_frame(
            repo=str(repo), numbers=group["number"].to_list(), columns=TEXT_INPUTS
        )
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
    ends = [
        f.select(pl.col(f"repo{k}").alias("repo"), pl.col(f"number{k}").alias("number"))
        for f in frames
        for k in ("1", "2")
    ]
    return pl.concat(ends).unique()
