"""The build's reading of the store, a part of a repository at a time (at most
`store.PART_ISSUES` issues and their comments), so that memory does not grow with the store.

A dataset needs the texts of the few issues that end in pairs (about 40,000 of the paper's
2.5 million), but its statistics and its negatives need facts about every text: how many
issues have a usable text (and were dropped why), how many secrets were redacted, and which
issues mention which (two issues that reference each other are never a negative).
`StoreScanner` is a consumer of the build's one pass over the store (`issues_sts.passes`,
shared with the link stage): it makes each part's texts, keeps those facts and an index row
per issue, and lets the texts go. `fill_texts` then reads back the texts of the issues in pairs.

Each text goes through exactly the functions a whole-store reading would apply (`issue_texts`,
`redact_column`, `references.mention_edges`), which work row by row, so how the store is cut
into parts does not change a byte (`tests/test_dataset_stream.py`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np
import polars as pl

from issues_sts.dataset.hard_negatives import part_postings, whole_postings
from issues_sts.dataset.redact import redact_column
from issues_sts.dataset.references import mention_edges
from issues_sts.dataset.texts import TextRecipe, issue_texts
from issues_sts.passes import PartFrames
from issues_sts.store import Store

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
    # with `StoreScanner(postings=True)`: `hard_negatives.term_postings` of every text (BM25)
    postings: pl.DataFrame | None = None
    # with `StoreScanner(spill=DIR)`: each part's redacted texts, in the parts' order
    spilled: tuple[Path, ...] = ()

    def spilled_texts(self) -> Iterator[pl.DataFrame]:
        """The redacted texts the scan spilled, a part at a time (each file goes once read):
        the build's corpus, without reading the store and redacting every text again."""
        for path in self.spilled:
            texts = pl.read_ipc(path.read_bytes())  # not mapped: the file goes now
            path.unlink()
            yield texts


def _add(total: dict[str, int], part: dict[str, int]) -> None:
    """Sum counters, keeping the order their stage writes them in (stats.json is ordered)."""
    for key, value in part.items():
        total[key] = total.get(key, 0) + value


# index rows (texts dropped), counters, redaction counters, mentions, term postings (or None),
# the spilled texts' file (or None)
ScanPart = tuple[
    pl.DataFrame, dict[str, int], dict[str, int], pl.DataFrame, pl.DataFrame | None, Path | None
]


@dataclass(frozen=True)
class StoreScanner:
    """The build's scan as a consumer of a pass over the store (`issues_sts.passes`): each
    part's texts made (`recipe`, then redaction), their facts kept and the texts let go.
    `postings`: also each text's terms, for the BM25 of hard negatives (a term's document
    frequency is counted over every part in `finish`). `spill`: a folder where each part's
    redacted texts are also written, for the retrieval view's corpus, which holds every text
    (reading and redacting them all again cost the build a second pass and its workers'
    memory at its peak)."""

    recipe: TextRecipe
    postings: bool = False
    spill: Path | None = None
    issue_columns: ClassVar[tuple[str, ...] | None] = TEXT_INPUTS
    comment_columns: ClassVar[tuple[str, ...]] = ("repo", "number", "body")

    def per_part(self, frames: PartFrames) -> ScanPart:
        texts, text_counters = issue_texts(frames.issues.select(TEXT_INPUTS), self.recipe)
        texts, redacted = redact_column(texts)
        comments = frames.comments.select(self.comment_columns)
        found = [mention_edges(texts, "text")] + (
            [mention_edges(comments, "body")] if comments.height else []
        )
        mentions = pl.concat(found).unique()  # repeats change nothing downstream
        return (
            texts.with_columns(pl.lit(None, pl.Utf8).alias("text")),
            text_counters,
            redacted,
            mentions,
            part_postings(texts) if self.postings else None,
            self._spill(frames.part, texts),
        )

    def _spill(self, part: tuple[str, int, int], texts: pl.DataFrame) -> Path | None:
        if self.spill is None:
            return None
        repo, first, _ = part
        path = self.spill / f"{repo.replace('/', '@')}.{first}.arrow"
        texts.write_ipc(path, compression="lz4")
        return path

    def finish(self, store: Store, results: list[ScanPart]) -> StoreScan:
        if not results:  # an empty store: the shapes of an empty frame's texts
            return self._empty(store)
        counters: dict[str, int] = {}
        redaction: dict[str, int] = {}
        for _, text_counters, redacted, *_ in results:
            _add(counters, text_counters)
            _add(redaction, redacted)
        return StoreScan(
            pl.concat([r[0] for r in results]),
            counters,
            redaction,
            pl.concat([r[3] for r in results]),
            whole_postings([(r[0].height, r[4]) for r in results if r[4] is not None])
            if self.postings
            else None,
            tuple(r[5] for r in results if r[5] is not None),
        )

    def _empty(self, store: Store) -> StoreScan:
        texts, counters = issue_texts(store.issues_frame(columns=TEXT_INPUTS), self.recipe)
        texts, redaction = redact_column(texts)
        postings = whole_postings([(0, part_postings(texts))]) if self.postings else None
        return StoreScan(texts, counters, redaction, mention_edges(texts, "text"), postings)


def fill_texts(
    store: Store, texts: pl.DataFrame, keys: pl.DataFrame, recipe: TextRecipe
) -> pl.DataFrame:
    """`texts` with the `text` of the issues in `keys` (repo, number) read back from the store
    and made exactly as `StoreScanner` made them (recipe, then redaction)."""
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
