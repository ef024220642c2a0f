"""Primary and secondary rate limits on the server's clock, per (identity, bucket).

A window opens with the first charged request and ends on a whole epoch second, so the
`x-ratelimit-reset` header is the exact moment the bucket refills. A request that arrives
while its bucket is exhausted or a retry-after window is open is a *violation*: a well-behaved
client never sends one, and the crawler's tests assert there are none.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

from issues_sts.fakegh.settings import FakeSettings


@dataclass
class Bucket:
    limit: int
    used: int = 0
    reset_at: float = 0.0  # end of the current window; 0 = no window open yet
    blocked_until: float = 0.0  # a secondary-limit window
    blocked_retry_after: bool = False  # whether that window was announced with retry-after
    attempts: int = 0  # charged-or-refused requests, drives `secondary_limit_every`

    def remaining(self) -> int:
        return max(0, self.limit - self.used)


@dataclass(frozen=True)
class Verdict:
    """What the limiter says about a request before it is served."""

    blocked: str | None  # None, "primary" or "secondary"
    violation: bool
    retry_after: int | None = None


class RateLimiter:
    """Thread-safe bucket accounting; the clock is passed in with every call."""

    def __init__(self, settings: FakeSettings) -> None:
        self.settings = settings
        self._buckets: dict[tuple[str, str], Bucket] = {}
        self._lock = threading.Lock()

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

    def check(self, identity: str, bucket: str, now: float, cost: int = 1) -> Verdict:
        """Is the bucket open for a request costing `cost`? Records nothing."""
        with self._lock:
            state = self._bucket(identity, bucket, now)
            if now < state.blocked_until:
                left = math.ceil(state.blocked_until - now) if state.blocked_retry_after else None
                return Verdict("secondary", violation=True, retry_after=left)
            if state.remaining() <= 0:
                return Verdict("primary", violation=True)
            if state.remaining() < cost:
                return Verdict("primary", violation=False)
            return Verdict(None, violation=False)

    def secondary_due(self, identity: str, bucket: str, now: float) -> int | None | bool:
        """Count an attempt; on every Nth open a secondary window.

        Returns False when no secondary limit fires, else the retry-after seconds (or None
        when the answer carries no retry-after header).
        """
        every = self.settings.secondary_limit_every
        with self._lock:
            state = self._bucket(identity, bucket, now)
            state.attempts += 1
            if not every or state.attempts % every:
                return False
            retry_after = self.settings.secondary_retry_after
            wait = retry_after if retry_after is not None else self.settings.secondary_min_wait
            state.blocked_until = now + wait
            state.blocked_retry_after = retry_after is not None
            return retry_after

    def charge(self, identity: str, bucket: str, now: float, cost: int = 1) -> None:
        with self._lock:
            state = self._bucket(identity, bucket, now)
            if not state.reset_at:
                state.reset_at = self._window_end(now)
            state.used += cost

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
