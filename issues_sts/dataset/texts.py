"""The text of an issue, exactly as it goes into a pair.

Recipe `readers` (the default: texts as readers see them on GitHub):

1. line endings normalised: ``\\r\\n`` and lone ``\\r`` become ``\\n``;
2. NUL characters removed (they break some tokenizers and viewers);
3. HTML comments (``<!-- ... -->``) removed from the body, except inside code blocks and
   inline code: GitHub does not show them, and issue templates fill them with boilerplate
   that every issue of a repository shares, which makes unrelated issues look alike;
   the blank lines they leave are collapsed;
4. title and body each stripped of surrounding whitespace;
5. ``text = title + "\\n\\n" + body``; when the body is empty, ``text = title``.

Recipe `raw` skips step 3 (the texts of builds before the recipe existed, byte for byte).
Nothing else is touched: code blocks, stack traces, markdown and URLs are kept verbatim,
because the paper's point is that issues are long *because* of the code in them.
Pull requests and deleted/transferred issues (tombstones) are not issues of the dataset.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

import numpy as np
import polars as pl

TextRecipe = Literal["readers", "raw"]
TEXT_COLUMNS = ("repo", "number", "url", "text", "created_at")

RECIPES: dict[str, str] = {
    "readers": (
        "HTML comments (`<!-- ... -->`, invisible on GitHub, mostly issue-template boilerplate) "
        "are removed from bodies outside code blocks and inline code, and the blank lines they "
        "leave collapsed."
    ),
    "raw": "HTML comments are kept (recipe `raw`: the bodies exactly as GitHub stores them).",
}

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_BLANK_RUNS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


def _strip_comments_in_line(line: str) -> tuple[str, bool, int]:
    """Remove closed comments outside inline code; returns (kept text, opened-but-unclosed
    comment, comments removed). An unclosed ``<!--`` hides the rest of the line."""
    kept: list[str] = []
    removed = 0
    pos = 0
    spans = [(m.start(), m.end()) for m in _INLINE_CODE.finditer(line)]
    for start, end in [*spans, (len(line), len(line))]:
        prose = line[pos:start]
        prose, n = _COMMENT.subn("", prose)
        removed += n
        opened = prose.find("<!--")
        if opened >= 0:
            kept.append(prose[:opened])
            return "".join(kept), True, removed + 1
        kept.append(prose + line[start:end])
        pos = end
    return "".join(kept), False, removed


def strip_html_comments(body: str) -> tuple[str, int]:
    """The body without the HTML comments a reader never sees, and how many were removed.

    Line by line: fenced code blocks are kept verbatim; a comment may span lines (until ``-->``)."""
    out: list[str] = []
    fence: str | None = None
    in_comment = False
    removed = 0
    for line in body.split("\n"):
        touched = in_comment
        if in_comment:
            end = line.find("-->")
            if end < 0:
                continue
            line, in_comment = line[end + 3 :], False
        if fence is not None:
            out.append(line)
            if line.strip().startswith(fence) and set(line.strip()) == {fence[0]}:
                fence = None
            continue
        opener = _FENCE.match(line)
        if opener:
            fence = opener.group(1)
            out.append(line)
            continue
        if "<!--" in line:  # without one, _strip_comments_in_line gives the line back as it is
            line, in_comment, n = _strip_comments_in_line(line)
            removed += n
        else:
            n = 0
        if not ((touched or n) and not line.strip()):  # a line that held only a comment goes
            out.append(line)
    text = "\n".join(out)
    return (_BLANK_RUNS.sub("\n\n", text) if removed else text), removed


def issue_text(title: str | None, body: str | None, recipe: TextRecipe = "readers") -> str:
    """The recipe for one issue (the vectorised `issue_texts` must agree with it)."""
    clean_body = _normalise(body or "")
    if recipe == "readers" and "<!--" in clean_body:
        clean_body = strip_html_comments(clean_body)[0]
    clean_title = _normalise(title or "").strip()
    clean_body = clean_body.strip()
    return f"{clean_title}\n\n{clean_body}" if clean_body else clean_title


def _normalise(value: str) -> str:
    return value.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")


def _normalised(column: str) -> pl.Expr:
    return (
        pl.col(column)
        .fill_null("")
        .str.replace_all("\r\n", "\n", literal=True)
        .str.replace_all("\r", "\n", literal=True)
        .str.replace_all("\x00", "", literal=True)
    )


def _reader_bodies(bodies: pl.Series) -> tuple[pl.Series, dict[str, int]]:
    """Step 3 on the few bodies holding ``<!--``: Python on those rows only."""
    flagged = bodies.str.contains("<!--", literal=True).fill_null(False).to_numpy()
    rows = np.flatnonzero(flagged)
    stripped = [strip_html_comments(b) for b in bodies.gather(rows).to_list()]
    removed = sum(n for _, n in stripped)
    counters = {
        "texts_with_html_comments": sum(1 for _, n in stripped if n),
        "html_comments_removed": removed,
        "html_comment_chars_removed": sum(len(b) for b in bodies.gather(rows).to_list())
        - sum(len(t) for t, _ in stripped),
    }
    if len(rows):
        bodies = bodies.scatter(rows, pl.Series([t for t, _ in stripped], dtype=pl.Utf8))
    return bodies, counters


def issue_texts(
    issues: pl.DataFrame, recipe: TextRecipe = "readers"
) -> tuple[pl.DataFrame, dict[str, int]]:
    """Issues of the store -> one row per usable issue: repo, number, url, text, created_at.

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
        _normalised("title").str.strip_chars().alias("_title"), _normalised("body").alias("_body")
    )
    if recipe == "readers":
        bodies, recipe_counters = _reader_bodies(kept["_body"])
        kept = kept.with_columns(bodies.alias("_body"))
        counters |= recipe_counters
    kept = kept.with_columns(pl.col("_body").str.strip_chars())
    created = pl.col("created_at") if "created_at" in kept.columns else pl.lit(None, pl.Utf8)
    texts = kept.select(
        "repo",
        "number",
        pl.col("html_url")
        .fill_null(pl.format("https://github.com/{}/issues/{}", pl.col("repo"), pl.col("number")))
        .alias("url"),
        pl.when(pl.col("_body") == "")
        .then(pl.col("_title"))
        .otherwise(pl.col("_title") + "\n\n" + pl.col("_body"))
        .alias("text"),
        created.cast(pl.Utf8).alias("created_at"),
    )
    empty = texts.filter(pl.col("text") == "").height
    counters["dropped_empty_text"] = empty
    texts = texts.filter(pl.col("text") != "").sort("repo", "number")
    counters["issues_with_text"] = texts.height
    return texts, counters


def store_texts(store_dir: Path) -> list[str]:
    """Every issue's text in a crawl store, built with the dataset's recipe and with secrets
    redacted: what a model may read from a store without building a dataset (RAN pretraining)."""
    from issues_sts.dataset.redact import redact_column
    from issues_sts.store import Store

    with Store.open(store_dir, readonly=True) as store:
        texts, _ = issue_texts(store.issues_frame())
    redacted, _ = redact_column(texts, "text")
    return list(redacted["text"])
