"""The annotated threads: the files in data/annotations/ and their DEV/TEST halves.

An annotation file (`data/annotations/rust_duplicates.csv`, rust-lang/rust 2010-2015;
`data/annotations/onnxruntime_duplicates.csv`, microsoft/onnxruntime 2018-2023;
`data/annotations/neovim_duplicates.csv`, the neovim organisation: repo, number, category,
canonical_repo, canonical_number, note, round, split) says, per thread, whether it is a
duplicate and of what. The labels were made by AI assistant readers following a written brief,
blind to the extractor (data/annotations/README.md).

Honest development: the `split` column says which rows are DEV (read for error analysis,
rules may be written from them) and which are TEST (held out: only ever scored). In the
project's file every annotation round was test when it arrived and became dev only after
it had been scored once (the `round` column and data/annotations/README.md keep the story). A
file without a `split` column is split alternately by number (1st, 3rd, ... row dev; 2nd, 4th,
... test). Repositories compare case-insensitively, and old names (`mozilla/rust`) count as
their new home.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from issues_sts.annotations.archives import ONNX_REPO, RUST_REPO_ALIASES
from issues_sts.errors import ConfigError

DEFAULT_ANNOTATIONS = Path("data/annotations/rust_duplicates.csv")
ONNX_ANNOTATIONS = Path("data/annotations/onnxruntime_duplicates.csv")
NEOVIM_ANNOTATIONS = Path("data/annotations/neovim_duplicates.csv")
NEOVIM_OWNER = "neovim/"
CATEGORIES = ("duplicate", "hard_negative")
SUBSETS = ("dev", "test", "all")
AMBIGUOUS = "ambiguous"

Key = tuple[str, int]


@dataclass(frozen=True)
class Annotation:
    repo: str
    number: int
    category: str
    canonical: Key | None
    note: str
    split: str | None = None  # "dev" | "test"; None: alternate by number
    round: str | None = None  # the annotation round ("1".."4" rust, "onnx-1")

    @property
    def tags(self) -> frozenset[str]:
        return frozenset(t.strip() for t in self.note.split(";") if t.strip())

    @property
    def ambiguous(self) -> bool:
        return AMBIGUOUS in self.tags


def _alias(repo: str) -> str:
    aliases = {old.lower(): new for old, new in RUST_REPO_ALIASES}
    return aliases.get(repo.lower(), repo)


def fold_key(key: Key | None) -> Key | None:
    """A thread's key as annotations and claims compare: old names folded, lower case."""
    return (_alias(key[0]).lower(), key[1]) if key is not None else None


def annotation_key(a: Annotation) -> Key:
    """The folded key (`fold_key`) of an annotated thread."""
    return (_alias(a.repo).lower(), a.number)


def read_annotations(path: Path) -> list[Annotation]:
    """Parse and validate the annotation CSV; bad rows are a one-line ConfigError."""
    if not path.is_file():
        raise ConfigError(f"no annotation file at {path}", hint="pass --annotations PATH")
    try:
        text = path.read_bytes().decode("utf-8")  # bytes: quoted line ends stay as written
        rows = list(csv.DictReader(io.StringIO(text, newline="")))
    except (UnicodeDecodeError, csv.Error) as exc:
        raise ConfigError(
            f"{path} is not a CSV text file ({exc.__class__.__name__})",
            hint="pass the annotation CSV (UTF-8): data/annotations/*.csv",
        ) from None
    out = []
    for line, row in enumerate(rows, start=2):
        try:
            category = row["category"].strip()
            if category not in CATEGORIES:
                raise ValueError(f"category {category!r} is not one of {CATEGORIES}")
            split = (row.get("split") or "").strip() or None
            if split is not None and split not in ("dev", "test"):
                raise ValueError(f"split {split!r} is not dev or test")
            number = (row.get("canonical_number") or "").strip()
            canonical = (
                (_alias(row["canonical_repo"].strip() or row["repo"]), int(number))
                if number
                else None
            )
            out.append(
                Annotation(
                    _alias(row["repo"].strip()),
                    int(row["number"]),
                    category,
                    canonical,
                    (row.get("note") or "").strip(),
                    split,
                    (row.get("round") or "").strip() or None,
                )
            )
        except (KeyError, ValueError) as exc:
            raise ConfigError(
                f"{path}:{line}: bad annotation row ({exc})",
                hint="columns: repo,number,category,canonical_repo,canonical_number,note[,split]",
            ) from None
    return out


def split_of(annotations: list[Annotation]) -> dict[Key, str]:
    """DEV/TEST: each row's own `split` when every row has one; otherwise rows sorted by
    number (then repo), alternating, the first is dev."""
    if annotations and all(a.split is not None for a in annotations):
        return {(a.repo, a.number): str(a.split) for a in annotations}
    ordered = sorted(annotations, key=lambda a: (a.number, a.repo.lower()))
    return {(a.repo, a.number): ("dev" if i % 2 == 0 else "test") for i, a in enumerate(ordered)}


def select(
    annotations: list[Annotation], subset: str, *, ambiguous: bool = True
) -> list[Annotation]:
    """The rows of one subset ("dev" | "test" | "all"), optionally without `ambiguous` rows."""
    if subset not in SUBSETS:
        raise ConfigError(f"unknown subset {subset!r}", hint=f"use one of {', '.join(SUBSETS)}")
    halves = split_of(annotations)
    return [
        a
        for a in annotations
        if (subset == "all" or halves[(a.repo, a.number)] == subset)
        and (ambiguous or not a.ambiguous)
    ]


def archive_of(annotations: list[Annotation]) -> str:
    """Which archive the annotated threads come from: "onnxruntime", "neovim" or "rust"."""
    if annotations and all(a.repo.lower() == ONNX_REPO for a in annotations):
        return "onnxruntime"
    if annotations and all(a.repo.lower().startswith(NEOVIM_OWNER) for a in annotations):
        return "neovim"
    return "rust"
