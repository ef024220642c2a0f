"""`issues-sts fake-github`: serve a generated world (or the rust archive) like GitHub does."""

from __future__ import annotations

import signal
import threading
import time
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from issues_sts.cli.common import console, out, quiet_option
from issues_sts.crawl.token import clean_token
from issues_sts.errors import ConfigError

if TYPE_CHECKING:
    from issues_sts.sandbox.corpus import Corpus
    from issues_sts.sandbox.github.settings import FakeSettings

# The fake GitHub's fault kinds (`sandbox.github.settings.FAULT_KINDS`, which a test compares),
# written here for `--help`: the sandbox is imported when the command runs, not by every command.
FAULT_KINDS = ("502", "503", "drop", "truncate", "short_body", "slow")

# Typer dedents the examples into markdown paragraphs, so an indented line continues the one
# above in `--help` (one command, one comment), not a line of its own.
HELP = """Serve a fake GitHub on 127.0.0.1 until Ctrl-C: REST (issues, comments, timelines, Link
pagination, rate limits, ETags, redirects) and GraphQL, over a deterministic generated world or
the rust-lang/rust issue archive. Point `issues-sts crawl --api-url` at the printed URL.

Examples:

    issues-sts fake-github

    issues-sts fake-github --world small --seed 3 --port 8765

    issues-sts fake-github --world paper --scale 0.05    # the paper's 55 repositories at 5 %
                                                           of their size

    issues-sts fake-github --rust-archive ../shared/data/rust-issue-archive
        --rate-limit 500 --reset-seconds 10

    issues-sts fake-github --port 8765 --grow 1    # the same world a month later

An incremental crawl by hand: crawl the served world, then grow it while it is served
(`curl -X POST http://127.0.0.1:PORT/_fake/grow`: a month of new issues, comments, duplicates
and merges, and a new repository) or restart it with `--grow 1`, and crawl again.
"""


def fake_github_command(
    world: str = typer.Option(
        "demo", "--world", help="Generated world: tiny, small, demo, large or paper."
    ),
    scale: float = typer.Option(
        0.01,
        "--scale",
        min=0.001,
        max=1.0,
        help="With --world paper: share of the 55 repositories' real sizes (0.001..1).",
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the generated world."),
    repos: int | None = typer.Option(
        None, "--repo-count", min=1, help="Override the world's number of repositories."
    ),
    issues: int | None = typer.Option(
        None, "--issues-per-repo", min=1, help="Override the world's issues per repository."
    ),
    rust_archive: Path | None = typer.Option(
        None, "--rust-archive", help="Serve the rust issue archive in this folder instead."
    ),
    rust_limit: int | None = typer.Option(
        None, "--rust-limit", min=1, help="Only the first N items of the archive."
    ),
    port: int = typer.Option(
        0, "--port", min=0, max=65535, help="Port on 127.0.0.1 (0 = any free port)."
    ),
    token: str = typer.Option("test-token", "--token", help="The token the server accepts."),
    no_graphql: bool = typer.Option(
        False, "--no-graphql", help="Answer 404 on /graphql, like a GitHub without it."
    ),
    rate_limit: int = typer.Option(
        5000, "--rate-limit", min=0, help="Core requests (and GraphQL points) per window."
    ),
    reset_seconds: float = typer.Option(
        3600.0, "--reset-seconds", help="Rate-limit window length in seconds."
    ),
    secondary_every: int | None = typer.Option(
        None,
        "--secondary-every",
        min=1,
        help="Answer every Nth request with a secondary-limit 403 (retry-after: 60).",
    ),
    fault_rate: float = typer.Option(
        0.0,
        "--fault-rate",
        min=0.0,
        max=1.0,
        help=f"Share of requests answered with a fault ({', '.join(FAULT_KINDS)}).",
    ),
    enterprise: bool = typer.Option(
        False, "--enterprise", help="Serve under /api/v3 like GitHub Enterprise Server."
    ),
    grow: int = typer.Option(
        0,
        "--grow",
        min=0,
        help="Serve the world N months later: N growths of new issues, comments, duplicates, "
        "merges and a repository (POST /_fake/grow adds one while serving).",
    ),
    quiet: bool = quiet_option(),
) -> None:
    # the crawler refuses a token it could not be (too short, whitespace inside): so does the
    # server, rather than serve one that no crawl can send
    token = clean_token(token, "--token")
    from issues_sts.sandbox.github.settings import FakeSettings

    try:
        settings = FakeSettings(
            tokens=frozenset({token}),
            rate_limit={"core": rate_limit, "graphql": rate_limit, "search": 30},
            reset_seconds=reset_seconds,
            secondary_limit_every=secondary_every,
            fault_rate=fault_rate,
            graphql=not no_graphql,
            enterprise=enterprise,
        )
    except ValueError as exc:
        raise ConfigError(str(exc), hint="see `issues-sts fake-github --help`") from None
    corpus = load_corpus(
        world, seed, rust_archive, rust_limit, repos=repos, issues=issues, scale=scale, quiet=quiet
    )
    serve(corpus, settings, port, grow=grow)


def load_corpus(
    world: str,
    seed: int,
    rust_archive: Path | None,
    rust_limit: int | None,
    *,
    repos: int | None = None,
    issues: int | None = None,
    scale: float = 0.01,
    quiet: bool = False,
) -> Corpus:
    """The corpus the command serves: the rust archive when given, else a generated world."""
    started = time.monotonic()
    if rust_archive is not None:
        from issues_sts.sandbox.worlds.rust import rust_corpus

        with _spinner(f"loading {rust_archive}", quiet):
            corpus = rust_corpus(rust_archive, limit=rust_limit)
    elif world == "paper":
        corpus = _paper_corpus(seed, scale, quiet)
    else:
        from issues_sts.sandbox.worlds.generator import PRESETS, WorldConfig, generate_world, preset

        if world not in PRESETS:
            raise ConfigError(
                f"unknown world {world!r}", hint=f"choose one of {', '.join(PRESETS)}, paper"
            )
        base = preset(world, seed)
        overrides = {
            k: v for k, v in (("repos", repos), ("issues_per_repo", issues)) if v is not None
        }
        try:
            cfg = WorldConfig(**{**base.__dict__, **overrides})
        except ValueError as exc:
            raise ConfigError(str(exc), hint="see `issues-sts fake-github --help`") from None
        with _spinner(f"generating the {world!r} world (seed {seed})", quiet):
            corpus = generate_world(cfg)
    console.print(
        f"{len(corpus.repos)} repositories, {corpus.total_items():,} issues and pull requests, "
        f"{corpus.total_comments():,} comments ({time.monotonic() - started:.1f} s)"
    )
    return corpus


def _spinner(text: str, quiet: bool) -> AbstractContextManager[object]:
    return nullcontext() if quiet else console.status(text)


def _paper_corpus(seed: int, scale: float, quiet: bool = False) -> Corpus:
    from issues_sts.sandbox.worlds.paper import PaperConfig, generate_paper_world

    try:
        cfg = PaperConfig(seed=seed, scale=scale)
    except ValueError as exc:
        raise ConfigError(str(exc), hint="pass --scale between 0.001 and 1") from None
    with _spinner(
        f"generating the paper world at scale {scale} (about {cfg.expected_items():,} items, seed "
        f"{seed})",
        quiet,
    ):
        return generate_paper_world(cfg)


def serve(corpus: Corpus, settings: FakeSettings, port: int, *, grow: int = 0) -> None:
    from issues_sts.sandbox.github.server import GROW_PATH, FakeGitHub

    try:
        gh = FakeGitHub(corpus, settings, port=port)
    except OSError as exc:
        raise ConfigError(
            f"cannot listen on 127.0.0.1:{port}: {exc.strerror}", hint="choose another --port, or 0"
        ) from None
    with gh:
        for _ in range(grow):
            gh.grow()
        out.print(f"api url:     {gh.api_url}")
        out.print(f"graphql url: {gh.graphql_url if settings.graphql else '(disabled)'}")
        out.print(f"token:       {next(iter(settings.tokens))}")
        out.print("repositories: " + " ".join(corpus.repos))
        out.print(f"grow it:     curl -X POST {gh.root_url}{GROW_PATH}   (a month more)")
        console.print("serving until Ctrl-C")
        stop = threading.Event()
        # Explicit handlers: a shell may start us with SIGINT ignored, and SIGTERM should stop
        # the server as cleanly as Ctrl-C.
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: stop.set())
        while not stop.wait(0.5):
            pass
        stats = gh.stats()
        console.print(f"stopped after {stats['requests']} requests ({stats['counted']} counted)")


def register(app: typer.Typer) -> None:
    """Add this module's commands to `app`."""
    app.command("fake-github", help=HELP)(fake_github_command)
