"""Reading a build's retrieval view (corpus, queries, qrels) from a folder or a Hub id.

A local build is read straight from the files `issues_sts.dataset.retrieval_view` writes; any
other source (a Hub id) through `datasets.load_dataset(SOURCE, CONFIG)`, the way a user would.
A build made before the view existed has none of the three: that is one DatasetError saying to
rebuild, not a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

from issues_sts.dataset.config import SPLITS
from issues_sts.dataset.retrieval_view import (
    CORPUS_FILE,
    QRELS_FOLDER,
    QUERIES_FILE,
)
from issues_sts.errors import ConfigError, DatasetError

_REBUILD = "build it again with `issues-sts build` (builds before the retrieval view lack it)"


@dataclass(frozen=True)
class RetrievalData:
    """One split's queries and qrels, and the whole corpus."""

    corpus: pl.DataFrame  # _id, title, text, repo, number, created_at
    queries: pl.DataFrame  # _id, text, split: the split's queries that have qrels
    qrels: pl.DataFrame  # query-id, corpus-id, score, split


def load_split(source: str, split: str) -> RetrievalData:
    """The retrieval view of `source` for `split`; no query in it is an error (exit 6)."""
    corpus, queries, qrels = _read(source, split)
    for name, frame, column in (
        ("corpus", corpus, "_id"),
        ("queries", queries, "_id"),
        ("qrels", qrels, "query-id"),
    ):
        if column not in frame.columns:
            raise DatasetError(f"the {name} of {source} has no column {column!r}", hint=_REBUILD)
    qrels = qrels.filter(pl.col("split") == split)
    queries = queries.filter(pl.col("split") == split).join(
        qrels.select(pl.col("query-id").alias("_id")).unique(), on="_id", how="semi"
    )
    if queries.height == 0:
        raise DatasetError(
            f"split {split!r} of {source} has no retrieval query (no duplicate in it has an "
            "earlier relevant issue): retrieval metrics over zero queries mean nothing",
            hint="evaluate another split (see the card's retrieval table), or build from more data",
        )
    return RetrievalData(corpus, queries.sort("_id"), qrels)


def _read(source: str, split: str) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    folder = Path(source)
    if folder.is_dir():
        return _read_folder(folder, split)
    if split not in SPLITS:
        raise ConfigError(f"the retrieval view has no split {split!r}", hint=_split_hint())
    return (
        _from_hub(source, "corpus", "corpus"),
        _from_hub(source, "queries", "queries"),
        _from_hub(source, "qrels", split),
    )


def _split_hint() -> str:
    return f"choose --split among {', '.join(SPLITS)}"


def _read_folder(folder: Path, split: str) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    qrels = folder / QRELS_FOLDER
    files = [folder / CORPUS_FILE, folder / QUERIES_FILE]
    if not all(path.is_file() for path in files) or not qrels.is_dir():
        raise DatasetError(
            f"{folder} has no retrieval view (corpus, queries, qrels)", hint=_REBUILD
        )
    shards = sorted(qrels.glob(f"{split}-*.parquet"))
    if not shards:
        known = sorted({p.name.split("-")[0] for p in qrels.glob("*.parquet")})
        raise ConfigError(
            f"{folder} has no retrieval split {split!r} (it has {', '.join(known) or 'none'})",
            hint="choose --split among those",
        )
    try:
        return (
            pl.read_parquet(files[0]),
            pl.read_parquet(files[1]),
            pl.concat([pl.read_parquet(p) for p in shards]),
        )
    except (OSError, pl.exceptions.PolarsError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DatasetError(
            f"the retrieval view of {folder} cannot be read ({first})", hint=_REBUILD
        ) from None


def _from_hub(source: str, config: str, split: str) -> pl.DataFrame:
    import datasets

    try:
        loaded = datasets.load_dataset(source, config, split=split)
    except Exception as exc:  # datasets raises many unrelated types for a bad source
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DatasetError(
            f"cannot load the retrieval view's {config!r} of {source!r}: {first}",
            hint=f"pass a build's folder or Hub id; {_REBUILD}",
        ) from None
    frame = loaded.to_polars()
    assert isinstance(frame, pl.DataFrame)
    return frame
