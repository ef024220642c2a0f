"""`issues-sts build`: a crawl store -> the GitHub Issues Similarity dataset folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from issues_sts.cli.common import console, quiet_option
from issues_sts.cli.options import config_from, config_option
from issues_sts.cli.report import make_reporter
from issues_sts.dataset.build import run_build
from issues_sts.dataset.config import BuildConfig
from issues_sts.dataset.summary import summary_tables
from issues_sts.errors import interruption
from issues_sts.hub.fetch import locate_build
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


def _option(field: str, **overrides: Any) -> Any:
    return config_option(BuildConfig, field, **overrides)


def build_command(
    ctx: typer.Context,
    store: Path = _option("store"),
    out: Path = _option("out"),
    seed: int = _option("seed"),
    negatives: str = _option("negatives"),
    negative_ratio: float = _option("negative_ratio"),
    same_repo_share: float = _option("same_repo_share"),
    tokenizer: str | None = _option("tokenizer"),
    # the link stage's options, said here as the build reads them
    min_confidence: float = _option(
        "links.min_confidence", help="Links below this confidence make no pair."
    ),
    alias: list[str] = _option(
        "links.repo_aliases",
        help="Renamed repository old/name=new/name, for links to its old name "
        "(repeatable; renames the crawl saw are known already).",
    ),
    split_by: str = _option("split_by"),
    text_recipe: str = _option("text_recipe"),
    previous: str | None = _option("previous"),
    version: str | None = _option("version"),
    allow_incomplete: bool = _option("allow_incomplete"),
    allow_empty_splits: bool = _option("allow_empty_splits"),
    quiet: bool = quiet_option(),
) -> None:
    cfg = config_from(BuildConfig, "build", {**ctx.params, "repo_aliases": parse_aliases(alias)})
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
