"""One exception tree for the whole project.

    IssuesStsError                 every error a user can cause or meet; has a `hint`
    ├── ConfigError                bad repos.yaml, bad option values
    ├── StoreError                 missing, empty, corrupt or unwritable crawl store
    │   └── IncompleteStore        repositories not crawled to the end (build refuses them)
    ├── GitHubError                carries status, url (never the token), request id
    │   ├── BadCredentials         401: the token was rejected
    │   ├── RepoNotFound           the repository does not exist or is not visible
    │   ├── RateLimited            a limit window is open longer than we may wait
    │   ├── Unreachable            the server never answered (refused, DNS, not HTTP)
    │   └── RetriesExhausted       transient faults outlasted the retry budget
    ├── DatasetError               the build cannot produce a trustworthy dataset
    │   ├── NoDuplicates           the store has no usable duplicate links
    │   ├── LeakageError           an issue would cross splits
    │   └── OutputError            an output file or folder cannot be written
    │       └── OutputDirError     --out holds something that is not ours
    ├── TokenizerError             an unknown or unloadable tokenizer
    ├── HubError                   the Hub refused a push, or could not be reached
    ├── TrainingError              bad training data, model or checkpoint
    └── Interrupted                Ctrl-C (130), SIGTERM or SIGHUP (143); says what was kept

The CLI turns each into one line: ``error: <message> (<hint>)`` and the exit status of
`EXIT_CODES`; tracebacks only with ``--debug``, which keeps the status. An `OSError` becomes
one of these where the code knows what it was touching (`os_errors`): the store's is a
StoreError, an output's an OutputError, training's a TrainingError.

`SignalInterrupt` is not an error a user causes: it is how a SIGTERM reaches the code that
knows what to keep, the way Ctrl-C's KeyboardInterrupt does.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class IssuesStsError(Exception):
    """Base class. `hint` tells the user what to do next."""

    exit_code = 1
    default_hint = ""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint if hint is not None else self.default_hint

    def one_line(self) -> str:
        text = " ".join(self.message.split())
        return f"{text} ({self.hint})" if self.hint else text


class ConfigError(IssuesStsError):
    exit_code = 2


class StoreError(IssuesStsError):
    exit_code = 3
    default_hint = "run `issues-sts crawl` first, or point --store at a crawl store"


# A damaged database cannot be resumed: what a new crawl into another folder does, said true.
DAMAGED_STORE_HINT = (
    "move it away and crawl again into an empty --store; that crawl starts from the beginning, "
    "since nothing of a damaged store can be resumed"
)


class IncompleteStore(StoreError):
    default_hint = (
        "run the same `issues-sts crawl` again to finish it, or pass --allow-incomplete to "
        "build from what is there (the card and stats.json then name what is missing)"
    )


class GitHubError(IssuesStsError):
    exit_code = 4

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        url: str | None = None,
        request_id: str | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.status = status
        self.url = url
        self.request_id = request_id


TOKEN_PAGE = "create one at https://github.com/settings/tokens"


class BadCredentials(GitHubError):
    exit_code = 5
    default_hint = f"check --token / GITHUB_TOKEN; {TOKEN_PAGE}"


class RepoNotFound(GitHubError):
    default_hint = (
        "check the owner/name in repos.yaml; private repositories need a token with access"
    )


class RateLimited(GitHubError):
    default_hint = (
        "wait for the reset time shown, or use a token with a higher limit; the crawl resumes "
        "where it stopped"
    )


class Unreachable(GitHubError):
    default_hint = "check --api-url and the network connection, then run the same command again"


class RetriesExhausted(GitHubError):
    default_hint = (
        "GitHub kept failing; run the same command again later, the crawl resumes where it stopped"
    )


class DatasetError(IssuesStsError):
    exit_code = 6


class NoDuplicates(DatasetError):
    default_hint = "crawl more repositories (duplicates are rare: about 1 issue in 20)"


class LeakageError(DatasetError):
    pass


class OutputError(DatasetError):
    default_hint = "choose another output path, or make this one writable"


class OutputDirError(OutputError):
    default_hint = "choose an empty --out directory or one written by an earlier build"


class TokenizerError(IssuesStsError):
    exit_code = 2
    default_hint = "pass a Hugging Face tokenizer name or a local path; offline, use the default"


class HubError(IssuesStsError):
    exit_code = 7
    default_hint = "check --repo-id and that your token has write access"


class HubUnreachable(HubError):
    default_hint = "check the network connection and HF_ENDPOINT, then run the same command again"


class TrainingError(IssuesStsError):
    exit_code = 8


class Interrupted(IssuesStsError):
    """The user stopped the run (Ctrl-C). `kept` says what was saved, `hint` how to resume."""

    exit_code = 130

    def __init__(
        self, message: str = "interrupted", *, kept: str = "", hint: str | None = None
    ) -> None:
        super().__init__(message, hint=hint)
        self.kept = kept


class Terminated(Interrupted):
    """The process was asked to stop: SIGTERM (a scheduler) or SIGHUP (its terminal closed)."""

    exit_code = 143


class SignalInterrupt(KeyboardInterrupt):
    """Raised in the main thread by the SIGTERM handler; Ctrl-C raises a plain KeyboardInterrupt.

    A KeyboardInterrupt subclass so that every place that already saves its work on Ctrl-C
    (crawl pages, training checkpoints) does the same on SIGTERM.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def describe_os_error(exc: OSError) -> str:
    """`Permission denied: /data/store` from an OSError, without Python's [Errno 13] prefix."""
    return f"{exc.strerror or exc}{f': {exc.filename}' if exc.filename else ''}"


@contextmanager
def os_errors(kind: type[IssuesStsError], what: str, *, hint: str | None = None) -> Iterator[None]:
    """An OSError inside becomes `kind` (its exit status): the operating system refused
    something while the code was working on `what` (the crawl store, an output, training)."""
    try:
        yield
    except OSError as exc:
        raise kind(f"{what}: {describe_os_error(exc)}", hint=hint) from exc


def interruption(exc: BaseException) -> type[Interrupted]:
    """Which Interrupted a KeyboardInterrupt stands for: SIGTERM's or Ctrl-C's."""
    return Terminated if isinstance(exc, SignalInterrupt) else Interrupted


# The one table of process exit statuses: the CLI exits with these, `--help` and the README
# print them, and a test runs every one through the installed console script.
EXIT_CODES: tuple[tuple[int, str], ...] = (
    (0, "success"),
    (
        1,
        "an unexpected error (a bug, or an operating-system failure no check foresaw): rerun "
        "with --debug and report it",
    ),
    (
        ConfigError.exit_code,
        "bad configuration or usage (options, splits, repos.yaml, tokenizer)",
    ),
    (
        StoreError.exit_code,
        "crawl store missing, empty, damaged, incomplete (build) or not writable",
    ),
    (
        GitHubError.exit_code,
        "GitHub error: unreachable, a repository that does not exist, retries exhausted, "
        "or a crawl that lost data",
    ),
    (BadCredentials.exit_code, "the GitHub token was rejected or malformed"),
    (
        DatasetError.exit_code,
        "dataset or output problem: a dataset missing or unreadable, no usable duplicates, a "
        "split left empty, an output folder or file that is bad or cannot be written",
    ),
    (HubError.exit_code, "Hugging Face Hub problem: unreachable, refused, no token"),
    (
        TrainingError.exit_code,
        "training problem: data (one label only), model, checkpoint, or a run folder that "
        "cannot be written",
    ),
    (Interrupted.exit_code, "interrupted by Ctrl-C (what was kept and how to resume is printed)"),
    (Terminated.exit_code, "terminated by SIGTERM or SIGHUP, a closed terminal (as for Ctrl-C)"),
)
