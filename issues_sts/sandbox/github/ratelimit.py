"""Primary and secondary rate limits on the server's clock, per (identity, bucket).

A window opens with the first charged request and ends on a whole epoch second, so the
`x-ratelimit-reset` header is the exact moment the bucket refills. A request that arrives
while its bucket is exhausted or a retry-after window is open is a *violation*: a well-behaved
client never sends one, and the crawler's tests assert there are none.
"""

from __future__ import annotations

import math
import threading
from collections import Counter, deque
from dataclasses import dataclass

from issues_sts.sandbox.github.settings import FakeSettings


@dataclass
class Bucket:
    limit: int
    used: int = 0
    reset_at: float = 0.0  # end of the current window; 0 = no window open yet
    blocked_until: float = 0.0  # a secondary-limit window
    blocked_retry_after: bool = False  # whether that window was announced with retry-after
    told_at: float | None = None  # when the refusal that opened it reached the client
    attempts: int = 0  # charged-or-refused requests, drives `secondary_limit_every`

    def remaining(self) -> int:
        return max(0, self.limit - self.used)


@dataclass(frozen=True)
class Admission:
    """What the limiter decided for one request."""

    outcome: str  # "ok" (served and charged), "not_modified", "primary" or "secondary" (refused)
    violation: bool = False  # sent while the bucket was exhausted or a retry-after window open
    retry_after: int | None = None


class RateLimiter:
    """Thread-safe bucket accounting; the clock is passed in with every call."""

    def __init__(self, settings: FakeSettings) -> None:
        self.settings = settings
        self._buckets: dict[tuple[str, str], Bucket] = {}
        self._lock = threading.Lock()
        # per identity: (arrival, bucket, response seconds) of the requests of the last minute
        self._minute: dict[str, deque[tuple[float, str, float]]] = {}
        self.secondary_trips: Counter[str] = Counter()  # which secondary limit fired, how often

    def _bucket(self, identity: str, bucket: str, now: float) -> Bucket:
        key = (identity, bucket)
        state = self._buckets.get(key)
        if state is None:
            limit = self.settings.limit_for(bucket, authenticated=identity != "anonymous")
            state = self._buckets[key] = Bucket(limit=limit)
        if state.reset_at and now >= state.reset_at:
            state.used, state.reset_at = 0, 0.0
        return state

    def _window_end(self, now: float) -> float:
        return float(math.ceil(now + self.settings.reset_seconds))

    def admit(
        self,
        identity: str,
        bucket: str,
        now: float,
        cost: int = 1,
        *,
        not_modified: bool = False,
        seconds: float = 0.0,
        in_flight: int = 1,
    ) -> Admission:
        """Decide and account one request atomically (two requests in flight cannot both take
        the last unit of a bucket). `seconds`: how long its answer takes (the CPU-time limit
        counts it); `in_flight`: requests being answered now, this one included."""
        with self._lock:
            state = self._bucket(identity, bucket, now)
            if now < state.blocked_until:
                left = math.ceil(state.blocked_until - now) if state.blocked_retry_after else None
                # requests already on their way when the window opened could not know of it
                told = state.told_at is not None and now >= state.told_at
                return Admission("secondary", violation=told, retry_after=left)
            if state.remaining() <= 0:
                return Admission("primary", violation=True)
            if state.remaining() < cost:
                return Admission("primary")
            tripped = self._secondary(identity, bucket, now, seconds, in_flight)
            if tripped is not None:
                self.secondary_trips[tripped] += 1
                return self._open_secondary(state, now)
            if not_modified:
                return Admission("not_modified")  # conditional hits are free, as on GitHub
            state.attempts += 1
            every = self.settings.secondary_limit_every
            if every and state.attempts % every == 0:
                self.secondary_trips["every"] += 1
                return self._open_secondary(state, now)
            if not state.reset_at:
                state.reset_at = self._window_end(now)
            state.used += cost
            return Admission("ok")

    def _secondary(
        self, identity: str, bucket: str, now: float, seconds: float, in_flight: int
    ) -> str | None:
        """Which of GitHub's documented secondary limits this request breaks (None: none), and
        if none, count it in the minute it arrived in."""
        s = self.settings
        if s.max_concurrent is not None and in_flight > s.max_concurrent:
            return "concurrency"
        window = self._minute.setdefault(identity, deque())
        while window and window[0][0] <= now - s.minute_seconds:
            window.popleft()
        cap = (s.points_per_minute or {}).get(bucket)
        if cap is not None and sum(1 for _, b, _ in window if b == bucket) >= cap:
            return "points_per_minute"
        if (
            s.cpu_seconds_per_minute is not None
            and sum(x for _, _, x in window) + seconds > s.cpu_seconds_per_minute
        ):
            return "cpu_time"
        graphql_cpu = s.graphql_cpu_seconds_per_minute
        if (
            bucket == "graphql"
            and graphql_cpu is not None
            and (sum(x for _, b, x in window if b == "graphql") + seconds > graphql_cpu)
        ):
            return "graphql_cpu_time"
        window.append((now, bucket, seconds))
        return None

    def _open_secondary(self, state: Bucket, now: float) -> Admission:
        retry_after = self.settings.secondary_retry_after
        wait = retry_after if retry_after is not None else self.settings.secondary_min_wait
        state.blocked_until = now + wait
        state.blocked_retry_after = retry_after is not None
        state.told_at = None
        return Admission("secondary", retry_after=retry_after)

    def told(self, identity: str, bucket: str, now: float) -> None:
        """The refusal that opened `bucket`'s secondary window has been written to the client."""
        with self._lock:
            state = self._buckets.get((identity, bucket))
            if state is not None and state.told_at is None and now < state.blocked_until:
                state.told_at = now

    def window_open(self, identity: str, bucket: str, now: float) -> bool:
        """Would a request now be a violation? (For requests answered before admission.)"""
        with self._lock:
            state = self._bucket(identity, bucket, now)
            return now < state.blocked_until or state.remaining() <= 0

    def headers(self, identity: str, bucket: str, now: float) -> dict[str, str]:
        """The x-ratelimit-* headers GitHub puts on every answer."""
        with self._lock:
            state = self._bucket(identity, bucket, now)
            reset = state.reset_at or self._window_end(now)
            return {
                "x-ratelimit-limit": str(state.limit),
                "x-ratelimit-remaining": str(state.remaining()),
                "x-ratelimit-reset": str(int(reset)),
                "x-ratelimit-used": str(state.used),
                "x-ratelimit-resource": bucket,
            }

    def snapshot(self, identity: str, now: float) -> dict[str, dict[str, int]]:
        """The `GET /rate_limit` resources object for one identity."""
        buckets = ("core", "search", "graphql")
        resources = {}
        for name in buckets:
            h = self.headers(identity, name, now)
            resources[name] = {
                "limit": int(h["x-ratelimit-limit"]),
                "used": int(h["x-ratelimit-used"]),
                "remaining": int(h["x-ratelimit-remaining"]),
                "reset": int(h["x-ratelimit-reset"]),
            }
        return resources
