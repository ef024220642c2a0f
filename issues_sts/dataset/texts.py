"""The text of an issue, exactly as it goes into a pair.

Recipe (kept identical everywhere, documented in the dataset card):

1. line endings normalised: ``\\r\\n`` and lone ``\\r`` become ``\\n``;
2. NUL characters removed (they break some tokenizers and viewers);
3. title and body each stripped of surrounding whitespace;
4. ``text = title + "\\n\\n" + body``; when the body is empty, ``text = title``.

Nothing else is touched: code blocks, stack traces, markdown and URLs are kept verbatim,
because the paper's point is that issues are long *because* of the code in them.
Pull requests and deleted/transferred issues (tombstones) are not issues of the dataset.
"""

from __future__ import annotations

import polars as pl

TEXT_COLUMNS = ("repo", "number", "url", "text")


def issue_text(title: str | None, body: str | None) -> str:
    """The recipe for one issue (the vectorised `issue_texts` must agree with it)."""
    clean_title = _normalise(title or "").strip()
    clean_body = _normalise(body or "").strip()
    return f"{clean_title}\n\n{clean_body}" if clean_body else clean_title


def _normalise(value: str) -> str:
    return value.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")


def _normalised(column: str) -> pl.Expr:
    return (
        pl.col(column).fill_null("")
        .str.replace_all("\r\n", "\n", literal=True)
        .str.replace_all("\r", "\n", literal=True)
        .str.replace_all("\x00", "", literal=True)
        .str.strip_chars()
    )


def issue_texts(issues: pl.DataFrame) -> tuple[pl.DataFrame, dict[str, int]]:
    """Issues of the store -> one row per usable issue: repo, number, url, text.

    Returns the frame sorted by (repo, number) and counters of what was dropped and why.
    """
    is_pr = pl.col("is_pull_request").fill_null(False)
    is_tomb = pl.col("tombstone").is_not_null()
    counters = {
        "issues_in_store": issues.height,
        "dropped_pull_request": issues.filter(is_pr).height,
        "dropped_tombstone": issues.filter(~is_pr & is_tomb).height,
    }
    kept = issues.filter(~is_pr & ~is_tomb).with_columns(
        _normalised("title").alias("_title"), _normalised("body").alias("_body")
    )
    texts = kept.select(
        "repo",
        "number",
        pl.col("html_url").fill_null(
            pl.format("https://github.com/{}/issues/{}", pl.col("repo"), pl.col("number"))
        ).alias("url"),
        pl.when(pl.col("_body") == "")
        .then(pl.col("_title"))
        .otherwise(pl.col("_title") + "\n\n" + pl.col("_body"))
        .alias("text"),
    )
    empty = texts.filter(pl.col("text") == "").height
    counters["dropped_empty_text"] = empty
    texts = texts.filter(pl.col("text") != "").sort("repo", "number")
    counters["issues_with_text"] = texts.height
    return texts, counters
