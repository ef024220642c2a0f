"""An earlier build as the next one needs it: the split of every issue it used, its
positive pairs (to weigh merges), and its version name."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl

from issues_sts.dataset.export import read_parquet
from issues_sts.dataset.splits import Previous
from issues_sts.errors import DatasetError

# Said by every refusal of an earlier build: what `--previous` (and `diff`) take.
PREVIOUS_HINT = "pass the --out folder of an earlier build, or a Hub id such as me/gis@v1"


def build_folder(ref: str | Path) -> Path:
    """`ref` as the folder of an earlier build, refused unless `issues-sts build` wrote it.
    A Hub id is the CLI's to download first (`issues_sts.hub.fetch.locate_build`)."""
    path = Path(ref)
    if not path.is_dir():
        raise DatasetError(f"no build folder {ref}", hint=PREVIOUS_HINT)
    if not (path / "pairs.parquet").is_file():
        raise DatasetError(
            f"{ref} is not a folder written by `issues-sts build` (no pairs.parquet)",
            hint=PREVIOUS_HINT,
        )
    return path


def read_previous(folder: Path) -> Previous:
    """The splits recorded in `folder/pairs.parquet` (both ends of every pair)."""
    pairs = read_parquet(
        folder / "pairs.parquet", columns=["split", "label", "repo1", "number1", "repo2", "number2"]
    )
    ends = (
        pl.concat(
            [
                pairs.select(
                    pl.col("repo1").alias("repo"), pl.col("number1").alias("number"), "split"
                ),
                pairs.select(
                    pl.col("repo2").alias("repo"), pl.col("number2").alias("number"), "split"
                ),
            ]
        )
        .unique()
        .sort("repo", "number", "split")
    )
    positives = pairs.filter(pl.col("label") == 1).select("repo1", "number1", "split")
    return Previous(issues=ends, positives=positives, version=build_version(folder))


def build_version(folder: Path) -> str | None:
    try:
        config = json.loads((folder / "build_config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    version = config.get("version") if isinstance(config, dict) else None
    return str(version) if version else None


def next_version(previous: str | None) -> str:
    """v1 for a first build; vN+1 after vN (any other name gets a `.1` suffix)."""
    if previous is None:
        return "v1"
    match = re.fullmatch(r"v(\d+)", previous)
    return f"v{int(match[1]) + 1}" if match else f"{previous}.1"
