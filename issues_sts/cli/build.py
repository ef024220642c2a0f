"""`issues-sts build`: a crawl store -> the GitHub Issues Similarity dataset folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from pydantic import ValidationError

from issues_sts.cli.common import (
    config_error,
    console,
    field_range,
    option_default,
    quiet_option,
)
from issues_sts.cli.report import make_reporter
from issues_sts.dataset.build import run_build
from issues_sts.dataset.config import BuildConfig
from issues_sts.dataset.summary import summary_tables
from issues_sts.errors import interruption
from issues_sts.hub.fetch import locate_build
from issues_sts.links.model import LinkConfig
from issues_sts.links.renames import parse_aliases

HELP = """Build the dataset from a crawl store: positive pairs from duplicate links, seeded
negatives, leakage-free train/valid/test splits, token statistics, a dataset card.

The result is a Hub-shaped folder that `datasets.load_dataset(DIR)` reads offline
(configs `default` and `positive`), plus pairs.parquet (provenance), links.parquet,
stats.json, build_config.json, token_lengths.png and manifest.json.

Examples:

    issues-sts build

    issues-sts build --store data/store --out data/dataset --seed 7

    issues-sts build --negatives hard --tokenizer bert-base-uncased --min-confidence 0.8

    issues-sts build --previous me/github-issue-similarity@v1 --out data/dataset-v2

    issues-sts build --split-by time --text-recipe raw

Splits are stable: with the same seed, a cluster keeps its split in every later build from a
grown store. `--previous` pins to an earlier build exactly and writes changes.json.
"""


def _default(field: str) -> Any:
    return option_default(BuildConfig, field)


def build_command(
    store: Path = typer.Option(
        _default("store"), "--store", help="Crawl store directory (from `issues-sts crawl`)."
    ),
    out: Path = typer.Option(
        _default("out"), "--out", help="Output folder: empty, absent, or an earlier build."
    ),
    seed: int = typer.Option(
        _default("seed"),
        "--seed",
        **field_range(BuildConfig, "seed"),
        help="Seed for splits, negatives and row order.",
    ),
    negatives: str = typer.Option(
        _default("negatives"),
        "--negatives",
        help="random (default) or hard (BM25-similar non-duplicates).",
    ),
    negative_ratio: float = typer.Option(
        _default("negative_ratio"),
        "--negative-ratio",
        **field_range(BuildConfig, "negative_ratio"),
        help="Negatives per positive in each split (more than 0).",
    ),
    same_repo_share: float = typer.Option(
        _default("same_repo_share"),
        "--same-repo-share",
        **field_range(BuildConfig, "same_repo_share"),
        help="Share of negatives drawn inside one repository.",
    ),
    tokenizer: str | None = typer.Option(
        _default("tokenizer"),
        "--tokenizer",
        help="Tokenizer name or path for statistics (default: the bundled BERT uncased one, "
        "offline).",
    ),
    min_confidence: float = typer.Option(
        option_default(LinkConfig, "min_confidence"),
        "--min-confidence",
        **field_range(LinkConfig, "min_confidence"),
        help="Links below this confidence make no pair.",
    ),
    alias: list[str] = typer.Option(
        [],
        "--alias",
        help="Renamed repository old/name=new/name, for links to its old name "
        "(repeatable; renames the crawl saw are known already).",
    ),
    split_by: str = typer.Option(
        _default("split_by"),
        "--split-by",
        help="random (a seeded hash of each cluster) or time "
        "(older clusters train, the newest valid and test).",
    ),
    text_recipe: str = typer.Option(
        _default("text_recipe"),
        "--text-recipe",
        help="readers (HTML comments removed, as GitHub shows issues) or raw (bodies as stored).",
    ),
    previous: str | None = typer.Option(
        _default("previous"),
        "--previous",
        help="Earlier build (folder or Hub id[@tag]) whose "
        "splits this build keeps exactly; adds 'changes since' to the card.",
    ),
    version: str | None = typer.Option(
        _default("version"),
        "--dataset-version",
        help="Version name for the card and the Hub tag "
        "(default v1, or the previous build's plus one).",
    ),
    allow_incomplete: bool = typer.Option(
        False,
        "--allow-incomplete",
        help="Build even when the store's crawl is not complete (repositories pending, failed, "
        "lossy or never started); the card and stats.json then name them. Without it such a "
        "store is refused (exit 3).",
    ),
    allow_empty_splits: bool = typer.Option(
        False,
        "--allow-empty-splits",
        help="Write the build even when a split gets no pairs (too few duplicate clusters): an "
        "empty split is left out of the folder and the card, so `datasets.load_dataset` loads "
        "the others. Without it such a build is refused (exit 6).",
    ),
    quiet: bool = quiet_option(),
) -> None:
    try:
        links = LinkConfig(min_confidence=min_confidence, repo_aliases=parse_aliases(alias))
        cfg = BuildConfig(
            store=store,
            out=out,
            seed=seed,
            negatives=negatives,  # type: ignore[arg-type]
            negative_ratio=negative_ratio,
            same_repo_share=same_repo_share,
            tokenizer=tokenizer,
            links=links,
            split_by=split_by,  # type: ignore[arg-type]
            text_recipe=text_recipe,  # type: ignore[arg-type]
            previous=previous,
            version=version,
            allow_incomplete=allow_incomplete,
            allow_empty_splits=allow_empty_splits,
        )
    except ValidationError as exc:
        raise config_error(exc, "build", BuildConfig) from None
    try:
        # A Hub id is downloaded here, before the build starts: the build reads folders only.
        previous_dir = locate_build(cfg.previous) if cfg.previous is not None else None
        reporter = make_reporter(console, quiet=quiet)
        summary = run_build(cfg, reporter=reporter, previous_dir=previous_dir)
        reporter.summary(*summary_tables(summary))
    except KeyboardInterrupt as exc:
        raise interruption(exc)(
            kept=f"{cfg.out} is unchanged (a build replaces it only once complete)"
        ) from None


def register(app: typer.Typer) -> None:
    """Add this module's commands to `app`."""
    app.command("build", help=HELP)(build_command)
