"""The vectors an unfinished `index` run has committed: chunks in IDX/pending/, each a whole
file renamed into place, so Ctrl-C loses at most the chunk being embedded."""

from __future__ import annotations

import os
import shutil
import zipfile
from pathlib import Path

import numpy as np

from issues_sts.retrieval.layout import PENDING, SPEC_FILE, IndexSpec, damaged, write_json_atomic

Key = tuple[str, int, str]  # repo, number, text_hash


class Pending:
    """pending/ of one index folder: its spec, and every committed chunk's vectors by key."""

    def __init__(self, index_dir: Path) -> None:
        self.index_dir = index_dir
        self.root = index_dir / PENDING
        self.vectors: dict[Key, np.ndarray] = {}
        self._next = 0

    def spec(self) -> IndexSpec | None:
        """The spec the committed chunks were made with (None: no unfinished run)."""
        path = self.root / SPEC_FILE
        if not path.is_file():
            return None
        import json

        try:
            return IndexSpec.from_json(json.loads(path.read_text(encoding="utf-8")))
        except (ValueError, KeyError, TypeError) as exc:
            raise damaged(self.index_dir, f"{PENDING}/{SPEC_FILE}: {exc}") from None

    def start(self, spec: IndexSpec) -> None:
        """Make pending/ ready for chunks of `spec`, loading the ones committed before."""
        self.root.mkdir(parents=True, exist_ok=True)
        for stray in self.root.glob("*.tmp"):  # a chunk whose write was cut short
            stray.unlink()
        write_json_atomic(self.root / SPEC_FILE, spec.to_json())
        for path in sorted(self.root.glob("*.npz")):
            self._load(path)
            self._next = max(self._next, int(path.stem) + 1)

    def _load(self, path: Path) -> None:
        try:
            with np.load(path, allow_pickle=False) as chunk:
                repos, numbers = chunk["repo"].tolist(), chunk["number"].tolist()
                hashes, vectors = chunk["text_hash"].tolist(), chunk["vectors"]
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
            raise damaged(self.index_dir, f"{PENDING}/{path.name}: {exc}") from None
        for key, vector in zip(zip(repos, numbers, hashes, strict=True), vectors, strict=True):
            self.vectors[key] = vector

    def commit(self, keys: list[Key], vectors: np.ndarray) -> None:
        """One chunk, written whole under a temporary name and renamed into place."""
        path = self.root / f"{self._next:06d}.npz"
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as handle:
            np.savez(
                handle,
                repo=np.array([k[0] for k in keys], dtype=np.str_),
                number=np.array([k[1] for k in keys], dtype=np.int64),
                text_hash=np.array([k[2] for k in keys], dtype=np.str_),
                vectors=vectors.astype(np.float32),
            )
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
        self._next += 1
        for key, vector in zip(keys, vectors, strict=True):
            self.vectors[key] = vector

    def clear(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
