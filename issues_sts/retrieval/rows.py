"""A crawl store's issues as the rows an index holds: the dataset's text recipe and redaction
(`issues_sts.dataset`'s public API, written once there), plus what `similar` shows.

One row per issue the recipe yields a text for (no pull requests, no tombstones, no empty
text): repo, number, title, state, created_at, url, text and `text_hash`, the key an
incremental `index` compares (a re-crawled issue whose text changed is embedded again).
The store is read a part at a time (`Store.parts`), so memory follows a part, not the store.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import polars as pl

from issues_sts.dataset import issue_texts, redact_column
from issues_sts.dataset.texts import TextRecipe
from issues_sts.store import Store

META_COLUMNS = ("repo", "number", "title", "state", "created_at", "url", "text_hash")
_READ = ("repo", "number", "is_pull_request", "tombstone", "title", "body", "state")
_READ_MORE = ("created_at", "html_url")


def text_hash(text: str) -> str:
    """The first 16 hex digits of the text's sha256: changes when the text does."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def part_rows(store: Store, part: tuple[str, int, int], recipe: TextRecipe) -> pl.DataFrame:
    """The rows of one part of the store, sorted by (repo, number)."""
    repo, first, last = part
    issues = store.issues_frame(repo=repo, span=(first, last), columns=(*_READ, *_READ_MORE))
    texts, _ = issue_texts(issues, recipe)
    texts, _ = redact_column(texts, "text")
    shown = issues.select("repo", "number", pl.col("title").fill_null(""), "state")
    rows = texts.join(shown, on=["repo", "number"], how="left")
    return rows.with_columns(
        pl.col("text").map_elements(text_hash, return_dtype=pl.Utf8).alias("text_hash"),
        pl.col("title").str.strip_chars(),
    ).select(*META_COLUMNS[:-1], "text", "text_hash")


def store_rows(store: Store, recipe: TextRecipe) -> Iterator[pl.DataFrame]:
    """`part_rows` of every part of the store, in (repo, number) order."""
    for part in store.parts():
        rows = part_rows(store, part, recipe)
        if rows.height:
            yield rows
