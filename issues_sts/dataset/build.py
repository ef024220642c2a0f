"""The one runner of `issues-sts build`: store -> links -> texts -> pairs -> splits ->
negatives -> stats -> a Hub-shaped folder. Every stage is a pure function elsewhere in this
package; this module only reads, sequences, reports progress and writes."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from issues_sts.config import command_line
from issues_sts.dataset import export
from issues_sts.dataset.assemble import assemble_pairs, positives_with_split
from issues_sts.dataset.card import render_card
from issues_sts.dataset.completeness import MissingRepo, as_json, check_complete, describe
from issues_sts.dataset.config import SPLITS, BuildConfig
from issues_sts.dataset.diff import diff_builds, render_markdown
from issues_sts.dataset.negatives import HardMode, sample_negatives
from issues_sts.dataset.pairs import positive_pairs
from issues_sts.dataset.previous import build_folder, next_version, read_previous
from issues_sts.dataset.references import keys_from_mentions
from issues_sts.dataset.retrieval_view import (
    RetrievalView,
    query_rows,
    retrieval_view,
    write_view,
)
from issues_sts.dataset.scan import StoreScan, StoreScanner, fill_texts, pair_keys_frame
from issues_sts.dataset.splits import (
    Previous,
    assign_splits,
    check_no_leakage,
    issue_groups,
    split_counters,
)
from issues_sts.dataset.stats import (
    BATCH,
    TokenCounter,
    build_stats,
    load_tokenizer,
    split_lengths,
    token_lengths,
    violin_plot,
)
from issues_sts.errors import ConfigError, DatasetError, NoDuplicates, StoreError
from issues_sts.links import LinkConsumer, LinkTable
from issues_sts.passes import run_pass
from issues_sts.report import SILENT, Reporter
from issues_sts.store import Store


@dataclass(frozen=True)
class History:
    """Where this build stands among versions: its name and the earlier build it keeps
    splits with (`--previous`), if any."""

    version: str
    previous_dir: Path | None = None
    previous: Previous | None = None

    @classmethod
    def of(cls, cfg: BuildConfig, previous_dir: Path | None = None) -> History:
        """`previous_dir`: where `cfg.previous` lies on disk when it names something else (a
        Hub id the CLI downloaded); otherwise `cfg.previous` is itself the folder."""
        if cfg.previous is None:
            return cls(cfg.version or next_version(None))
        folder = build_folder(previous_dir or cfg.previous)
        if folder.resolve() == Path(cfg.out).resolve():
            raise ConfigError(
                f"--out and --previous are the same folder ({folder}): the new build would "
                "replace the version it continues",
                hint="give the new build its own --out, e.g. data/dataset-v2",
            )
        previous = read_previous(folder)
        return cls(cfg.version or next_version(previous.version), folder, previous)


@dataclass(frozen=True)
class BuildSummary:
    """What a build produced; the CLI prints it, the demo reads it."""

    out: Path
    sizes: dict[str, dict[str, int]]
    stats: dict[str, Any]
    counters: dict[str, dict[str, int]] = field(default_factory=dict)
    # Seconds per stage; kept out of stats.json, which must not change between equal builds.
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def redacted(self) -> int:
        return self.counters.get("redaction", {}).get("redacted_total", 0)


def build_command(cfg: BuildConfig) -> str:
    """The command line that repeats this build (the card's), from the options of its fields."""
    return command_line("issues-sts build", cfg)


def _versions() -> dict[str, str]:
    import pyarrow
    import tokenizers

    from issues_sts import __version__

    return {
        "issues_sts": __version__,
        "polars": pl.__version__,
        "pyarrow": pyarrow.__version__,
        "tokenizers": tokenizers.__version__,
    }


class _Steps:
    """Announces each stage on the reporter and times it (seconds go to `BuildSummary.timings`)."""

    def __init__(self, reporter: Reporter, started: float) -> None:
        self.reporter = reporter
        self.timings: dict[str, float] = {}
        self._current: tuple[str, float] | None = ("checking inputs, opening the store", started)

    def __call__(self, label: str) -> None:
        now = time.perf_counter()
        if self._current is not None:
            self.timings[self._current[0]] = round(now - self._current[1], 3)
        self._current = (label, now)
        self.reporter.stage(label)

    def finish(self) -> dict[str, float]:
        """Close the last stage's clock; seconds per stage, setup and clean-up included."""
        if self._current is not None:
            label, since = self._current
            self.timings[label] = round(time.perf_counter() - since, 3)
            self._current = None
        return dict(self.timings)

    def counter(self, label: str, total: int) -> Callable[[int], None]:
        """A counted line for a long stage; returns its `advance(n)`."""
        self.reporter.stage(label, total)
        return lambda n: self.reporter.advance(n)


def _open_store(path: Path) -> Store:
    store = Store.open(path, readonly=True)  # an archived store on read-only media builds
    if not store.has_issues():
        store.close()
        raise StoreError(f"the crawl store {path} holds no issues")
    return store


def run_build(
    cfg: BuildConfig,
    *,
    reporter: Reporter = SILENT,
    previous_dir: Path | None = None,
) -> BuildSummary:
    """Build the dataset described by `cfg` into `cfg.out` and return what was built.
    `previous_dir`: the local copy of `cfg.previous` when that is a Hub id (the card and
    build_config.json keep the id the user gave)."""
    started = time.perf_counter()
    export.check_out_dir(cfg.out)
    tokenizer = load_tokenizer(cfg.tokenizer)  # fail before any long work
    history = History.of(cfg, previous_dir)
    step = _Steps(reporter, started)
    with _open_store(cfg.store) as store, reporter, export.spill_folder(cfg.out) as spill:
        missing = check_complete(store, allow_incomplete=cfg.allow_incomplete)
        if missing:
            reporter.notice(f"building from an incomplete store: {describe(missing)}")
        # One pass over the store's parts for the link stage and the scan: each part is read
        # once for both; the texts are let go part by part (`StoreScanner`), spilled to disk
        # for the retrieval view's corpus.
        step("extracting duplicate links")
        links = LinkConsumer.for_store(store, cfg.links)
        scanner = StoreScanner(cfg.text_recipe, postings=cfg.negatives == "hard", spill=spill)
        table, scan = run_pass(store, [links, scanner])
        # the link stage's aliases (the user's and the store's renames): old names of the
        # same issues, for the mentions between them
        renames = links.cfg.repo_aliases
        summary = _build(cfg, tokenizer, store, scan, table, step, history, renames, missing)
    return replace(summary, timings=step.finish())


def _build(
    cfg: BuildConfig,
    tokenizer: Any,
    store: Store,
    scan: StoreScan,
    table: LinkTable,
    step: _Steps,
    history: History,
    renames: tuple[tuple[str, str], ...],
    missing: list[MissingRepo],
) -> BuildSummary:
    """The stages after the pass over the store. `scan.texts` holds no text yet (the scan
    kept the facts the stages need); the texts of the issues in pairs are read back before
    assembling, the corpus's a part at a time while it is written."""
    counters: dict[str, dict[str, int]] = {
        "links": dict(sorted(table.counters.items())),
        "texts": scan.counters,
    }
    step("redaction")
    counters["redaction"] = scan.redaction
    step("positive pairs")
    texts = scan.texts
    positives, counters["positives"] = positive_pairs(
        table.links, texts, min_confidence=cfg.links.min_confidence
    )
    if positives.height == 0:
        raise NoDuplicates(
            f"the crawl store {cfg.store} has no usable duplicate links "
            f"({counters['positives']['links_total']} candidate links, "
            f"{counters['positives']['dropped_low_confidence']} below --min-confidence)"
        )
    step("splits")
    groups, assignment, positives, counters["splits"] = _splits(
        cfg, texts, positives, table, history
    )
    step(f"{cfg.negatives} negatives")
    negatives, counters["negatives"] = _negatives(cfg, scan, table, assignment, positives, renames)
    texts = fill_texts(store, texts, pair_keys_frame(positives, negatives), cfg.text_recipe)
    pairs = assemble_pairs(positives, negatives, texts, cfg.seed)
    check_no_leakage(pairs, groups)
    check_splits_filled(pairs, allow_empty=cfg.allow_empty_splits)
    step("retrieval view")
    view = retrieval_view(positives, texts)
    # read when written, a part at a time: the texts the scan spilled
    retrieval = _Retrieval(view, query_rows(view, texts), scan.spilled_texts())
    step("token lengths")
    by_split = split_lengths(pairs, _lengths(tokenizer, texts, pairs, step))
    del texts  # the pairs hold the texts they need: let the rest go before writing
    stats = build_stats(pairs, by_split, cfg.long_threshold)
    if missing:
        stats["incomplete_repositories"] = as_json(missing)
    step("writing")
    sizes = _write(cfg, pairs, table, stats, counters, by_split, history, retrieval)
    step("done, closing the store")
    return BuildSummary(cfg.out, sizes, stats, counters)


def check_splits_filled(pairs: pl.DataFrame, *, allow_empty: bool) -> None:
    """An empty split is an output nobody can use (`datasets` cannot load an empty Parquet):
    refused with the split counts and what fills them, unless --allow-empty-splits leaves
    such splits out of the folder."""
    sizes = dict(pairs.group_by("split").len().iter_rows())
    if allow_empty or all(sizes.get(split, 0) for split in SPLITS):
        return
    counts = ", ".join(f"{split} {sizes.get(split, 0):,}" for split in SPLITS)
    raise DatasetError(
        f"the build would leave a split empty (pairs: {counts}): too few duplicate clusters "
        "to share out, since each cluster lives in one split",
        hint="crawl more repositories to fill every split, or pass --allow-empty-splits to "
        "write the non-empty splits only",
    )


@dataclass(frozen=True)
class _Retrieval:
    """The retrieval view to write: queries and qrels, their texts, and the corpus parts."""

    view: RetrievalView
    queries: pl.DataFrame
    corpus: Iterable[pl.DataFrame]


def _negatives(
    cfg: BuildConfig,
    scan: StoreScan,
    table: LinkTable,
    assignment: pl.DataFrame,
    positives: pl.DataFrame,
    renames: tuple[tuple[str, str], ...],
) -> tuple[pl.DataFrame, dict[str, int]]:
    """As many negatives per split as `negative_ratio` asks, never between referencing issues
    (the mentions the scan found, also of an issue under a repository's old name: `renames`,
    and the link stage's candidate links)."""
    per_split = dict(positives.group_by("split").len().iter_rows())
    index = assignment.select("idx", "repo", "number")
    refs = keys_from_mentions(index, scan.mentions, table.links, renames)
    hard = None
    if cfg.negatives == "hard":
        assert scan.postings is not None, "the scan reads the postings for hard negatives"
        hard = HardMode(scan.postings, cfg.hard_query_terms)
    return sample_negatives(
        assignment,
        per_split,
        refs,
        seed=cfg.seed,
        ratio=cfg.negative_ratio,
        same_repo_share=cfg.same_repo_share,
        hard=hard,
    )


def _splits(
    cfg: BuildConfig,
    texts: pl.DataFrame,
    positives: pl.DataFrame,
    table: LinkTable,
    history: History,
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, dict[str, int]]:
    """Groups, the split of every issue, positives with their split (those a merge across
    splits left out of this version dropped), and the counters."""
    groups = issue_groups(texts, positives, table.clusters)
    assignment = assign_splits(
        groups,
        positives,
        cfg.split_fractions(),
        cfg.seed,
        by=cfg.split_by,
        previous=history.previous,
    )
    with_split = positives_with_split(positives, assignment)
    left_out = assignment.filter(pl.col("split").is_null()).select("repo", "number")
    kept = with_split.filter(pl.col("split").is_not_null()).join(
        left_out, left_on=["repo2", "number2"], right_on=["repo", "number"], how="anti"
    )
    counters = {
        **split_counters(assignment),
        "merge_dropped_positives": with_split.height - kept.height,
    }
    return groups, assignment, kept, counters


def _lengths(tokenizer: Any, texts: pl.DataFrame, pairs: pl.DataFrame, step: _Steps) -> np.ndarray:
    """Token length of every issue used in a pair (others stay -1), each text encoded once;
    the texts become Python strings a batch at a time (all at once, they were the largest
    object of a big build)."""
    used = np.unique(np.concatenate([pairs["idx1"].to_numpy(), pairs["idx2"].to_numpy()]))
    lengths = np.full(texts.height, -1, dtype=np.int64)
    advance = step.counter("  tokenizing texts", len(used))
    counter = TokenCounter.of(tokenizer)
    for start in range(0, len(used), BATCH):
        batch = used[start : start + BATCH]
        lengths[batch] = token_lengths(
            counter, texts["text"].gather(batch).to_list(), on_batch=advance
        )
    return lengths


def _write(
    cfg: BuildConfig,
    pairs: pl.DataFrame,
    table: LinkTable,
    stats: dict[str, Any],
    counters: dict[str, dict[str, int]],
    by_split: dict[str, np.ndarray],
    history: History,
    retrieval: _Retrieval,
) -> dict[str, dict[str, int]]:
    with export.staged_output(cfg.out) as tmp:
        sizes, nbytes = export.write_hub_shards(pairs, tmp)
        view_sizes = write_view(retrieval.view, retrieval.queries, retrieval.corpus, tmp)
        counters["retrieval"] = {"corpus_issues": view_sizes["corpus"]["corpus"]}
        counters["retrieval"].update(retrieval.view.counters)
        stats["retrieval"] = {
            config: view_sizes[config] for config in ("corpus", "queries", "qrels")
        }
        export.write_parquet(pairs.drop("idx1", "idx2"), tmp / "pairs.parquet")
        table.write(tmp)
        config = {**cfg.to_json_dict(), "version": history.version, "versions": _versions()}
        export.write_json(config, tmp / "build_config.json")
        export.write_json({**stats, "sizes": sizes, "counters": counters}, tmp / "stats.json")
        violin_plot(by_split, tmp / "token_lengths.png", cfg.long_threshold)
        flat = {f"{stage}.{k}": v for stage, c in counters.items() for k, v in c.items()}
        changes = None
        if (
            history.previous_dir is not None
        ):  # needs this build's pairs, links and stats, written above
            diff = diff_builds(history.previous_dir, tmp)
            export.write_json(diff, tmp / "changes.json")
            changes = render_markdown(diff)
        card = render_card(
            sizes,
            nbytes,
            stats,
            flat,
            build_command(cfg),
            config,
            changes=changes,
            retrieval=view_sizes,
        )
        (tmp / "README.md").write_text(card, encoding="utf-8")
        export.write_manifest(tmp)
    return sizes
