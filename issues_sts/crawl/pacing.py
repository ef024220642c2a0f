"""Rate-limit and retry policy: small pure functions, one place.

GitHub's rules this module encodes (docs: "Rate limits for the REST API", "Best practices"):

* every answer carries ``x-ratelimit-{limit,remaining,used,reset,resource}`` for the bucket
  (``core``, ``graphql``, ``search``...) the request was charged to; we pace *ahead of time* so
  that a bucket is never asked for more than it has left (the primary limit is never hit);
* a 403/429 with ``retry-after`` means: wait exactly that long, and the wait holds for the
  whole bucket, not just the request that got it;
* a secondary-limit 403 without ``retry-after`` means: wait at least a minute, then back off
  exponentially while it keeps happening;
* 5xx, timeouts, dropped connections and truncated bodies are transient: retry with backoff.

Nothing here sleeps or reads a clock; `issues_sts.crawl.limiter` and `issues_sts.crawl.client`
apply these decisions with an injected clock and sleep.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import Enum

import httpx


@dataclass(frozen=True)
class PacingConfig:
    """Knobs of the policy; defaults are right for github.com.

    reset_margin: extra seconds after `x-ratelimit-reset` before a bucket is used again
        (covers clock skew between us and GitHub).
    reserve: requests per bucket left untouched (room for a human's own calls).
    secondary_base: first wait after a secondary limit without retry-after (GitHub: >= 60 s).
    backoff_base/backoff_cap: exponential backoff of transient faults.
    max_attempts: tries of one request (transient faults and limit hits together).
    max_total_wait: cap on the summed backoff of one request before giving up.
    max_pause: longest bucket pause we accept before raising RateLimited instead.
    minute: the window GitHub's per-minute secondary limits count in (compressed in tests).
    rest_points_per_minute/graphql_points_per_minute: GitHub's 900 and 2,000 secondary points
        a minute (one per GET, one per GraphQL query without mutation).
    cpu_per_minute/graphql_cpu_per_minute: GitHub's 90 s (60 s of them GraphQL) of CPU time per
        minute, which it estimates from response time: we sum our own response times.
    secondary_margin: the share of each secondary limit we allow ourselves (answers of requests
        still in flight are only estimated).
    slow_query: a GraphQL answer slower than this halves the next batches (GitHub stops a
        query at 10 s and charges it anyway).
    unreached_attempts: tries of a request while the server has never answered at all (a
        wrong --api-url, a closed port, DNS failure): fail within seconds, not minutes.
    announce_after: retry waits at least this long are announced to the user.
    """

    reset_margin: float = 1.0
    reserve: int = 0
    secondary_base: float = 60.0
    secondary_cap: float = 900.0
    backoff_base: float = 1.0
    backoff_cap: float = 60.0
    max_attempts: int = 10
    max_total_wait: float = 300.0
    max_pause: float = 3900.0
    minute: float = 60.0
    rest_points_per_minute: int = 900
    graphql_points_per_minute: int = 2000
    cpu_per_minute: float = 90.0
    graphql_cpu_per_minute: float = 60.0
    secondary_margin: float = 0.9
    unreached_attempts: int = 3
    announce_after: float = 2.0
    slow_query: float = 5.0

    def scaled(self, scale: float) -> PacingConfig:
        """The same policy on a clock `scale` times faster (benchmarks against a compressed
        fake GitHub): every window, wait and time budget divided by `scale`."""
        return replace(
            self,
            minute=self.minute / scale,
            cpu_per_minute=self.cpu_per_minute / scale,
            graphql_cpu_per_minute=self.graphql_cpu_per_minute / scale,
            secondary_base=self.secondary_base / scale,
            secondary_cap=self.secondary_cap / scale,
            backoff_base=self.backoff_base / scale,
            backoff_cap=self.backoff_cap / scale,
            max_total_wait=self.max_total_wait / scale,
            max_pause=self.max_pause / scale,
            reset_margin=self.reset_margin / scale,
            announce_after=self.announce_after / scale,
            slow_query=self.slow_query / scale,
        )


@dataclass(frozen=True)
class RateLimit:
    """One bucket's state as an answer's headers describe it."""

    resource: str
    limit: int
    remaining: int
    used: int
    reset: float  # epoch seconds when the bucket refills


def _header(headers: Mapping[str, str], name: str) -> str | None:
    value = headers.get(name)
    if value is None:  # plain dicts are case-sensitive; httpx.Headers are not
        value = next((v for k, v in headers.items() if k.lower() == name), None)
    return value


def parse_rate_limit(
    headers: Mapping[str, str], default_resource: str = "core"
) -> RateLimit | None:
    """The bucket state in `headers`, or None when they carry no (valid) rate-limit headers."""
    try:
        limit = int(_header(headers, "x-ratelimit-limit") or "")
        remaining = int(_header(headers, "x-ratelimit-remaining") or "")
        reset = float(_header(headers, "x-ratelimit-reset") or "")
    except ValueError:
        return None
    used_text = _header(headers, "x-ratelimit-used")
    used = int(used_text) if used_text and used_text.isdigit() else max(0, limit - remaining)
    resource = _header(headers, "x-ratelimit-resource") or default_resource
    return RateLimit(resource, limit, remaining, used, reset)


@dataclass(frozen=True)
class BucketState:
    """What we believe about one bucket: the last known limits plus our own reservations."""

    limit: int | None = None
    remaining: int | None = None  # as last reported (None: unknown, e.g. before any answer)
    reset: float | None = None
    paused_until: float = 0.0  # a retry-after / secondary-limit window: send nothing before it
    secondary_hits: int = 0  # consecutive secondary limits without retry-after


def merge_rate_limit(state: BucketState, seen: RateLimit) -> BucketState:
    """Fold one answer's headers into the bucket state.

    Answers of concurrent requests arrive out of order, so within one window the lowest
    `remaining` wins; a later `reset` means a new window whose figures replace the old ones.
    """
    if state.reset is None or seen.reset > state.reset or state.remaining is None:
        return replace(state, limit=seen.limit, remaining=seen.remaining, reset=seen.reset)
    if seen.reset < state.reset:  # a straggler from a window already over
        return state
    return replace(state, limit=seen.limit, remaining=min(state.remaining, seen.remaining))


def pace_delay(state: BucketState, now: float, in_flight: int, cfg: PacingConfig) -> float:
    """Seconds to wait before sending one more request on this bucket (0: send now).

    `in_flight` requests were sent but not answered: they may already be charged, so they
    count against `remaining`. When the bucket would be exhausted we wait for its reset
    instead of spending the last request and being refused.
    """
    if now < state.paused_until:
        return state.paused_until - now
    if state.remaining is None or state.reset is None:
        return 0.0
    if now >= state.reset + cfg.reset_margin:
        return 0.0  # the window rolled over: the bucket is full again
    if state.remaining - in_flight > cfg.reserve:
        return 0.0
    return state.reset + cfg.reset_margin - now


@dataclass(frozen=True)
class Sent:
    """One request of the last minute: when it left, on which bucket, how long its answer took
    (an estimate while it is in flight)."""

    at: float
    bucket: str
    seconds: float


def secondary_delay(
    recent: list[Sent], now: float, bucket: str, estimate: float, cfg: PacingConfig
) -> float:
    """Seconds to wait before one more request on `bucket` keeps within GitHub's per-minute
    secondary limits: points (900 REST, 2,000 GraphQL) and CPU time (90 s, 60 s GraphQL),
    counting `recent` (sent within the last `cfg.minute`) and `estimate` for this request."""
    window = [s for s in recent if s.at > now - cfg.minute]
    cap = cfg.graphql_points_per_minute if bucket == "graphql" else cfg.rest_points_per_minute
    waits = [0.0]
    mine = [s for s in window if s.bucket == bucket]
    allowed = int(cap * cfg.secondary_margin)
    if len(mine) >= allowed:
        waits.append(mine[len(mine) - allowed].at + cfg.minute - now)
    budgets = [(window, cfg.cpu_per_minute)]
    if bucket == "graphql":
        budgets.append((mine, cfg.graphql_cpu_per_minute))
    for sent, budget in budgets:
        over = sum(s.seconds for s in sent) + estimate - budget * cfg.secondary_margin
        for s in sorted(sent, key=lambda x: x.at):  # wait until enough of the minute has passed
            if over <= 0:
                break
            over -= s.seconds
            waits.append(s.at + cfg.minute - now)
    return max(0.0, max(waits))


def after_reset(state: BucketState, now: float, cfg: PacingConfig) -> BucketState:
    """Once a window is over we may assume a full bucket until the next answer says otherwise."""
    if (
        state.reset is not None
        and now >= state.reset + cfg.reset_margin
        and state.limit is not None
    ):
        return replace(state, remaining=state.limit, reset=None)
    return state


def retry_after_seconds(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """The `retry-after` of an answer in seconds (delta-seconds or an HTTP date), else None."""
    value = _header(headers, "retry-after")
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        from email.utils import parsedate_to_datetime

        when = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, when - now) if now is not None else None


class Verdict(str, Enum):
    """How to treat one answer."""

    OK = "ok"
    NOT_MODIFIED = "not_modified"
    BAD_CREDENTIALS = "bad_credentials"
    PRIMARY_LIMIT = "primary_limit"  # the bucket is empty: wait for x-ratelimit-reset
    RETRY_AFTER = "retry_after"  # a window announced with retry-after
    SECONDARY_LIMIT = "secondary_limit"  # secondary limit without retry-after
    TRANSIENT = "transient"  # 5xx: retry with backoff
    CLIENT_ERROR = "client_error"  # 4xx the caller must handle (404, 410, 422, ...)


def classify(status: int, headers: Mapping[str, str], message: str = "") -> Verdict:
    """Decide what an answer means from its status, headers and `message` field."""
    if status == 304:
        return Verdict.NOT_MODIFIED
    if status < 400 or status in (301, 302, 307, 308):
        return Verdict.OK
    if status == 401:
        return Verdict.BAD_CREDENTIALS
    if status in (403, 429):
        if retry_after_seconds(headers) is not None:
            return Verdict.RETRY_AFTER
        if _header(headers, "x-ratelimit-remaining") == "0":
            return Verdict.PRIMARY_LIMIT
        lowered = message.lower()
        if status == 429 or "secondary rate limit" in lowered or "abuse" in lowered:
            return Verdict.SECONDARY_LIMIT
        if "rate limit" in lowered:
            return Verdict.PRIMARY_LIMIT
        return Verdict.CLIENT_ERROR
    if status >= 500:
        return Verdict.TRANSIENT
    return Verdict.CLIENT_ERROR


def graphql_rate_limited(data: object) -> bool:
    """GitHub answers an exhausted GraphQL bucket with 200 and an error of type RATE_LIMITED."""
    errors = data.get("errors") if isinstance(data, dict) else None
    return any(isinstance(e, dict) and e.get("type") == "RATE_LIMITED" for e in errors or [])


def pause_until(
    verdict: Verdict, headers: Mapping[str, str], state: BucketState, now: float, cfg: PacingConfig
) -> BucketState:
    """The bucket state after a limit answer: when the whole bucket may be used again."""
    if verdict is Verdict.RETRY_AFTER:
        wait = retry_after_seconds(headers, now) or 0.0
        return replace(state, paused_until=max(state.paused_until, now + wait))
    if verdict is Verdict.SECONDARY_LIMIT:
        wait = secondary_backoff(state.secondary_hits + 1, cfg)
        return replace(
            state,
            paused_until=max(state.paused_until, now + wait),
            secondary_hits=state.secondary_hits + 1,
        )
    if verdict is Verdict.PRIMARY_LIMIT:
        seen = parse_rate_limit(headers)
        # a reset already past by our clock means skew: then wait a minute, as GitHub advises
        reset = seen.reset if seen is not None and seen.reset > now else now + cfg.secondary_base
        return replace(
            state,
            remaining=0,
            reset=reset,
            paused_until=max(state.paused_until, reset + cfg.reset_margin),
        )
    return state


def secondary_backoff(hits: int, cfg: PacingConfig) -> float:
    """Wait after the `hits`-th consecutive secondary limit without retry-after: >= base,
    doubling."""
    return min(cfg.secondary_cap, cfg.secondary_base * 2 ** max(0, hits - 1))


def backoff_seconds(attempt: int, cfg: PacingConfig) -> float:
    """Exponential backoff before retry number `attempt` (1-based) of a transient fault."""
    return min(cfg.backoff_cap, cfg.backoff_base * 2 ** max(0, attempt - 1))


class TransientError(Exception):
    """A 5xx or a body cut short: worth retrying."""


class LimitHit(Exception):
    """A rate-limit answer; the bucket is already paused, so the retry waits at the gate."""


# Transport errors that no retry can cure: the URL or the request itself is wrong.
_PERMANENT = (httpx.UnsupportedProtocol, httpx.LocalProtocolError, httpx.ProxyError)


def is_retryable(exc: BaseException) -> bool:
    """Transport faults, timeouts, 5xx, truncated bodies and rate-limit answers are retried;
    a malformed URL or request is not."""
    if isinstance(exc, _PERMANENT):
        return False
    return isinstance(exc, (TransientError, LimitHit, httpx.TransportError))


def unreachable(exc: BaseException | None) -> bool:
    """The server could not be reached at all (refused, unresolvable, no answer, not HTTP)."""
    return isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError))


def retry_wait(exc: BaseException | None, attempt: int, cfg: PacingConfig) -> float:
    """Seconds tenacity sleeps before the next attempt. Limit hits wait at the bucket gate
    (which every request passes), so they add nothing here."""
    if isinstance(exc, LimitHit):
        return 0.0
    return backoff_seconds(attempt, cfg)


def should_stop(
    attempt: int, waited: float, next_wait: float, cfg: PacingConfig, *, reached: bool = True
) -> bool:
    """Give up when the attempts or the summed backoff would pass their caps. Until the
    server has answered once (`reached`), a few quick attempts decide."""
    if not reached and attempt >= cfg.unreached_attempts:
        return True
    return attempt >= cfg.max_attempts or waited + next_wait > cfg.max_total_wait


def implied_seconds(requests: int, limit: int, window: float) -> float:
    """Least wall time a limit of `limit` requests per `window` seconds allows for `requests`,
    starting on a fresh window: every full window but the last must run to its end."""
    if requests <= 0 or limit <= 0:
        return 0.0
    return max(0, math.ceil(requests / limit) - 1) * window
