"""`issues-sts crawl` and `issues-sts status`."""

from __future__ import annotations

import json
import logging
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import typer
from pydantic import SecretStr
from rich.table import Table

from issues_sts.cli.common import (
    DEFAULT_REPOS,
    DEFAULT_STORE,
    console,
    out,
    quiet_option,
)
from issues_sts.cli.logfile import json_log
from issues_sts.cli.options import config_from, config_option
from issues_sts.cli.report import PROGRESS_EVERY, make_reporter
from issues_sts.crawl.config import CrawlConfig, CrawlSummary
from issues_sts.crawl.plan import Plan, plan_crawl, plan_table_rows
from issues_sts.crawl.progress import summary_data, summary_table
from issues_sts.crawl.runner import run_crawl
from issues_sts.crawl.token import HOW_TO_PASS, find_token, raw_token_shapes
from issues_sts.errors import TOKEN_PAGE, BadCredentials, GitHubError, Interrupted, Terminated
from issues_sts.evidence import labels_say_duplicate, says_duplicate
from issues_sts.repos import load_repos, parse_repo_name
from issues_sts.secrets import SCRUB
from issues_sts.store import RENAMED, SCHEMA_VERSION, DuplicateScreen, Store

log = logging.getLogger("issues_sts.crawl")

CRAWL_HELP = """Crawl GitHub issues, comments and duplicate evidence into a resumable store.

Examples:

    issues-sts crawl --repos repos.yaml                  # token from GITHUB_TOKEN / GH_TOKEN

    issues-sts crawl --repo rust-lang/rust --repo microsoft/vscode --token ghp_...

    issues-sts crawl --api-url https://ghe.example.com/api/v3 --repo team/app

    issues-sts crawl --repos repos.yaml --max-requests 1000   # stop after 1000 requests

    issues-sts crawl --repos repos.yaml --plan   # sizes, requests, points, hours; nothing crawled

What each request buys (two separate budgets of 5,000 an hour: REST requests, GraphQL points):

    REST GET /repos/{r}               where the repository lives now (renames followed, kept in
                                      the store)
    REST issue list page              100 issues and PRs with labels and state_reason
    GraphQL thread batch (1 point)    the comments of up to 100 issues (never of PRs); long
                                      threads continue by cursor
    GraphQL candidate batch (1 point) duplicate events, naming the canonical issue, of up to 50
                                      candidates
    REST GET /issues/{n}              a number the duplicate evidence names but the lists did not
                                      return
    REST GET /repos/{o}/{r}, linked   once per store, a repository the duplicate wording links
                                      to that may be this one under an earlier name (same name,
                                      other owner; same owner, other name): a rename if GitHub
                                      redirects it here
    --no-graphql: REST comment page   100 comments (PRs' included); REST timeline only for
                                      closed issues GitHub calls duplicates (label,
                                      state_reason) and "Duplicate of" closes open again

Unnamed gaps in the numbering are never probed. Requests run several at a time, paced to
GitHub's per-minute secondary limits (900 REST / 2,000 GraphQL points, 90 s of response
time of which 60 s GraphQL); GraphQL batches halve on RESOURCE_LIMITS_EXCEEDED.

A crawl killed at any moment resumes where it stopped; run the same command again. A crawl
after a finished one is incremental (unchanged lists cost only free 304 answers).
"""


def _repo_list(repos_file: Path | None, repo: list[str]) -> tuple[str, ...]:
    if repo:
        return tuple(parse_repo_name(r) for r in repo)
    return load_repos(repos_file or DEFAULT_REPOS)


def _option(field: str, **overrides: Any) -> Any:
    return config_option(CrawlConfig, field, **overrides)


def crawl(
    ctx: typer.Context,
    token: str | None = typer.Option(
        None,
        "--token",
        help="GitHub token (default: $GITHUB_TOKEN, $GH_TOKEN, then the one `gh auth login` "
        "saved). Surrounding whitespace is dropped; one with whitespace inside is refused.",
        show_default=False,
    ),
    repos: Path | None = typer.Option(
        None, "--repos", help=f"YAML list of repositories [default: {DEFAULT_REPOS}]."
    ),
    repo: list[str] = typer.Option(
        [], "--repo", help="owner/name to crawl (repeatable; overrides --repos)."
    ),
    api_url: str = _option("api_url"),
    store: Path = _option("store"),
    no_graphql: bool = typer.Option(
        False, "--no-graphql", help="Use REST timelines only (no canonical issue names)."
    ),
    max_requests: int | None = _option("max_requests"),
    max_candidates: int = _option("max_candidates"),
    max_in_flight: int = _option("max_in_flight"),
    repos_at_once: int = _option("repos_at_once"),
    per_page: int = _option("per_page"),
    # the parser asks for a second at least (the config takes any positive time)
    timeout: float = _option("timeout", min=1),
    log_file: Path | None = typer.Option(
        None,
        "--log",
        help="Also write JSON lines here, for machines: every request, retry and wait, "
        "progress events and the summary (token scrubbed).",
    ),
    quiet: bool = quiet_option(),
    progress_every: float = typer.Option(
        PROGRESS_EVERY,
        "--progress-every",
        min=1,
        help="When stderr is not a terminal (a log file, nohup, a scheduler): a progress line "
        "at least this often, in seconds.",
    ),
    plan: bool = typer.Option(
        False,
        "--plan",
        help="Spend nothing on the crawl: ask each repository for its size (one point each), "
        "print the projected requests, points and hours, and save the plan for the crawl's "
        "summary to compare with.",
    ),
) -> None:
    """Crawl GitHub issues, comments and duplicate evidence into a resumable store."""
    for shape in raw_token_shapes(token, api_url):  # known before any of them is checked
        SCRUB.add(shape)
    found = find_token(token, api_url)
    given = {
        "repos": _repo_list(repos, repo),
        "token": SecretStr(found.value) if found else None,
        "graphql": not no_graphql,
        "repos_named_in": "given to --repo" if repo else f"in {repos or DEFAULT_REPOS}",
    }
    typed = {"repos": "--repo" if repo else "--repos"}
    cfg = config_from(CrawlConfig, "crawl", {**ctx.params, **given}, typed=typed)
    with json_log(log_file):
        if plan:
            _print_plan(plan_crawl(cfg))
            if found is None:  # what the plan just sized means at 60 requests an hour
                console.print(_anonymous_line(store), markup=False, highlight=False, soft_wrap=True)
            return
        if found is None:  # before the first request: what 60 requests an hour mean here
            console.print(_anonymous_line(store), markup=False, highlight=False, soft_wrap=True)
        reporter = make_reporter(console, quiet=quiet, every=progress_every)
        try:
            summary = run_crawl(cfg, reporter=reporter, progress_every=progress_every)
        except BadCredentials as exc:
            if found is not None and exc.hint == BadCredentials.default_hint:
                # say where the rejected token came from: GH_TOKEN or gh's file, maybe
                exc.hint = f"check the token from {found.source}; {TOKEN_PAGE}"
            raise
        console.print(summary_table(summary))
        log.info("crawl summary", extra={"event": "summary", "data": summary_data(summary)})
    _verdict(summary, cfg.store)


def _anonymous_line(store: Path) -> str:
    """What crawling without a token means for this crawl, said before its first request."""
    head = "no token: GitHub allows 60 requests an hour without one"
    plan = Plan.load(store) if store.is_dir() else None
    if plan is None:
        return (
            f"{head}; `issues-sts crawl --plan` says how long this crawl would take. To crawl "
            f"faster, {HOW_TO_PASS}"
        )
    requests = plan.anonymous_requests()
    with_token = plan.total().hours(plan.assumptions)
    return (
        f"{head}: the plan's {requests:,} requests would take {requests / 60:,.1f} h "
        f"({with_token:.1f} h with a token). To crawl faster, {HOW_TO_PASS}"
    )


def _print_plan(plan: Plan) -> None:
    a = plan.assumptions
    table = Table(title="crawl plan (one token, github.com's documented limits)")
    for column in (
        "repository",
        "items",
        "issues",
        "comments",
        "REST requests",
        "GraphQL points",
        "hours",
    ):
        table.add_column(column, justify="left" if column == "repository" else "right")
    for row in plan_table_rows(plan):
        table.add_row(*row)
    table.caption = (
        f"asking cost {plan.asked_requests} requests and {plan.asked_points} points. Assumed: "
        f"{a.rest_per_hour:,} requests and {a.points_per_hour:,} points an hour; "
        f"{a.cpu_per_minute:g} s of response time a minute ({a.graphql_cpu_per_minute:g} s "
        f"GraphQL); an answer takes {a.latency_base:g} s + {a.latency_per_kb * 1000:g} ms per KiB; "
        f"{a.issue_kb:g} KiB per issue, {a.comment_kb:g} KiB per comment"
        + (
            f"; each closed issue's timeline (the duplicate evidence: closes, labels, marks) "
            f"~{a.events_per_closed:g} events of {a.event_kb:g} KiB"
            if plan.graphql
            else f", {a.comments_per_item:g} comments per item (no GraphQL: not asked); REST "
            f"timelines for {a.closed_duplicate_share:.0%} of issues (closed duplicates)"
        )
    )
    out.print(table)


def _verdict(summary: CrawlSummary, store: Path) -> None:
    """Raise what the exit status must say: interrupted, or repositories that failed."""
    if summary.interrupted:
        kind = Terminated if summary.stopped == "terminated" else Interrupted
        raise kind(
            kept=f"{summary.pages} pages committed to {store} in this run ({summary.requests} "
            "requests)",
            hint="the crawl continues after the last committed page",
        )
    bad = [r for r in summary.repos if r.status in ("failed", "missing")]
    for r in bad[1:]:  # the first one's reason is in the error line
        console.print(
            f"{r.repo}: {r.status}: {r.message}", markup=False, highlight=False, soft_wrap=True
        )
    if bad:
        names = ", ".join(f"{r.repo} ({r.status})" for r in bad)
        raise GitHubError(
            f"{len(bad)} of {len(summary.repos)} repositories not crawled: {names}; "
            f"{bad[0].repo}: {bad[0].message}",
            hint="",
        )
    lossy = summary.lossy
    if lossy:  # never `ok`: a dataset built from this store would silently miss threads
        lost = sum(r.lost_comments for r in lossy)
        threads = sum(r.lost_threads for r in lossy)
        raise GitHubError(
            f"the crawl lost {lost:,} comments of {threads:,} threads in "
            f"{', '.join(r.repo for r in lossy)}: GitHub listed them but they could not be "
            "stored",
            hint=f"`issues-sts status --store {store}` lists them; run the same command again "
            "to re-read them",
        )


def status(
    store: Path = typer.Option(DEFAULT_STORE, "--store", help="Crawl store directory."),
    as_json: bool = typer.Option(
        False, "--json", help="One JSON object per repository (a stable interface)."
    ),
    compact: bool = typer.Option(
        False,
        "--compact",
        help="First shrink a store written before schema 2 (raw objects packed, then VACUUM).",
    ),
    quiet: bool = quiet_option(),
) -> None:
    """Show what the crawl store holds per repository.

    `--json` prints a list of objects with keys repo, issues, pull_requests, comments, events,
    duplicate_candidates, tombstones, status, current_name, last_sync, and the completeness
    invariant: comments_expected (the issues' own counts), issues_short / comments_short (issues
    whose stored comments fall short of their count, and by how many), lost_threads /
    lost_comments (threads the crawl could not store whole: status `lossy`).

    Examples:

        issues-sts status

        issues-sts status --store data/store --json

        issues-sts status --store data/store --compact
    """
    with Store.open(store, readonly=not compact) as db:  # only --compact writes
        if compact:
            spinner = console.status("compacting the store (raw objects packed, then VACUUM)")
            with nullcontext() if quiet else spinner:
                before, after = db.compact()
            console.print(f"compacted {store}: {before / 1e6:,.0f} MB -> {after / 1e6:,.0f} MB")
        elif db.schema_version() < SCHEMA_VERSION and not as_json:
            console.print(
                f"this store was written before schema {SCHEMA_VERSION} and is about 3x larger "
                "than needed; `issues-sts status --compact` shrinks it (everything keeps working "
                "without)"
            )
        counts = db.repo_counts(DuplicateScreen(labels_say_duplicate, says_duplicate))
        renames = dict(db.renamed_repos())
    if as_json:
        out.print(json.dumps(counts, indent=2), markup=False, highlight=False)
        return
    table = Table(title=f"crawl store {store}")
    for column in (
        "repository",
        "status",
        "issues",
        "PRs",
        "comments",
        "events",
        "candidates",
        "comments missing",
        "last sync",
    ):
        table.add_column(
            column, justify="left" if column in ("repository", "status", "last sync") else "right"
        )
    for row in counts:
        if row["status"] == RENAMED:  # an old name only: listed under the table
            continue
        table.add_row(
            row["repo"],
            row["status"],
            str(row["issues"]),
            str(row["pull_requests"]),
            str(row["comments"]),
            str(row["events"]),
            str(row["duplicate_candidates"]),
            _missing(row),
            row["last_sync"] or "never",
        )
    out.print(table)
    old_names = [
        f"{row['repo']} -> {renames[row['repo']]}"
        for row in counts
        if row["status"] == RENAMED and row["repo"] in renames
    ]
    if old_names:
        out.print(
            "old names (links to them land in the repository): " + ", ".join(old_names),
            markup=False,
            highlight=False,
        )


def _missing(row: dict[str, Any]) -> str:
    """The completeness invariant in a cell: comments the crawl lost, and comments GitHub counts
    but does not list (deleted or hidden after the count; read again and confirmed)."""
    parts = []
    if row["lost_comments"] or row["lost_threads"]:
        parts.append(f"{row['lost_comments']:,} lost ({row['lost_threads']:,} threads)")
    if row["comments_short"]:
        parts.append(f"{row['comments_short']:,} not listed ({row['issues_short']:,} issues)")
    return "; ".join(parts) or "0"


def register(app: typer.Typer) -> None:
    """Add `crawl` and `status` to `app`."""
    app.command("crawl", help=CRAWL_HELP)(crawl)
    app.command("status")(status)
