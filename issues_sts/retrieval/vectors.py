"""An index opened for queries: its manifest, rows, vectors (memory-mapped) and ANN indexes.

Opening reads the manifest and the rows' keys and times, and maps the vectors; it loads no
model (an issue of the index is asked about with its stored vector) and reads texts only
when BM25 needs them (`texts_of`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from issues_sts.errors import DatasetError
from issues_sts.retrieval.ann import AnnGraph
from issues_sts.retrieval.layout import PENDING, IndexSpec, check_files, damaged, read_manifest

if TYPE_CHECKING:
    from issues_sts.retrieval.bm25 import BM25Index


@dataclass(frozen=True)
class RepoRows:
    """One repository's rows: positions start..stop of the index, sorted by number."""

    repo: str
    start: int
    stop: int
    ann: str | None


class VectorIndex:
    def __init__(self, root: Path, manifest: dict[str, Any], folder: Path) -> None:
        self.root = root
        self.manifest = manifest
        self.folder = folder
        self.spec = IndexSpec.from_json(manifest["spec"])
        try:
            self.rows = pl.read_parquet(folder / "rows.parquet")
            self.vectors = np.load(folder / "vectors.npy", mmap_mode="r")
        except (OSError, ValueError, pl.exceptions.PolarsError) as exc:
            raise damaged(root, str(exc)) from None
        if self.vectors.shape != (self.rows.height, self.spec.dimensions):
            raise damaged(root, f"vectors {self.vectors.shape} do not match the rows")
        self.numbers = self.rows["number"].to_numpy()
        self.created = self.rows["created_s"].to_numpy()
        self._graphs: dict[str, AnnGraph] = {}
        self._bm25: dict[str, BM25Index | None] = {}

    @classmethod
    def open(cls, root: Path) -> VectorIndex:
        """The live generation of the index at `root`; missing or damaged is a DatasetError."""
        if not root.is_dir():
            raise DatasetError(
                f"no index at {root}",
                hint=f"build one with `issues-sts index --store STORE --out {root}`",
            )
        manifest = read_manifest(root)
        if manifest is None:
            unfinished = (root / PENDING).is_dir()
            raise DatasetError(
                f"{root} holds no finished index"
                + (" (an `index` run was interrupted)" if unfinished else ""),
                hint="run the `issues-sts index` command that writes it again: it resumes",
            )
        return cls(root, manifest, check_files(root, manifest))

    def repo(self, name: str) -> RepoRows | None:
        """The rows of repository `name` (GitHub's names ignore case), None if it has none."""
        repos = self.manifest["repos"]
        found = next((r for r in repos if r.lower() == name.lower()), None)
        if found is None:
            return None
        entry = repos[found]
        return RepoRows(found, int(entry["start"]), int(entry["stop"]), entry.get("ann"))

    def position(self, repo: RepoRows, number: int) -> int | None:
        """The row of issue `number` of `repo`, None if the index does not hold it."""
        numbers = self.numbers[repo.start : repo.stop]
        at = int(np.searchsorted(numbers, number))
        return repo.start + at if at < len(numbers) and numbers[at] == number else None

    def graph(self, repo: RepoRows) -> AnnGraph | None:
        if repo.ann is None:
            return None
        if repo.repo not in self._graphs:
            self._graphs[repo.repo] = AnnGraph(self.folder / repo.ann, self.spec.dimensions)
        return self._graphs[repo.repo]

    def bm25(self, repo: RepoRows) -> BM25Index | None:
        """The repository's BM25 index: the one `index` saved, loaded once; an index of
        format 1 (none saved) gets one built from its texts. None: no text has a token."""
        from issues_sts.retrieval.bm25 import BM25Index

        if repo.repo not in self._bm25:
            saved = self.manifest["repos"][repo.repo].get("bm25")
            if saved is not None:
                self._bm25[repo.repo] = BM25Index.load(self.folder / saved)
            elif self.manifest["format"] == 1:
                texts = self.texts_of(repo)
                self._bm25[repo.repo] = BM25Index(texts) if any(t.strip() for t in texts) else None
            else:
                self._bm25[repo.repo] = None
        return self._bm25[repo.repo]

    def texts_of(self, repo: RepoRows) -> list[str]:
        """The texts of `repo`'s rows, in their order (what BM25 indexes)."""
        try:
            texts = (
                pl.scan_parquet(self.folder / "texts.parquet")
                .slice(repo.start, repo.stop - repo.start)
                .select("text")
                .collect()
            )
        except (OSError, pl.exceptions.PolarsError) as exc:
            raise damaged(self.root, f"texts.parquet: {exc}") from None
        return list(texts["text"])

    def shown(self, positions: np.ndarray) -> list[dict[str, Any]]:
        """What `similar` prints of these rows."""
        columns = ("repo", "number", "title", "state", "created_at", "url")
        picked = self.rows[positions.tolist()].select(columns)
        return picked.to_dicts()
