"""Writing a build: a Hub-shaped folder, byte-identical for the same inputs, never half-done.

Layout of ``--out``::

    README.md                               dataset card (YAML: configs, features, split sizes)
    data/{train,valid,test}-00000-of-00001.parquet      config "default": text1, text2, label
    positive/{train,valid,test}-00000-of-00001.parquet  config "positive": anchor, positive
    pairs.parquet        every pair with provenance (split, label, repo/number/url of both ends,
                         signal, confidence) and both texts
    links.parquet        the link stage's table
    stats.json           every number and drop counter of every stage
    build_config.json    the effective configuration and tool versions
    token_lengths.png    the paper's violin plot
    manifest.json        sha256 and size of every other file (marks the folder as ours)

Everything is written to a sibling temporary folder that is renamed into place at the end,
so a failed build leaves the previous output (or nothing) behind.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from issues_sts.dataset.config import SPLITS
from issues_sts.errors import DatasetError, OutputDirError

MANIFEST = "manifest.json"
GENERATOR = "issues-sts build"
SHARD = "{split}-00000-of-00001.parquet"

DEFAULT_FEATURES = {"text1": "string", "text2": "string", "label": "int64"}
POSITIVE_FEATURES = {"anchor": "string", "positive": "string"}
_ARROW = {"string": pa.string(), "int64": pa.int64()}
# how every Parquet file of a build is written (deterministic: no timestamps, fixed codec)
PARQUET_OPTIONS: dict[str, Any] = {
    "compression": "zstd",
    "compression_level": 3,
    "use_dictionary": False,
    "write_statistics": True,
    "store_schema": True,
}


def features_schema(features: dict[str, str]) -> pa.Schema:
    """Arrow schema carrying `datasets` feature metadata, so types survive loading exactly."""
    hf = {
        "info": {
            "features": {
                name: {"dtype": dtype, "_type": "Value"} for name, dtype in features.items()
            }
        }
    }
    return pa.schema(
        [pa.field(n, _ARROW[t]) for n, t in features.items()],
        metadata={"huggingface": json.dumps(hf, sort_keys=True)},
    )


def write_parquet(frame: pl.DataFrame, path: Path, schema: pa.Schema | None = None) -> int:
    """Deterministic Parquet: fixed schema, codec and row-group size, no timestamps.
    Returns the in-memory Arrow size (what `datasets` calls num_bytes)."""
    table = frame.to_arrow()
    if schema is not None:
        table = table.select(schema.names).cast(schema)
    path.parent.mkdir(parents=True, exist_ok=True)
    if table.num_rows == 0:
        # no row group at all: `datasets` refuses a file whose first row group holds 0 rows
        pq.ParquetWriter(path, table.schema, **PARQUET_OPTIONS).close()
        return int(table.nbytes)
    pq.write_table(table, path, row_group_size=64_000, **PARQUET_OPTIONS)
    return int(table.nbytes)


def write_hub_shards(
    pairs: pl.DataFrame, root: Path
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, int]]]:
    """The two configs' shards; returns rows and Arrow bytes per config and split."""
    sizes: dict[str, dict[str, int]] = {"default": {}, "positive": {}}
    nbytes: dict[str, dict[str, int]] = {"default": {}, "positive": {}}
    for split in SPLITS:
        part = pairs.filter(pl.col("split") == split)
        sizes["default"][split] = sizes["positive"][split] = 0
        nbytes["default"][split] = nbytes["positive"][split] = 0
        if part.height == 0:  # --allow-empty-splits: `datasets` cannot read an empty shard
            continue
        nbytes["default"][split] = write_parquet(
            part.select("text1", "text2", "label"),
            root / "data" / SHARD.format(split=split),
            features_schema(DEFAULT_FEATURES),
        )
        pos = part.filter(pl.col("label") == 1).select(
            pl.col("text1").alias("anchor"), pl.col("text2").alias("positive")
        )
        nbytes["positive"][split] = write_parquet(
            pos, root / "positive" / SHARD.format(split=split), features_schema(POSITIVE_FEATURES)
        )
        sizes["default"][split] = part.height
        sizes["positive"][split] = pos.height
    return sizes, nbytes


def read_parquet(
    path: Path, columns: list[str] | None = None, *, needs: tuple[str, ...] = ()
) -> pl.DataFrame:
    """A Parquet file a build wrote (`columns` only), read for another command; missing,
    damaged or of another shape (without `needs` or `columns`) is one DatasetError (exit 6)."""
    what = f"{path} cannot be read as a build's Parquet file"
    try:
        frame = pl.read_parquet(path, columns=columns)
    except FileNotFoundError:
        raise DatasetError(f"{path} does not exist", hint=_READ_HINT) from None
    except (OSError, pl.exceptions.PolarsError, pa.ArrowException) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DatasetError(f"{what} ({first})", hint=_READ_HINT) from None
    missing = [name for name in needs if name not in frame.columns]
    if missing:
        raise DatasetError(f"{what}: it has no column {missing[0]!r}", hint=_READ_HINT)
    return frame


_READ_HINT = "point at a folder that `issues-sts build` wrote, or build it again"


def write_json(data: Any, path: Path) -> None:
    path.write_text(
        json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
    )


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def write_manifest(root: Path) -> dict[str, Any]:
    files = {
        name: {"sha256": sha256(root / name), "size": (root / name).stat().st_size}
        for name in _files(root)
        if name != MANIFEST
    }
    manifest = {"generator": GENERATOR, "files": files}
    write_json(manifest, root / MANIFEST)
    return manifest


def read_manifest(root: Path) -> dict[str, Any] | None:
    try:
        manifest = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return (
        manifest if isinstance(manifest, dict) and manifest.get("generator") == GENERATOR else None
    )


def is_ours(root: Path) -> bool:
    """A folder an earlier build wrote: a manifest of ours listing every file in it."""
    manifest = read_manifest(root)
    return manifest is not None and set(_files(root)) - {MANIFEST} <= set(manifest["files"])


def check_out_dir(out: Path) -> None:
    """Refuse an --out that is a file, a folder holding anything but an earlier build, or a
    place we cannot write: checked before any long work, not after it."""
    if out.exists() and not out.is_dir():
        raise OutputDirError(f"--out {out} is a file, not a folder")
    if out.is_dir() and any(out.iterdir()) and not is_ours(out):
        raise OutputDirError(f"--out {out} holds files that an issues-sts build did not write")
    _check_writable(out)


def _check_writable(out: Path) -> None:
    # The build replaces `out` by renaming a sibling folder into place, so what must be
    # writable is the parent. Mode bits are honoured even for root, who could write anyway:
    # a folder someone made read-only is not ours to replace.
    if out.is_dir() and not out.stat().st_mode & 0o222:
        raise OutputDirError(
            f"--out {out} is read-only", hint="choose another --out, or make it writable"
        )
    parent = _nearest_folder(out)
    reason = None if parent.stat().st_mode & 0o222 else "read-only"
    if reason is None:
        try:
            os.rmdir(tempfile.mkdtemp(dir=parent, prefix=f".{out.name}.probe-"))
        except OSError as exc:
            reason = exc.strerror or str(exc)
    if reason is not None:
        raise OutputDirError(
            f"--out {out}: cannot write in {parent} ({reason})",
            hint="choose an --out in a writable folder",
        )


def _nearest_folder(out: Path) -> Path:
    """The nearest folder of `out`'s path that exists, `out` left out (where it will go)."""
    parent = out.absolute().parent
    while not parent.exists():
        parent = parent.parent
    return parent


@contextmanager
def spill_folder(out: Path) -> Iterator[Path]:
    """A temporary folder for what a build spills to disk, beside `--out` (the nearest folder
    of its path that exists: nothing is created for a build that fails), removed at the end."""
    prefix = f".{out.name}.spill-"
    with tempfile.TemporaryDirectory(prefix=prefix, dir=_nearest_folder(out)) as folder:
        yield Path(folder)


@contextmanager
def staged_output(out: Path) -> Iterator[Path]:
    """Yield a temporary sibling folder; on success it replaces `out`, on failure it vanishes."""
    check_out_dir(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".{out.name}.partial-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        yield tmp
        check_out_dir(out)  # something may have appeared there while we were building
        old = out.parent / f".{out.name}.old-{os.getpid()}"
        try:
            if out.exists():
                out.rename(old)
            try:
                tmp.rename(out)
            except OSError:
                if old.exists():
                    old.rename(out)  # the earlier build stays where it was
                raise
        except OSError as exc:  # e.g. a folder made immutable: the mode bits did not say so
            raise OutputDirError(
                f"--out {out} cannot be replaced ({exc.strerror or exc}); nothing was written",
                hint="choose another --out, or fix what locks that folder",
            ) from None
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
