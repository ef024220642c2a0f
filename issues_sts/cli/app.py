"""Entry point of `issues-sts`: wires the command modules and maps errors to one line."""

from __future__ import annotations

import sys

import typer
from rich.markup import escape

from issues_sts import __version__
from issues_sts.cli import build, crawl, demo, fake, links, push, train
from issues_sts.cli.common import console
from issues_sts.errors import IssuesStsError

app = typer.Typer(
    name="issues-sts",
    help=(
        "Rebuild the GitHub Issues Similarity dataset: crawl GitHub, extract duplicate links, "
        "build pairs and splits, publish to the Hugging Face Hub.\n\n"
        "Start with `issues-sts demo` (offline, no token), then "
        "`issues-sts crawl --token ...` against the real GitHub."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"issues-sts {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
    debug: bool = typer.Option(False, "--debug", help="Show full tracebacks instead of one-line errors."),
) -> None:
    """Global options."""


for module in (crawl, links, build, push, fake, demo, train):
    module.register(app)

EXIT_CODES = """Exit codes: 0 ok, 1 error, 2 bad configuration or usage, 3 crawl store problem,
4 GitHub error, 5 token rejected, 6 dataset problem, 7 Hub problem, 8 training problem,
130 interrupted (run the same command again: crawls resume)."""


# typer vendors click; its usage errors share one base class, found without importing internals.
_CLICK_EXCEPTION: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args
    try:
        app(args=args, prog_name="issues-sts", standalone_mode=False)
    except IssuesStsError as exc:
        if debug:
            raise
        console.print(f"[red]error:[/red] {escape(exc.one_line())}", markup=True, highlight=False, soft_wrap=True)
        sys.exit(exc.exit_code)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        console.print("interrupted")
        sys.exit(130)
    except _CLICK_EXCEPTION as exc:  # usage errors: click prints them with the usage line
        exc.show()  # type: ignore[attr-defined]
        sys.exit(2)
    except KeyboardInterrupt:
        console.print("interrupted: run the same command again to resume")
        sys.exit(130)


if __name__ == "__main__":
    main()
