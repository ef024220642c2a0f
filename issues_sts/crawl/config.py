"""What a crawl is asked to do (`CrawlConfig`) and what it did (`CrawlSummary`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from issues_sts.config import Option
from issues_sts.crawl.pacing import PacingConfig
from issues_sts.repos import parse_repo_name

GITHUB_API = "https://api.github.com"


class CrawlConfig(BaseModel):
    """One crawl, built once at the CLI boundary (or by the demo) and never changed.

    repos: owner/name of every repository, in order.
    token: a GitHub token (kept secret: never printed, logged or stored); None crawls
        anonymously with GitHub's 60 requests per hour.
    api_url: https://api.github.com, or https://HOST/api/v3 for GitHub Enterprise Server.
    store: directory of the crawl store (resumable; a second crawl is incremental).
    graphql: ask GraphQL for the canonical issue of duplicate events (falls back to REST).
    max_requests: stop cleanly after this many counted requests (None: no budget).
    max_candidates: duplicate candidates per repository whose timelines are fetched.
    max_in_flight: requests in flight at once (GitHub allows 100). What really bounds them is
        the limiter's per-minute gate (secondary points, CPU time estimated from response
        times): a few in flight make the crawl limit-bound instead of latency-bound, more buy
        nothing.
    repos_at_once: repositories synced at the same time. One repository alone keeps about
        one request in flight (its lists page one after another, its phases wait on each
        other), so a crawl of one at a time waits on GitHub's latency instead of its limits;
        a few at once keep the limiter's gate busy.
    max_gap_checks: numbers the duplicate evidence names but the lists did not return
        (transferred, deleted) asked per repository; unnamed gaps are never asked.
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True, extra="forbid")

    repos: tuple[str, ...]
    token: SecretStr | None = None
    # `issues-sts crawl` declares its options from the fields marked with them (cli/options.py)
    api_url: Annotated[
        str, Option("--api-url", help="REST API root; GitHub Enterprise: https://HOST/api/v3.")
    ] = GITHUB_API
    store: Annotated[Path, Option("--store", help="Crawl store directory (created if absent).")] = (
        Path("data/store")
    )
    graphql: bool = True
    max_requests: Annotated[
        int | None, Option("--max-requests", help="Stop cleanly after N counted requests.")
    ] = Field(default=None, ge=1)
    per_page: Annotated[
        int,
        Option("--per-page", help="Items per page; GitHub's maximum (100) is the cheapest."),
    ] = Field(default=100, ge=1, le=100)
    max_in_flight: Annotated[
        int,
        Option(
            "--in-flight",
            help="Requests in flight at most; the per-minute secondary limits (points, CPU "
            "time) pace them.",
        ),
    ] = Field(default=4, ge=1, le=100)
    repos_at_once: Annotated[
        int,
        Option(
            "--repos-at-once",
            help="Repositories synced at the same time (one alone waits on GitHub's latency; "
            "a few keep the rate limits busy).",
        ),
    ] = Field(default=4, ge=1, le=100)
    max_candidates: Annotated[
        int,
        Option(
            "--max-candidates",
            help="Duplicate candidates per repository whose timelines are fetched.",
        ),
    ] = Field(default=5000, ge=0)
    max_gap_checks: int = Field(default=5000, ge=0)
    graphql_batch: int = Field(default=50, ge=1, le=100)
    timeout: Annotated[
        float, Option("--timeout", help="Seconds to wait for one answer before retrying it.")
    ] = Field(default=30.0, gt=0)
    pacing: PacingConfig = PacingConfig()
    # where the user named the repositories, for messages ("given to --repo", "in FILE")
    repos_named_in: str = "in repos.yaml"

    @field_validator("repos")
    @classmethod
    def _valid_repos(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("no repositories to crawl")
        names = tuple(parse_repo_name(v) for v in value)
        seen: set[str] = set()
        for name in names:
            if name.lower() in seen:  # crawled twice at once, each spending the budget
                raise ValueError(f"{name} is given twice (GitHub's names ignore case)")
            seen.add(name.lower())
        return names

    @field_validator("api_url")
    @classmethod
    def _valid_api_url(cls, value: str) -> str:
        parts = urlsplit(value)
        if "@" in parts.netloc or parts.query or parts.fragment:
            # a token in the URL (user:token@host, ?access_token=) would be saved with the
            # store's crawl-config.json and printed in errors: the value is not repeated here
            raise ValueError(
                "the API URL must not carry a user, a password or a query: pass the token with "
                "--token or GITHUB_TOKEN, and the URL as https://HOST[/api/v3]"
            )
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(
                f"{value!r} is not an http(s) URL with a host, e.g. https://api.github.com"
            )
        return value.rstrip("/")

    def token_value(self) -> str | None:
        return self.token.get_secret_value() if self.token is not None else None

    def public_dict(self) -> dict[str, Any]:
        """The effective configuration as saved next to the store: the token is left out."""
        data = self.model_dump(mode="json", exclude={"token", "pacing", "repos_named_in"})
        data["token"] = "set" if self.token is not None else None
        data["pacing"] = {k: getattr(self.pacing, k) for k in self.pacing.__dataclass_fields__}
        return data


@dataclass
class RepoSummary:
    """What one repository's sync did (counts are of this run, not of the store)."""

    repo: str
    status: str = "pending"  # ok | lossy | missing | stopped | failed
    message: str = ""
    pages: int = 0
    issues: int = 0
    comments: int = 0
    events: int = 0
    candidates: int = 0
    not_modified: int = 0
    redirects: int = 0
    tombstones: int = 0
    requests: int = 0
    points: int = (
        0  # GraphQL points by GitHub's formula (requests the query needs / 100, at least 1)
    )
    thread_points: int = 0  # of them, for issue threads (the rest: duplicate candidates)
    seconds: float = 0.0
    gaps: int = 0  # threads this run found short (then asked REST for)
    lost_threads: int = 0  # threads still short at the end: their comments were not all stored
    lost_comments: int = 0
    short_counted: int = 0  # issues whose count exceeds what GitHub lists (deleted, hidden)


@dataclass
class CrawlSummary:
    """The result of `run_crawl`: per repository, plus request accounting for the whole run."""

    repos: list[RepoSummary] = field(default_factory=list)
    requests: int = 0  # counted against the rate limit
    graphql_requests: int = 0
    not_modified: int = 0  # 304s: free
    sent: int = 0
    retries: int = 0
    waited_seconds: float = 0.0
    seconds: float = 0.0
    # response time as the crawler measured it, per bucket: what its per-minute CPU-time gate
    # counts (GitHub's own estimate is server-side, so this is the conservative side of it)
    response_seconds: dict[str, float] = field(default_factory=dict)
    # why the run ended early (budget, "interrupted" by Ctrl-C, "terminated" by SIGTERM), None
    # when complete; pages committed before are kept either way
    stopped: str | None = None
    graphql_used: bool = False
    graphql_shrinks: int = 0  # GraphQL batches made smaller (RESOURCE_LIMITS_EXCEEDED or slow)
    plan_line: str | None = None  # the --plan projection against what this crawl spent

    @property
    def graphql_points(self) -> int:
        return sum(r.points for r in self.repos)

    @property
    def interrupted(self) -> bool:
        return self.stopped in ("interrupted", "terminated")

    @property
    def pages(self) -> int:
        return sum(r.pages for r in self.repos)

    @property
    def ok(self) -> bool:
        return self.stopped is None and all(r.status in ("ok", "missing") for r in self.repos)

    @property
    def lossy(self) -> list[RepoSummary]:
        """Repositories whose sync ended but could not store every comment GitHub listed."""
        return [r for r in self.repos if r.status == "lossy"]
