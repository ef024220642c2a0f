"""How a fake GitHub behaves: limits, faults, pagination caps. Defaults are GitHub's."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

DEFAULT_LIMITS: Mapping[str, int] = MappingProxyType({"core": 5000, "graphql": 5000, "search": 30})
UNAUTHENTICATED_LIMIT = 60
FAULT_KINDS = ("502", "503", "drop", "truncate", "short_body", "slow")


@dataclass(frozen=True)
class FakeSettings:
    """Knobs of the fake server.

    tokens: accepted tokens; a wrong one answers 401, none gets `unauthenticated_limit`/window.
    rate_limit: requests (GraphQL: points) per window per bucket; missing buckets use GitHub's.
    reset_seconds: window length; windows end on whole epoch seconds so `x-ratelimit-reset` is
        exact.
    exhausted_status: 403 (GitHub's usual) or 429.
    secondary_limit_every: every Nth counted request of a bucket answers a secondary-limit 403.
    secondary_retry_after: its `retry-after` (whole seconds); None sends none, and then the
        bucket stays closed for `secondary_min_wait` seconds (GitHub says "a few minutes").
    fault_rate/fault_seed/fault_kinds/slow_seconds: injected faults, decided by a seeded RNG.
    outage_seconds: every request in the first N seconds after the server starts answers 500.
    per_page_default/per_page_max: GitHub's 30 and 100.
    page_cap: `page=N` beyond it answers 422 and Link stops there (None: no cap).
    comments_cap: repo-wide comment listings end after this many items (no rel=next).
    cursor_pagination: Link next URLs carry `after=<cursor>` instead of `page=N` (no rel=last).
    graphql: serve POST /graphql (False: 404). graphql_schema_check: also validate every query
        against GitHub's real SDL when `schema_path` (or ../shared) has it.
    enterprise: serve under /api/v3 with GraphQL at /api/graphql, like GitHub Enterprise Server.
    graphql_full_ids: False answers every `fullDatabaseId` with null (a server or proxy that
        does not fill it: the crawl must notice the comments it cannot key).
    issue_comments: False answers `GET /issues/{n}/comments` with 404 (a proxy that blocks it),
        so a thread GraphQL could not give whole cannot be read again: a lossy crawl.

    GitHub's secondary limits (all off by default, so small tests stay fast; `github_like`
    turns them on with GitHub's documented values, optionally on a compressed clock):
    latency_base/latency_per_kb: every answer takes base + per_kb x its size in KiB (GitHub's
        latency grows with the page: about 0.5-2 s for 100 long issues);
    minute_seconds: the length of the "minute" the per-minute limits count in;
    points_per_minute: secondary points per bucket per minute (REST 900, GraphQL 2,000; one
        point per GET or GraphQL query without mutation);
    cpu_seconds_per_minute/graphql_cpu_seconds_per_minute: response time allowed per minute
        (90 and 60: GitHub estimates CPU time from response time);
    max_concurrent: requests being answered at once (100);
    query_timeout: a GraphQL query whose answer would take longer fails with 502 after this
        long and is still charged, plus one point (GitHub: 10 s);
    resource_node_limit: a query asking for more nodes than this (the sum over connections of
        parents x first) is refused with RESOURCE_LIMITS_EXCEEDED and charged one point.
    """

    tokens: frozenset[str] = frozenset({"test-token"})
    rate_limit: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_LIMITS))
    unauthenticated_limit: int = UNAUTHENTICATED_LIMIT
    reset_seconds: float = 3600.0
    exhausted_status: int = 403
    secondary_limit_every: int | None = None
    secondary_retry_after: int | None = 60
    secondary_min_wait: float = 60.0
    fault_rate: float = 0.0
    fault_seed: int = 0
    fault_kinds: tuple[str, ...] = FAULT_KINDS
    slow_seconds: float = 0.5
    outage_seconds: float = 0.0
    per_page_default: int = 30
    per_page_max: int = 100
    page_cap: int | None = None
    comments_cap: int | None = 30_000
    cursor_pagination: bool = False
    graphql: bool = True
    graphql_schema_check: bool = False
    schema_path: str | None = None
    enterprise: bool = False
    graphql_full_ids: bool = True
    issue_comments: bool = True
    latency_base: float = 0.0
    latency_per_kb: float = 0.0
    minute_seconds: float = 60.0
    points_per_minute: Mapping[str, int] | None = None
    cpu_seconds_per_minute: float | None = None
    graphql_cpu_seconds_per_minute: float | None = None
    max_concurrent: int | None = None
    query_timeout: float | None = None
    resource_node_limit: int | None = None

    def latency(self, size: int) -> float:
        """Seconds GitHub takes to answer with `size` bytes of body."""
        return self.latency_base + self.latency_per_kb * size / 1024

    def __post_init__(self) -> None:
        if isinstance(self.tokens, (set, list, tuple)):
            object.__setattr__(self, "tokens", frozenset(self.tokens))
        if isinstance(self.tokens, str):
            object.__setattr__(self, "tokens", frozenset({self.tokens}))
        unknown = set(self.fault_kinds) - set(FAULT_KINDS)
        if unknown:
            raise ValueError(f"unknown fault kinds {sorted(unknown)}; choose from {FAULT_KINDS}")
        if not 0.0 <= self.fault_rate <= 1.0:
            raise ValueError("fault_rate must be within [0, 1]")
        if self.reset_seconds <= 0:
            raise ValueError("reset_seconds must be positive")
        if self.exhausted_status not in (403, 429):
            raise ValueError("exhausted_status must be 403 or 429")

    def limit_for(self, bucket: str, authenticated: bool) -> int:
        if not authenticated and bucket == "core":
            return self.unauthenticated_limit
        return int(self.rate_limit.get(bucket, DEFAULT_LIMITS.get(bucket, 5000)))


def github_like(scale: float = 1.0, **overrides: object) -> FakeSettings:
    """GitHub's documented limits and a size-dependent latency, on a clock `scale` times faster
    (every window, wait and latency divided by `scale`), so a benchmark finishes in minutes
    while every ratio between limits, latencies and windows stays GitHub's.

    Latency: 0.25 s + 2.5 ms per KiB (a 100-issue page of ~300 KiB: ~1 s).
    """
    values: dict[str, object] = {
        "reset_seconds": 3600.0 / scale,
        "minute_seconds": 60.0 / scale,
        "latency_base": 0.25 / scale,
        "latency_per_kb": 0.0025 / scale,
        "points_per_minute": {"core": 900, "graphql": 2000},
        "cpu_seconds_per_minute": 90.0 / scale,
        "graphql_cpu_seconds_per_minute": 60.0 / scale,
        "max_concurrent": 100,
        "query_timeout": 10.0 / scale,
        "resource_node_limit": 8000,
        "secondary_retry_after": max(1, round(60 / scale)),
        "secondary_min_wait": 60.0 / scale,
    }
    values.update(overrides)
    return FakeSettings(**values)  # type: ignore[arg-type]
