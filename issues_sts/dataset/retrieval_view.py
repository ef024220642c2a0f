"""The retrieval view of a build: duplicate retrieval in the layout of BEIR and MTEB.

Three configs next to the pairs, each a Parquet file `datasets.load_dataset(BUILD, CONFIG)`
reads:

- `corpus` (split `corpus`): `_id` (``owner/name#number``), `title`, `text`, `repo`,
  `number`, `created_at`. Every issue of the built repositories that has a text (pull
  requests, tombstones and empty texts are left out), with exactly the pairs' text and
  redaction (`texts.issue_texts`, then `redact.redact_column`). `text` is the whole pair text,
  title included; `title` repeats its first line for display, so do not join the two.
- `queries` (split `queries`): `_id`, `text`, `split`.
- `qrels` (splits `train`, `valid`, `test`): `query-id`, `corpus-id`, `score` (1), `split`.

The protocol, written once here (`retrieval_view`) and stated in the card and in
docs/retrieval.md:

- queries: every issue on the duplicate side of a positive pair of the split, once;
- candidates of a query: every corpus issue of the query's repository created strictly before
  it (the query itself excluded), whatever its split, as in a real tracker;
- relevant: every issue of the query's duplicate cluster (its canonical and the canonical's
  other duplicates among the positive pairs) that is a candidate: in the corpus, of the same
  repository, created strictly before the query;
- a query without such an issue is left out, and counted per split
  (`left_out_no_earlier_relevant`); one without a creation time too (`left_out_no_created_at`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow.parquet as pq

from issues_sts.dataset.config import SPLITS
from issues_sts.dataset.export import PARQUET_OPTIONS, SHARD, features_schema, write_parquet

CORPUS_FEATURES = {
    "_id": "string",
    "title": "string",
    "text": "string",
    "repo": "string",
    "number": "int64",
    "created_at": "string",
}
QUERY_FEATURES = {"_id": "string", "text": "string", "split": "string"}
QREL_FEATURES = {"query-id": "string", "corpus-id": "string", "score": "int64", "split": "string"}
CORPUS_FILE = f"corpus/{SHARD.format(split='corpus')}"
QUERIES_FILE = f"queries/{SHARD.format(split='queries')}"
QRELS_FOLDER = "qrels"
# rows per Parquet row group of the corpus: fixed, so the bytes do not depend on how the
# store's parts cut the issues (the streamed and the in-memory build write the same file)
CORPUS_ROW_GROUP = 10_000
NO_TIME = np.iinfo(np.int64).max  # a creation time that is not known: never "earlier"


def issue_id(repo: pl.Expr, number: pl.Expr) -> pl.Expr:
    """``owner/name#number``: the id of an issue in the corpus, the queries and the qrels."""
    return pl.format("{}#{}", repo, number)


def created_time(column: str = "created_at") -> pl.Expr:
    """The creation time as a UTC datetime (an ISO-8601 string in the store; null if none)."""
    return pl.col(column).str.to_datetime(time_zone="UTC", strict=False)


def earlier_mask(times: np.ndarray, query_time: int, itself: int | None = None) -> np.ndarray:
    """The protocol's candidate rule over one repository's rows: True where a row was created
    strictly before `query_time`, the row `itself` (the query's own, if among them) excluded.
    `times` share one integer unit; NO_TIME marks a row, or a query, without a creation time:
    such a row is nobody's candidate, and such a query has none."""
    if query_time == NO_TIME:
        return np.zeros(len(times), dtype=bool)
    mask = np.asarray(times) < query_time
    if itself is not None:
        mask[itself] = False
    return mask


def earlier_candidates(corpus: pl.DataFrame, query_ids: list[str]) -> list[np.ndarray]:
    """The protocol's candidates (`earlier_mask`): for each query (a corpus `_id`), the corpus
    rows of its repository created strictly before it, itself excluded, ascending. `corpus`
    has `_id`, `repo` and `created_at`; a query absent from it, or without a creation time,
    has none."""
    us = created_time().dt.epoch("us").fill_null(NO_TIME).alias("us")
    facts = corpus.select("_id", "repo", us).with_row_index("row")
    by_repo = {
        str(repo): (group["row"].to_numpy().astype(np.int64), group["us"].to_numpy())
        for (repo,), group in facts.group_by("repo", maintain_order=True)
    }
    where = {doc: (row, repo, us) for row, doc, repo, us in facts.iter_rows()}
    out = []
    for query in query_ids:
        row, repo, at = where.get(query, (-1, None, NO_TIME))
        if repo not in by_repo:
            out.append(np.zeros(0, dtype=np.int64))
            continue
        rows, times = by_repo[repo]
        itself = np.flatnonzero(rows == row)
        mask = earlier_mask(times, at, int(itself[0]) if len(itself) else None)
        out.append(np.sort(rows[mask]))
    return out


@dataclass(frozen=True)
class RetrievalView:
    """Queries (`_id`, repo, number, split) and qrels of a build, with what was left out."""

    queries: pl.DataFrame
    qrels: pl.DataFrame
    counters: dict[str, int]


def clusters_of(positives: pl.DataFrame) -> pl.DataFrame:
    """(cluster_repo, cluster_number, repo, number): each canonical with itself and its
    duplicates; a positive pair is (duplicate repo1/number1, canonical repo2/number2)."""
    canonical = [pl.col("repo2").alias("cluster_repo"), pl.col("number2").alias("cluster_number")]
    members = pl.concat(
        [
            positives.select(
                *canonical, pl.col("repo2").alias("repo"), pl.col("number2").alias("number")
            ),
            positives.select(
                *canonical, pl.col("repo1").alias("repo"), pl.col("number1").alias("number")
            ),
        ]
    )
    return members.unique().sort("cluster_repo", "cluster_number", "repo", "number")


def retrieval_view(positives: pl.DataFrame, index: pl.DataFrame) -> RetrievalView:
    """The protocol of the module docstring. `positives`: repo1, number1 (the duplicate),
    repo2, number2 (its canonical), split; `index`: repo, number, created_at of every corpus
    issue (`issue_texts`' frame)."""
    times = index.select("repo", "number", created_time().alias("time"))
    queries = (
        positives.select(pl.col("repo1").alias("repo"), pl.col("number1").alias("number"), "split")
        .filter(pl.col("split").is_not_null())
        .unique(subset=["repo", "number"], keep="first")
        .join(times, on=["repo", "number"], how="left")
        .join(
            positives.select(
                pl.col("repo1").alias("repo"),
                pl.col("number1").alias("number"),
                pl.col("repo2").alias("cluster_repo"),
                pl.col("number2").alias("cluster_number"),
            ).unique(subset=["repo", "number"], keep="first"),
            on=["repo", "number"],
        )
    )
    timed = queries.filter(pl.col("time").is_not_null())
    relevant = (
        timed.join(clusters_of(positives), on=["cluster_repo", "cluster_number"], suffix="_doc")
        .filter((pl.col("repo_doc") == pl.col("repo")) & (pl.col("number_doc") != pl.col("number")))
        .join(
            times.rename({"repo": "repo_doc", "number": "number_doc", "time": "time_doc"}),
            on=["repo_doc", "number_doc"],
        )
        .filter(pl.col("time_doc") < pl.col("time"))
    )
    qrels = relevant.select(
        issue_id(pl.col("repo"), pl.col("number")).alias("query-id"),
        issue_id(pl.col("repo_doc"), pl.col("number_doc")).alias("corpus-id"),
        pl.lit(1, pl.Int64).alias("score"),
        "split",
    ).sort("split", "query-id", "corpus-id")
    kept = timed.join(
        relevant.select("repo", "number").unique(), on=["repo", "number"], how="semi"
    ).select(issue_id(pl.col("repo"), pl.col("number")).alias("_id"), "repo", "number", "split")
    counters = _counters(queries, timed, kept, qrels)
    return RetrievalView(kept.sort("split", "_id"), qrels, counters)


def _counters(
    queries: pl.DataFrame, timed: pl.DataFrame, kept: pl.DataFrame, qrels: pl.DataFrame
) -> dict[str, int]:
    counters: dict[str, int] = {}
    for split in SPLITS:
        of = pl.col("split") == split
        asked, with_time = queries.filter(of).height, timed.filter(of).height
        counters[f"{split}_queries"] = kept.filter(of).height
        counters[f"{split}_qrels"] = qrels.filter(of).height
        counters[f"{split}_left_out_no_created_at"] = asked - with_time
        counters[f"{split}_left_out_no_earlier_relevant"] = with_time - kept.filter(of).height
    return counters


def corpus_rows(texts: pl.DataFrame) -> pl.DataFrame:
    """`issue_texts`' frame (redacted) -> the corpus config's columns."""
    return texts.select(
        issue_id(pl.col("repo"), pl.col("number")).alias("_id"),
        pl.col("text").str.split("\n\n").list.first().alias("title"),
        "text",
        "repo",
        pl.col("number").cast(pl.Int64),
        pl.col("created_at").cast(pl.Utf8),
    )


def query_rows(view: RetrievalView, texts: pl.DataFrame) -> pl.DataFrame:
    """The queries config: each kept query with its text (read from `texts`)."""
    return (
        view.queries.join(texts.select("repo", "number", "text"), on=["repo", "number"])
        .select("_id", "text", "split")
        .sort("split", "_id")
    )


class CorpusWriter:
    """The corpus Parquet written a part at a time, in row groups of a fixed size."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.schema = features_schema(CORPUS_FEATURES)
        self.writer = pq.ParquetWriter(path, self.schema, **PARQUET_OPTIONS)
        self.pending: list[pl.DataFrame] = []
        self.rows = 0
        self.nbytes = 0

    def add(self, texts: pl.DataFrame) -> None:
        """Append the corpus rows of one part's texts (`issue_texts`' frame, redacted)."""
        self.pending.append(corpus_rows(texts))
        buffered = pl.concat(self.pending)
        while buffered.height >= CORPUS_ROW_GROUP:
            self._flush(buffered.head(CORPUS_ROW_GROUP))
            buffered = buffered.slice(CORPUS_ROW_GROUP)
        self.pending = [buffered]

    def _flush(self, rows: pl.DataFrame) -> None:
        # one chunk per column: Parquet pages must not follow where the parts were cut
        table = rows.rechunk().to_arrow().select(self.schema.names).cast(self.schema)
        table = table.combine_chunks()
        self.writer.write_table(table, row_group_size=CORPUS_ROW_GROUP)
        self.rows += table.num_rows
        self.nbytes += int(table.nbytes)

    def close(self) -> tuple[int, int]:
        """(rows, Arrow bytes) written; the last, shorter row group goes out here."""
        rest = pl.concat(self.pending) if self.pending else pl.DataFrame()
        if rest.height:  # none written at all: a file without row groups, as `datasets` wants
            self._flush(rest)
        self.writer.close()
        return self.rows, self.nbytes


def write_corpus(parts: Iterable[pl.DataFrame], root: Path) -> tuple[int, int]:
    """Every part's texts into the corpus file under `root`: (rows, Arrow bytes)."""
    writer = CorpusWriter(root / CORPUS_FILE)
    try:
        for texts in parts:
            writer.add(texts)
    finally:
        rows_bytes = writer.close()
    return rows_bytes


def write_queries_and_qrels(
    view: RetrievalView, queries: pl.DataFrame, root: Path
) -> dict[str, dict[str, int]]:
    """The queries (`query_rows`) and qrels configs under `root`: rows per config and split,
    and their Arrow bytes (`<config>_bytes`)."""
    sizes: dict[str, dict[str, int]] = {
        "queries": {"queries": queries.height},
        "queries_bytes": {
            "queries": write_parquet(queries, root / QUERIES_FILE, features_schema(QUERY_FEATURES))
        },
        "qrels": {},
        "qrels_bytes": {},
    }
    for split in SPLITS:
        part = view.qrels.filter(pl.col("split") == split)
        sizes["qrels"][split] = part.height
        sizes["qrels_bytes"][split] = write_parquet(
            part, root / QRELS_FOLDER / SHARD.format(split=split), features_schema(QREL_FEATURES)
        )
    return sizes


def write_view(
    view: RetrievalView, queries: pl.DataFrame, corpus: Iterable[pl.DataFrame], root: Path
) -> dict[str, dict[str, int]]:
    """The three configs under `root`; rows and Arrow bytes per config and split."""
    rows, nbytes = write_corpus(corpus, root)
    return {
        "corpus": {"corpus": rows},
        "corpus_bytes": {"corpus": nbytes},
        **write_queries_and_qrels(view, queries, root),
    }
