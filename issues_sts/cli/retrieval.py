"""`issues-sts index` and `issues-sts similar`: a maintainer's duplicate finder."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import typer
from rich.console import JustifyMethod
from rich.table import Table

from issues_sts.cli.common import DATA_DIR, DEFAULT_STORE, console, out, quiet_option
from issues_sts.cli.options import config_from, config_option
from issues_sts.cli.report import make_reporter
from issues_sts.errors import ConfigError, interruption
from issues_sts.retrieval.indexer import IndexConfig

DEFAULT_INDEX = DATA_DIR / "index"
_ASKED = re.compile(r"^([\w.-]+/[\w.-]+)(?:#(\d+))?$")

INDEX_HELP = """Embed every issue of a crawl store into a vector index on disk (what
`issues-sts similar` searches). Texts follow the dataset's recipe and redaction; pull requests
and deleted issues are left out. The store is opened read-only.

Resumes after Ctrl-C (each chunk of vectors is committed as it is made). Run it again after
a re-crawl: only new issues and issues whose text changed are embedded. An index holds the
vectors of one model, pooling, length and recipe: another is refused (exit 2).

Examples:

    issues-sts index --store data/store --out data/index

    issues-sts index --store data/store --model runs/angle --out data/index-angle --max-length 128
"""

SIMILAR_HELP = """The k most similar earlier issues of the same repository (created strictly
before the asked one): number, title, state, score and URL. Reads only the index (no store,
no model unless --text asks about a report that is not in it).

Examples:

    issues-sts similar rust-lang/rust#12345 --index data/index

    issues-sts similar rust-lang/rust#12345 --index data/index -k 20 --method hybrid --json

    issues-sts similar rust-lang/rust --text new-report.md --index data/index

    cat report.md | issues-sts similar rust-lang/rust --text - --index data/index
"""


def index_command(
    ctx: typer.Context,
    store: Path = config_option(IndexConfig, "store", default=DEFAULT_STORE),
    model: str | None = config_option(IndexConfig, "model"),
    out: Path = config_option(IndexConfig, "out", default=DEFAULT_INDEX),
    pooling: str | None = config_option(IndexConfig, "pooling"),
    max_length: int | None = config_option(IndexConfig, "max_length"),
    recipe: str = config_option(IndexConfig, "recipe"),
    batch_size: int = config_option(IndexConfig, "batch_size"),
    chunk_rows: int = config_option(IndexConfig, "chunk_rows"),
    quiet: bool = quiet_option(),
) -> None:
    from issues_sts.retrieval.indexer import run_index

    if recipe not in ("readers", "raw"):
        raise typer.BadParameter("choose readers or raw", param_hint="--recipe")
    cfg = config_from(IndexConfig, "index", ctx.params)
    index_dir = cfg.out
    try:
        with make_reporter(console, quiet=quiet) as reporter:
            summary = run_index(cfg, reporter)
    except KeyboardInterrupt as exc:
        raise interruption(exc)(
            kept=f"every committed chunk of vectors is in {index_dir}/pending"
        ) from None
    c = summary.counters()
    console.print(
        f"indexed {c['rows']:,} issues of {c['repos']:,} repositories in {index_dir}: "
        f"{c['embedded']:,} embedded ({c['changed']:,} changed), {c['resumed']:,} resumed, "
        f"{c['unchanged']:,} unchanged, {c['removed']:,} removed; {c['ann_repos']} ANN indexes; "
        f"{summary.seconds:.1f}s",
        markup=False,
    )


def parse_asked(asked: str, has_text: bool) -> tuple[str, int | None]:
    """OWNER/NAME#N, or OWNER/NAME with --text."""
    m = _ASKED.match(asked.strip())
    if m is None or (m.group(2) is None and not has_text):
        raise ConfigError(
            f"bad issue {asked!r}",
            hint="write it as OWNER/NAME#N, or OWNER/NAME with --text FILE",
        )
    return m.group(1), int(m.group(2)) if m.group(2) else None


def read_text(source: str) -> str:
    """--text FILE, or - for stdin; an empty text is refused."""
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"--text {source} cannot be read ({exc})") from None
    if not text.strip():
        raise ConfigError(
            f"--text {source} is empty", hint="give the report's title and body, as on GitHub"
        )
    return text.strip()


def similar_command(
    asked: str = typer.Argument(..., help="OWNER/NAME#N (or OWNER/NAME with --text)."),
    index_dir: Path = typer.Option(DEFAULT_INDEX, "--index", help="Index folder (`index --out`)."),
    k: int = typer.Option(10, "-k", min=1, max=1000, help="How many issues to list."),
    method: str = typer.Option("dense", "--method", help="dense or hybrid (dense + BM25, RRF)."),
    text: str | None = typer.Option(
        None, "--text", help="A report that is not in the index: a file, or - for stdin."
    ),
    model: str | None = typer.Option(
        None, "--model", help="Must be the index's model (checked); used to embed --text."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the answer as JSON on stdout."),
    quiet: bool = quiet_option(),
) -> None:
    from issues_sts.retrieval.query import ask
    from issues_sts.retrieval.similar import Method

    if method not in ("dense", "hybrid"):
        raise typer.BadParameter("choose dense or hybrid", param_hint="--method")
    repo, number = parse_asked(asked, text is not None)
    body = read_text(text) if text is not None else None
    chosen: Method = "hybrid" if method == "hybrid" else "dense"  # checked above
    answer = ask(index_dir, repo, number, body, k, chosen, model)
    if as_json:
        out.print(json.dumps(answer.to_json(), indent=2, ensure_ascii=False), markup=False)
        return
    query = answer.query
    title = (
        f"{query['repo']}#{query['number']} {query['title']}"
        if query.get("number") is not None
        else f"{query['repo']}: the given text"
    )
    table = Table(
        title=f"earlier issues like {title} ({answer.method}, {answer.candidates:,} candidates)"
    )
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("#", "right"),
        ("issue", "right"),
        ("title", "left"),
        ("state", "left"),
        ("score", "right"),
        ("url", "left"),
    )
    for name, justify in columns:
        table.add_column(name, justify=justify)
    for row in answer.results:
        table.add_row(
            str(row["rank"]),
            str(row["number"]),
            row["title"],
            row["state"] or "",
            f"{row['score']:.4f}",
            row["url"],
        )
    out.print(table)


def register(app: typer.Typer) -> None:
    """Add `index` and `similar` to `app`."""
    app.command("index", help=INDEX_HELP)(index_command)
    app.command("similar", help=SIMILAR_HELP)(similar_command)
