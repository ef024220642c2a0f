"""Entry point of `issues-sts`: wires the command modules and maps every outcome to the
documented exit status (`issues_sts.errors.EXIT_CODES`) with one line."""

from __future__ import annotations

import functools
import signal
import sqlite3
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import typer
from rich.markup import escape

from issues_sts import __version__
from issues_sts.cli import build, crawl, demo, diff, fake, fakehub, links, push, retrieval, train
from issues_sts.cli.aliases import command_of, rewrite
from issues_sts.cli.common import console, dropped_secret_note, resume_command
from issues_sts.errors import (
    DAMAGED_STORE_HINT,
    EXIT_CODES,
    ConfigError,
    Interrupted,
    IssuesStsError,
    SignalInterrupt,
    StoreError,
    describe_os_error,
    interruption,
)
from issues_sts.libraries import quiet_libraries
from issues_sts.secrets import scrubbed_output

EXIT_CODES_HELP = (
    "Exit codes: " + "; ".join(f"{code} {text.split(':')[0]}" for code, text in EXIT_CODES) + "."
)

app = typer.Typer(
    name="issues-sts",
    help=(
        "Rebuild the GitHub Issues Similarity dataset: crawl GitHub, extract duplicate links, "
        "build pairs and splits, publish to the Hugging Face Hub.\n\n"
        "Start with `issues-sts demo` (offline, no token), then "
        "`issues-sts crawl --token ...` against the real GitHub."
    ),
    epilog=EXIT_CODES_HELP,
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
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
    debug: bool = typer.Option(
        False, "--debug", help="Show full tracebacks instead of one-line errors."
    ),
) -> None:
    """Global options."""


def _interruptible(func: Callable[..., Any]) -> Callable[..., Any]:
    """Ctrl-C / SIGTERM inside a command become `Interrupted` / `Terminated`, which carry the
    exit status; typer would turn a bare KeyboardInterrupt into a silent 130."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except KeyboardInterrupt as exc:
            raise interruption(exc)() from None

    return wrapper


def _wrap_commands(typer_app: typer.Typer) -> None:
    for info in typer_app.registered_commands:
        if info.callback is not None:
            info.callback = _interruptible(info.callback)
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            _wrap_commands(group.typer_instance)


for module in (crawl, links, build, diff, push, fake, fakehub, demo, train, retrieval):
    module.register(app)
_wrap_commands(app)


# typer vendors click; its usage errors share one base class, found without importing internals.
_CLICK_EXCEPTION: type[Exception] = next(
    c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException"
)


# the signal that stopped the command, for its 'terminated' line
_STOPPED_BY: list[int] = [signal.SIGTERM]


def _command(app_: typer.Typer) -> Any:
    """The click command `app_` runs, with every on/off flag shown as a flag in `--help`
    (typer prints `--quiet <bool>`, though `--quiet true` is refused)."""
    command = typer.main.get_command(app_)
    _show_flags_as_flags(command)
    return command


def _show_flags_as_flags(command: Any) -> None:
    help_option = command.get_help_option(typer.Context(command))  # made once, then cached
    for param in [*command.params, *([help_option] if help_option else [])]:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""  # an empty type column: the flag takes no value
    for sub in getattr(command, "commands", {}).values():
        _show_flags_as_flags(sub)


def _click_message(exc: Any) -> str:
    """A click exception's own message (typer's vendored click carries no type stubs)."""
    return str(exc.format_message())


def _usage_line(exc: Exception, args: Sequence[str], prog: str, root: Any) -> str:
    """The parser's error (a range, a choice, a missing value, an unknown option) as the
    table's one line, pointing at the help of the command it was given to."""
    ctx = getattr(exc, "ctx", None)
    where = ctx.command_path if ctx is not None and ctx.parent is not None else prog
    command = command_of(args)[0]
    if where == prog and command.split(" ")[0] in getattr(root, "commands", {}):
        where = f"{prog} {command}"  # an option's missing value is noticed by the group
    message = " ".join(_click_message(exc).split())
    return f"{message} (see `{where} --help`)"


def _on_sigterm(signum: int, frame: Any) -> None:
    """SIGTERM (a scheduler) and SIGHUP (the terminal closed) stop a command as Ctrl-C does:
    what was done is kept, a summary and the resume line are printed."""
    _STOPPED_BY[0] = signum
    raise SignalInterrupt(signum)


def _note_line(text: str) -> None:
    console.print(text, markup=False, highlight=False, soft_wrap=True)


def _error_line(text: str) -> None:
    console.print(f"[red]error:[/red] {escape(text)}", markup=True, highlight=False, soft_wrap=True)


def _interrupted(exc: Interrupted, args: Sequence[str], prog: str) -> int:
    """One 'interrupted' line, what was kept, and the exact command that resumes."""
    what = "interrupted"
    if exc.exit_code == 143:
        what = f"terminated ({signal.Signals(_STOPPED_BY[0]).name})"
    kept = f": {exc.kept}" if exc.kept else ""
    console.print(
        f"[yellow]{what}[/yellow]{escape(kept)}", markup=True, highlight=False, soft_wrap=True
    )
    hint = exc.hint or "run the same command again"
    note = dropped_secret_note(args)
    hint = f"{hint}; {note}" if note else hint
    console.print(
        f"to resume: {escape(resume_command(prog, args))}  ({escape(hint)})",
        highlight=False,
        soft_wrap=True,
    )
    return exc.exit_code


def _store_failure(exc: sqlite3.Error) -> StoreError:
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name == "SQLITE_FULL" or name.startswith("SQLITE_IOERR_WRITE") or "full" in str(exc).lower():
        why = "the disk is full" if name == "SQLITE_FULL" else "a write failed: is the disk full?"
        return StoreError(
            f"the crawl store could not be written: {why} ({exc})",
            hint="free some space and run the same command again: every committed page is kept",
        )
    return StoreError(
        f"the crawl store could not be read or written ({exc})",
        hint=f"if it is damaged: {DAMAGED_STORE_HINT}",
    )


def _traceback(exc: BaseException) -> None:
    """--debug: the traceback on stderr (scrubbed like every other output)."""
    console.print(
        "".join(traceback.format_exception(exc)).rstrip(),
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


def _failure(exc: BaseException) -> tuple[str, int]:
    """The one line and the exit status of an exception that ended a command."""
    if isinstance(exc, IssuesStsError):
        return exc.one_line(), exc.exit_code
    if isinstance(exc, sqlite3.Error):  # the store's database failed where no stage expected it
        return _store_failure(exc).one_line(), StoreError.exit_code
    if isinstance(exc, OSError):  # the operating system refused something no check foresaw
        return (
            f"{describe_os_error(exc)} (fix the cause, or rerun with --debug for the traceback)",
            1,
        )
    return (
        f"unexpected {type(exc).__name__}: {exc} (a bug: rerun with --debug and report it)",
        1,
    )


def run(app_: typer.Typer, args: Sequence[str], prog: str) -> int:
    """Run `app_` on `args` and return the process exit status; never raises. With --debug an
    error also shows its traceback, and the status stays the one of the table."""
    debug = "--debug" in args
    args = rewrite(args, _note_line)  # retired option names, still accepted for a release
    command = _command(app_)
    quiet_libraries(quiet="--quiet" in args, terminal=console.is_terminal)
    try:
        result = command.main(args=list(args), prog_name=prog, standalone_mode=False)
    except Interrupted as exc:
        return _interrupted(exc, args, prog)
    except typer.Exit as exc:
        return int(exc.exit_code)
    except (typer.Abort, KeyboardInterrupt) as exc:
        cause = exc.__cause__ if isinstance(exc, typer.Abort) else exc
        return _interrupted(interruption(cause or exc)(), args, prog)
    except _CLICK_EXCEPTION as exc:  # the parser's errors: one line, as every other error
        _error_line(_usage_line(exc, args, prog, command))
        return ConfigError.exit_code
    except Exception as exc:
        line, code = _failure(exc)
        if debug:
            _traceback(exc)
        _error_line(line)
        return code
    # standalone_mode=False hands back what the command returned; an Exit caught inside
    # click comes back as its code. Anything that is not an int is success.
    return result if isinstance(result, int) else 0


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: the process exits with the documented status, always."""
    args = list(sys.argv[1:] if argv is None else argv)
    # `nohup` ignores SIGHUP so that the command outlives its terminal: that stays so
    stops = [signal.SIGTERM]
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:
        stops.append(signal.SIGHUP)
    previous = {signum: signal.signal(signum, _on_sigterm) for signum in stops}
    try:
        with scrubbed_output():
            code = run(app, args, "issues-sts")
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    sys.exit(code)


if __name__ == "__main__":
    main()
