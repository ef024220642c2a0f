"""The index folder on disk, and what makes two indexes' vectors comparable.

    IDX/
      index.json          the manifest: format, IndexSpec, the live generation, per-repository
                          row ranges and ANN files, file sizes, the last run's counters
      g000002/            the live generation (never written again once named)
        rows.parquet      repo, number, title, state, created_at, created_s, url, text_hash
        texts.parquet     repo, number, text (BM25 for --method hybrid)
        vectors.npy       float32 (rows, dimensions), L2-normalised, in rows' order
        ann/*.faiss       an IVF-SQ8 index per repository of at least ANN_MIN_ROWS rows
        bm25/NNNNN/       a BM25 index (bm25s's files) per repository, for --method hybrid
      pending/            an unfinished run: spec.json and chunks NNNNNN.npz (repo, number,
                          text_hash, vectors), each renamed into place whole

Every change becomes visible in one `os.replace` of index.json: a run killed at any moment
leaves the previous generation intact and its committed chunks in pending/, which the same
command reuses.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from issues_sts.errors import ConfigError, DatasetError

FORMAT = 2
# format 1 (IVF-Flat ANN files, no saved BM25) is still read: its vectors and rows are the
# same, `similar` re-ranks its IVF hits as format 2's and builds BM25 at question time, and
# the next `index` run rebuilds its ANN and BM25 files without embedding anything again
READABLE = (1, 2)
MANIFEST = "index.json"
PENDING = "pending"
SPEC_FILE = "spec.json"
# a fixed text whose vector fingerprints the weights: the same model name with other weights
# (a run folder trained again) embeds it differently
PROBE_TEXT = "error: the build panics when the config file is missing"
PROBE_TOLERANCE = 1e-3


@dataclass(frozen=True)
class IndexSpec:
    """What the vectors were made with; an index only ever holds vectors of one spec."""

    model: str
    pooling: str
    max_length: int
    recipe: str
    dimensions: int
    probe: tuple[float, ...]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> IndexSpec:
        return cls(
            model=str(data["model"]),
            pooling=str(data["pooling"]),
            max_length=int(data["max_length"]),
            recipe=str(data["recipe"]),
            dimensions=int(data["dimensions"]),
            probe=tuple(float(x) for x in data["probe"]),
        )

    def difference(self, other: IndexSpec) -> str | None:
        """The first thing that makes `other`'s vectors incomparable with these, or None."""
        for name in ("model", "pooling", "max_length", "recipe", "dimensions"):
            mine, theirs = getattr(self, name), getattr(other, name)
            if mine != theirs:
                return f"{name} {theirs!r}, but the index holds {name} {mine!r}"
        if not np.allclose(self.probe, other.probe, atol=PROBE_TOLERANCE):
            return f"model {other.model!r} has other weights than when the index was made"
        return None


def mismatch_error(index_dir: Path, why: str) -> ConfigError:
    return ConfigError(
        f"the index {index_dir} was made with another model or recipe: {why}",
        hint="pass the index's --model/--recipe (see its index.json), or use a new --out",
    )


def damaged(index_dir: Path, why: str) -> DatasetError:
    return DatasetError(
        f"the index {index_dir} is damaged ({why})",
        hint=f"move {index_dir} away and run `issues-sts index` again to rebuild it",
    )


def write_json_atomic(path: Path, data: Mapping[str, Any]) -> None:
    """`data` as JSON at `path`, replaced whole: a reader sees the old file or the new one."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(data, indent=2, sort_keys=True) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def read_manifest(index_dir: Path) -> dict[str, Any] | None:
    """The manifest, None where no run has finished yet; a damaged one is a DatasetError."""
    path = index_dir / MANIFEST
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        if data.get("format") not in READABLE:
            raise ValueError(f"format {data.get('format')!r}, this issues-sts reads {READABLE}")
        IndexSpec.from_json(data["spec"])
        for key in ("generation", "rows", "repos", "files"):
            data[key]  # noqa: B018 - a missing key is damage
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise damaged(index_dir, f"{MANIFEST}: {exc}") from None
    return data


def check_files(index_dir: Path, manifest: Mapping[str, Any]) -> Path:
    """The live generation's folder, once every file the manifest names has its size."""
    generation = index_dir / str(manifest["generation"])
    for name, size in manifest["files"].items():
        path = generation / name
        if not path.is_file():
            raise damaged(index_dir, f"{path.relative_to(index_dir)} is missing")
        if path.stat().st_size != int(size):
            raise damaged(index_dir, f"{path.relative_to(index_dir)} has the wrong size")
    return generation
