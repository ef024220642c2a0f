"""One exception tree for the whole project.

    IssuesStsError                 every error a user can cause or meet; has a `hint`
    ├── ConfigError                bad repos.yaml, bad option values
    ├── StoreError                 missing, empty or corrupt crawl store
    ├── GitHubError                carries status, url (never the token), request id
    │   ├── BadCredentials         401: the token was rejected
    │   ├── RepoNotFound           the repository does not exist or is not visible
    │   ├── RateLimited            a limit window is open longer than we may wait
    │   └── RetriesExhausted       transient faults outlasted the retry budget
    ├── DatasetError               the build cannot produce a trustworthy dataset
    │   ├── NoDuplicates           the store has no usable duplicate links
    │   ├── LeakageError           an issue would cross splits
    │   └── OutputDirError         --out holds something that is not ours
    ├── TokenizerError             an unknown or unloadable tokenizer
    ├── HubError                   the Hub refused a push
    └── TrainingError              bad training data, model or checkpoint

The CLI turns each into one line: ``error: <message> (<hint>)`` and a non-zero exit;
tracebacks only with ``--debug``.
"""

from __future__ import annotations


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


class BadCredentials(GitHubError):
    exit_code = 5
    default_hint = "check --token / GITHUB_TOKEN; create one at https://github.com/settings/tokens"


class RepoNotFound(GitHubError):
    default_hint = "check the owner/name in repos.yaml; private repositories need a token with access"


class RateLimited(GitHubError):
    default_hint = "wait for the reset time shown, or use a token with a higher limit; the crawl resumes where it stopped"


class RetriesExhausted(GitHubError):
    default_hint = "GitHub kept failing; run the same command again later, the crawl resumes where it stopped"


class DatasetError(IssuesStsError):
    exit_code = 6


class NoDuplicates(DatasetError):
    default_hint = "crawl more repositories (duplicates are rare: about 1 issue in 20)"


class LeakageError(DatasetError):
    pass


class OutputDirError(DatasetError):
    default_hint = "choose an empty --out directory or one written by an earlier build"


class TokenizerError(IssuesStsError):
    exit_code = 2
    default_hint = "pass a Hugging Face tokenizer name or a local path; offline, use the default"


class HubError(IssuesStsError):
    exit_code = 7
    default_hint = "check --repo-id and that HF_TOKEN has write access"


class TrainingError(IssuesStsError):
    exit_code = 8
