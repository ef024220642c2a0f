"""`issues-sts links`: extract duplicate links, inspect one issue's links, evaluate the
extractor."""

from __future__ import annotations

import json
import re
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

import polars as pl
import typer
from pydantic import ValidationError
from rich.table import Table

from issues_sts.annotations.archives import ARCHIVES, load_archive
from issues_sts.annotations.evaluate import (
    Evaluation,
    Results,
    evaluate,
    report_lines,
    rounds_and_strata_lines,
    summary_lines,
    wilson,
)
from issues_sts.annotations.labels import (
    DEFAULT_ANNOTATIONS,
    NEOVIM_ANNOTATIONS,
    ONNX_ANNOTATIONS,
    SUBSETS,
    read_annotations,
    select,
)
from issues_sts.cli.common import (
    DEFAULT_LINKS,
    DEFAULT_STORE,
    config_error,
    console,
    field_range,
    option_default,
    out,
    quiet_option,
)
from issues_sts.dataset.export import read_parquet
from issues_sts.errors import ConfigError, OutputError, os_errors
from issues_sts.links import LinkConfig, LinkTable, build_links
from issues_sts.links.renames import aliases_from_store, merge_aliases, parse_aliases
from issues_sts.links.stage import LINK_SCHEMA, LINKS_FILE
from issues_sts.store import Store

DEFAULT_CACHE = ARCHIVES["rust"].cache

links_app = typer.Typer(
    help="Duplicate links: extract them from a crawl store, inspect, evaluate.",
    no_args_is_help=True,
)
_ISSUE = re.compile(r"^([\w.-]+/[\w.-]+)#(\d+)$")


def _config(min_confidence: float, aliases: list[str]) -> LinkConfig:
    try:
        return LinkConfig(min_confidence=min_confidence, repo_aliases=parse_aliases(aliases))
    except ValidationError as exc:
        raise config_error(exc, "links extract") from None


def _spinner(text: str, quiet: bool) -> AbstractContextManager[object]:
    return nullcontext() if quiet else console.status(text)


def _run(store_dir: Path, cfg: LinkConfig, quiet: bool = False) -> tuple[LinkTable, LinkConfig]:
    """The links and the effective config (the store's renames merged in, as the stage used
    them)."""
    with (
        Store.open(store_dir, readonly=True) as store,
        _spinner("reading duplicate evidence...", quiet),
    ):
        effective = cfg.model_copy(
            update={"repo_aliases": merge_aliases(cfg.repo_aliases, aliases_from_store(store))}
        )
        return build_links(store, effective), effective


def _summary(table: LinkTable) -> None:
    grid = Table(title="duplicate links", show_edge=False)
    grid.add_column("counter")
    grid.add_column("value", justify="right")
    for key, value in table.counters.items():
        grid.add_row(key, str(value))
    console.print(grid)


# The docstring's examples render as markdown paragraphs: an indented line continues the one above.
@links_app.command("extract")
def extract_cmd(
    store: Path = typer.Option(DEFAULT_STORE, "--store", help="Crawl store directory."),
    out_dir: Path = typer.Option(
        DEFAULT_LINKS, "--out", help="Folder for links.parquet and link_counters.json."
    ),
    min_confidence: float = typer.Option(
        option_default(LinkConfig, "min_confidence"),
        "--min-confidence",
        **field_range(LinkConfig, "min_confidence"),
        help="Links below this confidence are kept but not usable.",
    ),
    alias: list[str] = typer.Option(
        [], "--alias", help="Renamed repository, old/name=new/name (repeatable)."
    ),
    archive: Path | None = typer.Option(
        None,
        "--archive",
        help="Read the rust issue archive instead of --store (loaded once into --cache).",
    ),
    cache: Path = typer.Option(DEFAULT_CACHE, "--cache", help="Where --archive's store is cached."),
    quiet: bool = quiet_option(),
) -> None:
    """Extract duplicate links from a crawl store: writes links.parquet, link_counters.json and
    link_config.json, then prints the counts by signal and every drop counter.

    Examples:

        issues-sts links extract --store data/store --out data/links

        issues-sts links extract --archive ../shared/data/rust-issue-archive
            --alias mozilla/rust=rust-lang/rust
    """
    if archive is not None:
        with _spinner("loading the rust issue archive...", quiet):
            load_archive("rust", archive, cache).close()
        store = cache  # the loader records the archive's old repository names as store facts
    cfg = _config(min_confidence, alias)
    table, cfg = _run(store, cfg, quiet)
    with os_errors(OutputError, f"--out {out_dir} cannot be written"):
        path = table.write(out_dir)
        table.write_counters(out_dir)
        (out_dir / "link_config.json").write_text(
            json.dumps(cfg.model_dump(mode="json"), indent=2, sort_keys=True) + "\n"
        )
    _summary(table)
    console.print(
        f"{table.counters.get('usable_links', 0)} usable of {table.links.height} links -> {path}"
    )


def _parse_issue(issue: str) -> tuple[str, int]:
    m = _ISSUE.match(issue.strip())
    if m is None:
        raise ConfigError(
            f"bad issue {issue!r}", hint="write it as owner/name#number, e.g. rust-lang/rust#1234"
        )
    return m.group(1), int(m.group(2))


@links_app.command("show")
def show_cmd(
    issue: str = typer.Argument(..., help="owner/name#number"),
    store: Path = typer.Option(DEFAULT_STORE, "--store", help="Crawl store directory."),
    links_file: Path | None = typer.Option(
        None, "--links", help="A links.parquet to read instead of the store."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the rows as JSON on stdout."),
    quiet: bool = quiet_option(),
) -> None:
    """Show every link of one issue (as duplicate and as canonical) with its evidence.

    Examples:

        issues-sts links show rust-lang/rust#12345

        issues-sts links show rust-lang/rust#12345 --links data/dataset/links.parquet --json
    """
    repo, number = _parse_issue(issue)
    frame = (
        read_parquet(links_file, needs=tuple(LINK_SCHEMA))
        if links_file
        else _run(store, LinkConfig(), quiet)[0].links
    )
    key = pl.col("repo").str.to_lowercase() == repo.lower()
    t_key = pl.col("target_repo").str.to_lowercase() == repo.lower()
    rows = frame.filter(
        (key & (pl.col("number") == number)) | (t_key & (pl.col("target_number") == number))
    )
    if as_json:
        out.print(json.dumps(rows.to_dicts(), indent=2, default=str), markup=False, highlight=False)
        return
    if rows.is_empty():
        console.print(f"no duplicate links for {repo}#{number}")
        return
    out.print(f"links of {repo}#{number}: {rows.height}")
    for r in rows.iter_rows(named=True):
        status = "usable" if r["usable"] else f"excluded: {r['excluded_reason']}"
        out.print(
            f"\n{r['repo']}#{r['number']} -> {r['target_repo']}#{r['target_number']}  [{status}]",
            markup=False,
        )
        out.print(
            f"  signal {r['signal']}  confidence {r['confidence']:.3f}  signals "
            f"{', '.join(r['signals'])}"
        )
        out.print(_by_line(r), markup=False)
        for url in r["evidence_urls"]:
            out.print(f"  evidence {url}")
        if r["cluster_id"] is not None:
            out.print(
                f"  source's cluster {r['cluster_id']} rooted at "
                f"{r['root_repo']}#{r['root_number']}"
            )


@links_app.command("evaluate")
def evaluate_cmd(
    annotations: list[Path] = typer.Option(
        None,
        "--annotations",
        help="An annotation CSV (repeatable; default: "
        "every file in data/annotations/ whose archive is present).",
    ),
    archive: Path = typer.Option(
        None,
        "--archive",
        help="The issue archive of a single --annotations file "
        "(default ../shared/data/<rust|onnxruntime>-issue-archive).",
    ),
    cache: Path = typer.Option(
        None, "--cache", help="Where the archive's store is cached (single file)."
    ),
    subset: str = typer.Option(
        "all",
        "--subset",
        help="Whose errors to list: dev (for error analysis), "
        "test (held out) or all. The summary always shows all three.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the metrics as JSON on stdout."),
    quiet: bool = quiet_option(),
) -> None:
    """Precision and recall of the extractor on the annotated threads (ids and numbers only).

    The rust rounds (2010-2015 threads) and the modern onnxruntime set (2018-2023) are scored
    side by side, each per dev/test split, per annotation round and per hard-case note tag,
    with 95 % Wilson intervals. The labels come from AI assistant readers following a written
    brief (data/annotations/README.md). The file's `split` column marks DEV rows (error
    analysis) and held-out TEST rows.

    Examples:

        issues-sts links evaluate

        issues-sts links evaluate --subset test --json
    """
    if subset not in SUBSETS:
        raise ConfigError(f"unknown --subset {subset!r}", hint=f"use one of {', '.join(SUBSETS)}")
    files = list(annotations or [])
    if not files:
        files = [DEFAULT_ANNOTATIONS] + [
            path
            for path, kind in ((ONNX_ANNOTATIONS, "onnxruntime"), (NEOVIM_ANNOTATIONS, "neovim"))
            if path.is_file() and ARCHIVES[kind].path.is_dir()
        ]
    if len(files) > 1 and (archive or cache):
        raise ConfigError(
            "--archive and --cache go with a single --annotations file",
            hint="evaluate one file at a time, or leave both out to use the defaults",
        )
    for path in files:
        _require_rows(path, subset)
    sets: dict[str, Results] = {}
    for path in files:
        with _spinner(f"loading the archive of {path.name} and extracting links...", quiet):
            sets[path.stem] = evaluate(path, archive, cache, loaders=_CRAWLED)
    if as_json:
        report = {
            name: {
                "subset": subset,
                **r.scores(subset).metrics(),
                "subsets": r.table(),
                "rounds": r.by_round(),
                "signals": r.by_signal(),
                "strata": r.strata(),
            }
            for name, r in sets.items()
        }
        text = json.dumps({**report[next(iter(report))], "sets": report}, indent=2, allow_nan=False)
        out.print(text, markup=False, highlight=False)
        return
    for name, results in sets.items():
        out.print(
            f"== {name} ({len(results.annotations)} threads; labels by AI assistant readers) ==",
            markup=False,
        )
        out.print(
            "\n".join(summary_lines(results) + rounds_and_strata_lines(results)), markup=False
        )
        out.print(f"\n{subset}:", markup=False)
        out.print("\n".join(report_lines(results.scores(subset))) + "\n", markup=False)


@links_app.command("evaluate-excerpts")
def evaluate_excerpts_cmd(
    round_dir: Path = typer.Argument(
        ...,
        help="A round folder: labels.csv (annotation columns), excerpts/*.txt, "
        "optionally support/ and renames.txt (old-owner/old-name=owner/name per line).",
    ),
    association: str = typer.Option(
        "none",
        "--association",
        help="What the excerpts do not show, filled in: none (every author NONE) or member "
        "(every human but the issue's author MEMBER, a sensitivity check).",
    ),
    errors: bool = typer.Option(
        False, "--errors", help="List each wrong link and miss (only after the round's one score)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the metrics as JSON on stdout."),
    quiet: bool = quiet_option(),
) -> None:
    """Precision and recall on a conventions round read as search-tool excerpts (issue 32).

    Each excerpt becomes a thread of an archive, served by the fake GitHub and crawled over
    GraphQL; the link stage's claims are scored per class (`bot-class`, `migrated-class` note
    tags), with and without the rows tagged ambiguous, with 95 % Wilson intervals. What an
    excerpt does not show (closer, author association, state_reason) is filled in the same way
    for every extractor version (annotations/excerpts.py). A repository renamed since the index
    stored its threads is listed in the round's renames.txt: GitHub's redirect, which the crawl
    finds as it would on github.com. The labels come from AI assistant readers following a
    written brief (data/annotations/README.md).

    Examples:

        issues-sts links evaluate-excerpts rounds/conv-16

        issues-sts links evaluate-excerpts rounds/conv-16 --association member --json
    """
    import tempfile

    from issues_sts.annotations.excerpts import ASSOCIATIONS, score_round

    if association not in ASSOCIATIONS:
        raise ConfigError(
            f"unknown --association {association!r}", hint=f"use one of {', '.join(ASSOCIATIONS)}"
        )
    if not round_dir.is_dir():
        raise ConfigError(
            f"no round folder at {round_dir}",
            hint="pass a folder holding labels.csv and excerpts/",
        )
    with (
        tempfile.TemporaryDirectory(prefix="issues-sts-excerpts-") as work,
        _spinner(f"crawling {round_dir.name}'s excerpts and extracting links...", quiet),
    ):
        result = score_round(round_dir, _crawled_archive, Path(work), association=association)
    if as_json:
        report = {
            "excerpts": result.excerpts,
            "rows": len(result.annotations),
            "association": association,
            "renames": len(result.renames),
            "classes": {
                c.name: {
                    "rows": c.rows,
                    "all": _defined(c.all),
                    "rows_without_ambiguous": c.unambiguous_rows,
                    "without_ambiguous": _defined(c.unambiguous),
                }
                for c in result.classes
            },
        }
        out.print(json.dumps(report, indent=2, allow_nan=False), markup=False, highlight=False)
        return
    out.print(
        f"{round_dir}: {result.excerpts} excerpts, {len(result.annotations)} labelled rows "
        f"(labels by AI assistant readers); association {association}"
        + (f"; {len(result.renames)} renames (renames.txt)" if result.renames else ""),
        markup=False,
    )
    for c in result.classes:
        for label, rows, ev in (
            ("all", c.rows, c.all),
            ("without ambiguous", c.unambiguous_rows, c.unambiguous),
        ):
            out.print(f"{c.name:9}{label:19}rows {rows:3}  {_excerpt_line(ev)}", markup=False)
        if errors:
            for e in result.errors(c.name):
                a = e.annotation
                labelled = f"{a.canonical[0]}#{a.canonical[1]}" if a.canonical else "none"
                claimed = f"{e.claimed[0]}#{e.claimed[1]}" if e.claimed else "none"
                out.print(
                    f"    {e.kind:11} {a.repo}#{a.number}: labelled {labelled}, claimed {claimed}",
                    markup=False,
                )


def _defined(ev: Evaluation) -> dict[str, float | None]:
    """`ev.metrics()`, with a proportion of nothing (no claim, no named target) as null, not 1.0."""
    m: dict[str, float | None] = dict(ev.metrics())
    for name, trials in (
        ("precision", len(ev.tp) + len(ev.fp)),
        ("recall", len(ev.tp) + len(ev.fn)),
    ):
        if not trials:
            m[name] = m[f"{name}_low"] = m[f"{name}_high"] = None
    return m


def _excerpt_line(ev: Evaluation) -> str:
    """`precision 1.000 [0.90, 1.00] (33 of 33)  recall ...`; a count of zero says so instead of
    printing a proportion of nothing."""
    tp, fp, fn = len(ev.tp), len(ev.fp), len(ev.fn)

    def share(name: str, hits: int, trials: int, none: str) -> str:
        if not trials:
            return f"{name} {none}"
        lo, hi = wilson(hits, trials)
        return f"{name} {hits / trials:.3f} [{lo:.3f}, {hi:.3f}] ({hits} of {trials})"

    return (
        f"{share('precision', tp, tp + fp, 'no claim'):40}  "
        f"{share('recall', tp, tp + fn, 'no named target'):38}  TN {ev.tn}  no-target "
        f"{ev.unknown_target}"
    )


def _crawled_archive(archive: Path, cache: Path) -> Store:
    """The modern rounds are scored on a GraphQL crawl of their archive, served as github.com
    serves it (64-bit ids, list pages without `closed_by`): the sandbox is loaded for them
    only, not by every `issues-sts links` command."""
    from issues_sts.sandbox.archive_crawl import crawl_archive_store

    return crawl_archive_store(archive, cache)


_CRAWLED = {"neovim": _crawled_archive}


def _require_rows(path: Path, subset: str) -> None:
    """A subset without a row would score precision and recall of nothing as 1.0."""
    rows = read_annotations(path)
    if select(rows, subset):
        return
    counts = ", ".join(f"{name} {len(select(rows, name))}" for name in ("dev", "test"))
    raise ConfigError(
        f"{path} has no annotated threads in --subset {subset} (rows: {counts}): there is "
        "nothing to score",
        hint="choose a --subset that has rows, or pass a file whose rows are marked for it",
    )


def _by_line(row: dict[str, object]) -> str:
    """`  by alice (MEMBER) at 2024-01-02T...`, leaving out what the link does not know."""
    who = row.get("author") or "someone unknown"
    role = f" ({row['author_association']})" if row.get("author_association") else ""
    when = f" at {row['created_at']}" if row.get("created_at") else ""
    return f"  by {who}{role}{when}"


def register(app: typer.Typer) -> None:
    """Add this module's commands to `app`."""
    app.add_typer(links_app, name="links")


__all__ = ["LINKS_FILE", "register"]
