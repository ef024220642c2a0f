"""`issues-sts index`: every issue of a crawl store embedded into a vector index on disk.

    from issues_sts.retrieval.indexer import IndexConfig, run_index
    summary = run_index(IndexConfig(store=Path("data/store"), out=Path("data/index")))

Three steps, each safe to kill:

1. scan: the store is read a part at a time (read-only) into rows (`rows.py`); their texts go
   to staging/, and each row's key (repo, number, text hash) is looked up among the vectors
   the live generation and pending/ hold already;
2. embed: only the rows no vector exists for (new issues, changed texts), in chunks of
   `chunk_rows`, each committed to pending/ whole (`pending.py`);
3. publish: a new generation (rows, texts, vectors, ANN indexes) is written beside the live one
   and named live by replacing index.json (`layout.py`); then the old one and pending/ go.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import polars as pl
from pydantic import Field

from issues_sts.config import Option
from issues_sts.errors import OutputDirError, OutputError, StoreError, os_errors
from issues_sts.report import SILENT, Reporter
from issues_sts.retrieval.layout import (
    FORMAT,
    MANIFEST,
    PENDING,
    PROBE_TEXT,
    IndexSpec,
    check_files,
    mismatch_error,
    read_manifest,
    write_json_atomic,
)
from issues_sts.retrieval.pending import Key, Pending
from issues_sts.retrieval.publish import Generation, write_generation
from issues_sts.retrieval.rows import store_rows
from issues_sts.store import Store

STAGING = "staging"
OURS = {MANIFEST, PENDING, STAGING}


@dataclass(frozen=True)
class IndexConfig:
    """What `index` embeds and where. `model` None: the untrained offline backbone."""

    store: Annotated[Path, Option("--store", help="Crawl store directory.")]
    out: Annotated[Path, Option("--out", help="Index folder (new or earlier).")]
    model: Annotated[
        str | None,
        Option(
            "--model", help="Model folder, run folder or Hub id (default: the offline backbone)."
        ),
    ] = None
    pooling: Annotated[str | None, Option("--pooling", help="Override the model's pooling.")] = None
    max_length: Annotated[
        int | None,
        Option("--max-length", help="Token limit (default: the model's own)."),
        Field(ge=8),
    ] = None
    recipe: Annotated[
        Literal["readers", "raw"], Option("--recipe", help="Text recipe: readers or raw.")
    ] = "readers"
    batch_size: Annotated[
        int, Option("--batch-size", help="Texts per forward pass."), Field(ge=1)
    ] = 32
    chunk_rows: Annotated[
        int,
        Option("--chunk-rows", help="Texts per committed chunk: the most Ctrl-C can lose."),
        Field(ge=1),
    ] = 256


@dataclass(frozen=True)
class IndexSummary:
    out: Path
    rows: int
    repos: int
    embedded: int
    resumed: int
    unchanged: int
    changed: int
    removed: int
    ann_repos: int
    seconds: float

    def counters(self) -> dict[str, int]:
        return {
            "rows": self.rows,
            "repos": self.repos,
            "embedded": self.embedded,
            "resumed": self.resumed,
            "unchanged": self.unchanged,
            "changed": self.changed,
            "removed": self.removed,
            "ann_repos": self.ann_repos,
        }


def run_index(cfg: IndexConfig, reporter: Reporter = SILENT) -> IndexSummary:
    """Embed what the index lacks and publish a new generation; see the module docstring."""
    from issues_sts.retrieval.encode import load_encoder

    started = time.perf_counter()
    manifest = _existing(cfg.out)
    pending = Pending(cfg.out)
    earlier = [s for s in (_spec(manifest), pending.spec()) if s is not None]
    _refuse(cfg, earlier, lambda spec: _asked_difference(cfg, spec))  # before a model loads
    with Store.open(cfg.store, readonly=True) as store:  # a bad store fails before it too
        encoder = load_encoder(cfg.model, cfg.pooling, cfg.max_length)
        spec = spec_of(encoder, cfg.model, cfg.recipe, cfg.max_length)
        _refuse(cfg, earlier, lambda made: made.difference(spec))
        with os_errors(OutputError, f"--out {cfg.out} cannot be written"):
            pending.start(spec)
            parts, meta = _scan(cfg, store, reporter)
    with os_errors(OutputError, f"--out {cfg.out} cannot be written"):
        live = _live_keys(cfg.out, manifest)
        resumed = sum(1 for key in pending.vectors if key not in live)
        wanted = _missing(meta, live, pending)
        _embed(cfg, encoder, parts, wanted, pending, reporter)
        vector = _vector_source(cfg.out, manifest, live, pending)
        generation = write_generation(cfg.out, spec, meta, parts, vector, reporter, manifest)
        counters = _counters(meta, live, wanted, resumed)
        _publish(cfg, manifest, generation, spec, counters)
    return IndexSummary(
        cfg.out, seconds=time.perf_counter() - started, ann_repos=generation.ann_repos, **counters
    )


def _spec(manifest: dict[str, Any] | None) -> IndexSpec | None:
    return IndexSpec.from_json(manifest["spec"]) if manifest is not None else None


def _refuse(
    cfg: IndexConfig, specs: list[IndexSpec], difference: Callable[[IndexSpec], str | None]
) -> None:
    for spec in specs:
        why = difference(spec)
        if why:
            raise mismatch_error(cfg.out, why)


def _asked_difference(cfg: IndexConfig, spec: IndexSpec) -> str | None:
    """What the options alone tell apart from `spec` (the weights need the model loaded)."""
    asked: dict[str, object] = {"model": model_name(cfg.model), "recipe": cfg.recipe}
    if cfg.pooling is not None:
        asked["pooling"] = cfg.pooling
    if cfg.max_length is not None:
        asked["max_length"] = cfg.max_length
    for name, value in asked.items():
        if getattr(spec, name) != value:
            return f"{name} {value!r}, but the index holds {name} {getattr(spec, name)!r}"
    return None


def model_name(model: str | None) -> str:
    """How the manifest names a model: a folder by its absolute path, else the name given."""
    from issues_sts.dataset import offline_model_path

    if model is None:
        return f"offline backbone ({Path(offline_model_path()).parent.name})"
    path = Path(model)
    return str(path.resolve()) if path.exists() else model


def spec_of(encoder: Any, model: str | None, recipe: str, max_length: int | None) -> IndexSpec:
    """What vectors made by `encoder` are (see IndexSpec), its probe vector embedded now."""
    from issues_sts.retrieval.encode import encode_texts

    probe = encode_texts(encoder, [PROBE_TEXT], batch_size=1, max_length=max_length)[0]
    length = max_length or getattr(encoder, "max_seq_length", None) or 0
    return IndexSpec(
        model=model_name(model),
        pooling=str(getattr(encoder, "pooling", None) or type(encoder).__name__),
        max_length=int(length),
        recipe=recipe,
        dimensions=int(encoder.embedding_dim),
        probe=tuple(round(float(x), 6) for x in probe[:16]),
    )


def _existing(out: Path) -> dict[str, Any] | None:
    """The live manifest; a folder holding anything that is not an index's is refused."""
    if out.exists() and not out.is_dir():
        raise OutputDirError(f"--out {out} is a file, not an index folder")
    if not out.exists():
        return None
    manifest = read_manifest(out)
    foreign = [p.name for p in out.iterdir() if p.name not in OURS and not _is_generation(p.name)]
    if foreign and manifest is None:
        raise OutputDirError(
            f"--out {out} holds files that are not an index's ({', '.join(sorted(foreign)[:3])})",
            hint="choose a new or empty --out folder, or one `issues-sts index` wrote",
        )
    if manifest is not None:
        check_files(out, manifest)
    return manifest


def _is_generation(name: str) -> bool:
    """g000002, or a generation whose writing was cut short (g000003.partial)."""
    name = name.removesuffix(".partial")
    return len(name) == 7 and name[0] == "g" and name[1:].isdigit()


def _live_keys(out: Path, manifest: dict[str, Any] | None) -> dict[Key, int]:
    """The live generation's rows: key -> position in its vectors."""
    if manifest is None:
        return {}
    rows = pl.read_parquet(out / manifest["generation"] / "rows.parquet").select(
        "repo", "number", "text_hash"
    )
    return {key: i for i, key in enumerate(rows.iter_rows())}


def _scan(cfg: IndexConfig, store: Store, reporter: Reporter) -> tuple[list[Path], pl.DataFrame]:
    """The store's rows: texts to staging/ part by part, the rest kept (no texts)."""
    staging = cfg.out / STAGING
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    parts: list[Path] = []
    metas: list[pl.DataFrame] = []
    reporter.stage("reading the store", total=len(store.parts()))
    for rows in store_rows(store, cfg.recipe):
        path = staging / f"texts-{len(parts):05d}.parquet"
        rows.select("repo", "number", "text_hash", "text").write_parquet(path)
        parts.append(path)
        metas.append(rows.drop("text"))
        reporter.advance(1, note=f"{sum(m.height for m in metas):,} issues")
    if not metas:
        raise StoreError(
            f"the crawl store {cfg.store} holds no issue with a text to index",
            hint="crawl some repositories first (pull requests are not indexed)",
        )
    return parts, pl.concat(metas)


def _missing(meta: pl.DataFrame, live: dict[Key, int], pending: Pending) -> set[Key]:
    keys = meta.select("repo", "number", "text_hash").iter_rows()
    return {key for key in keys if key not in live and key not in pending.vectors}


def _embed(
    cfg: IndexConfig,
    encoder: Any,
    parts: list[Path],
    wanted: set[Key],
    pending: Pending,
    reporter: Reporter,
) -> None:
    """Embed the `wanted` rows chunk by chunk; each chunk is committed before the next."""
    from issues_sts.retrieval.encode import encode_texts

    reporter.stage("embedding issues", total=len(wanted))
    if not wanted:
        return
    for path in parts:
        texts = pl.read_parquet(path)
        rows = [row for row in texts.iter_rows() if row[:3] in wanted]
        for start in range(0, len(rows), cfg.chunk_rows):
            chunk = rows[start : start + cfg.chunk_rows]
            vectors = encode_texts(
                encoder,
                [row[3] for row in chunk],
                batch_size=cfg.batch_size,
                max_length=cfg.max_length,
                progress=lambda n: reporter.advance(n),
            )
            pending.commit([row[:3] for row in chunk], vectors)


def _vector_source(
    out: Path, manifest: dict[str, Any] | None, live: dict[Key, int], pending: Pending
) -> Callable[[Key], np.ndarray]:
    """Where each key's vector is: pending/ (new or changed) or the live generation."""
    old = (
        np.load(out / manifest["generation"] / "vectors.npy", mmap_mode="r")
        if manifest is not None
        else None
    )

    def vector(key: Key) -> np.ndarray:
        found = pending.vectors.get(key)
        if found is not None:
            return found
        assert old is not None  # _missing left no key without a vector
        return np.asarray(old[live[key]])

    return vector


def _counters(
    meta: pl.DataFrame, live: dict[Key, int], wanted: set[Key], resumed: int
) -> dict[str, int]:
    keys = set(meta.select("repo", "number", "text_hash").iter_rows())
    numbers = {key[:2] for key in keys}
    live_numbers = {key[:2] for key in live}
    return {
        "rows": meta.height,
        "repos": meta["repo"].n_unique(),
        "embedded": len(wanted),
        "resumed": resumed,
        "unchanged": sum(1 for key in keys if key in live),
        "changed": sum(1 for key in keys if key not in live and key[:2] in live_numbers),
        "removed": len(live_numbers - numbers),
    }


def manifest_of(spec: IndexSpec, generation: Generation) -> dict[str, Any]:
    """What index.json says of the live generation (the benchmarks write the same)."""
    return {
        "format": FORMAT,
        "spec": spec.to_json(),
        "generation": generation.name,
        "rows": generation.rows,
        "repos": generation.repos,
        "files": generation.files,
    }


def _publish(
    cfg: IndexConfig,
    manifest: dict[str, Any] | None,
    generation: Generation,
    spec: IndexSpec,
    counters: dict[str, int],
) -> None:
    """Name the new generation live (one rename of index.json), then drop what it replaces."""
    write_json_atomic(
        cfg.out / MANIFEST,
        {
            **manifest_of(spec, generation),
            "store": str(cfg.store.resolve()),
            "last_run": counters,
            "written_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
    )
    Pending(cfg.out).clear()
    shutil.rmtree(cfg.out / STAGING, ignore_errors=True)
    for path in cfg.out.iterdir():
        if _is_generation(path.name) and path.name != generation.name:
            shutil.rmtree(path, ignore_errors=True)
