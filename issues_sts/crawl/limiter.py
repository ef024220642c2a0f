"""The bucket gate: every request waits here until the pacing policy lets it go.

State per bucket (`core`, `graphql`, ...) lives behind one lock, so the worker threads share
what any answer taught us: a retry-after window opened by one request blocks the others too,
and nobody sends while one is open. The same gate keeps the last minute's requests within
GitHub's secondary limits (points per minute, CPU time estimated from our own response
times), so concurrency buys throughput up to those limits and never past them.
"""

from __future__ import annotations

import itertools
import threading
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from issues_sts.crawl import pacing
from issues_sts.crawl.pacing import BucketState, PacingConfig, Sent, Verdict
from issues_sts.errors import RateLimited

Clock = Callable[[], float]
Sleep = Callable[[float], None]


@dataclass
class LimiterStats:
    waits: int = 0
    waited_seconds: float = 0.0
    limit_hits: int = 0
    secondary_waits: int = 0  # pauses that kept a per-minute secondary limit


@dataclass
class Limiter:
    """Thread-safe pacing of requests per bucket, with an injected clock and sleep."""

    cfg: PacingConfig
    clock: Clock
    sleep: Sleep
    max_in_flight: int = 2
    stats: LimiterStats = field(default_factory=LimiterStats)
    on_wait: Callable[[str, float], None] | None = None

    def __post_init__(self) -> None:
        self._lock = threading.Condition()
        self._buckets: dict[str, BucketState] = {}
        self._in_flight: dict[str, int] = {}
        self._total_in_flight = 0
        self._sleepers = 0  # threads sleeping at the gate now
        self._asleep_since = 0.0  # since when one has been
        self._recent: deque[Sent] = deque()  # answered requests of the last minute
        self._flying: dict[int, Sent] = {}  # requests in flight, with an estimated duration
        self._estimate: dict[str, float] = {}  # decaying maximum of response seconds per bucket
        self._tickets = itertools.count(1)
        self.response_seconds: dict[str, float] = {}  # summed response time per bucket

    def state(self, bucket: str) -> BucketState:
        with self._lock:
            return self._buckets.get(bucket, BucketState())

    def acquire(self, bucket: str) -> int:
        """Block until one request may be sent on `bucket`, then count it as in flight; the
        ticket returned goes back to `release`."""
        while True:
            secondary = False
            with self._lock:
                now = self.clock()
                state = pacing.after_reset(self._buckets.get(bucket, BucketState()), now, self.cfg)
                self._buckets[bucket] = state
                if self._total_in_flight >= self.max_in_flight:
                    self._lock.wait(0.05)
                    continue
                delay = pacing.pace_delay(state, now, self._in_flight.get(bucket, 0), self.cfg)
                if delay <= 0:
                    while self._recent and self._recent[0].at <= now - self.cfg.minute:
                        self._recent.popleft()
                    guess = self._guess(bucket)
                    # before a bucket's first answer: one request alone, guessed as long as any
                    estimate = (
                        guess
                        if guess is not None
                        else max((s.seconds for s in self._recent), default=0.0)
                    )
                    delay = pacing.secondary_delay(
                        [*self._recent, *self._flying.values()], now, bucket, estimate, self.cfg
                    )
                    if guess is None and self._in_flight.get(bucket, 0):
                        delay = max(delay, 0.05)
                    secondary = True
                if delay <= 0:
                    self._in_flight[bucket] = self._in_flight.get(bucket, 0) + 1
                    self._total_in_flight += 1
                    ticket = next(self._tickets)
                    self._flying[ticket] = Sent(now, bucket, estimate)
                    return ticket
            if delay > self.cfg.max_pause:
                raise RateLimited(f"the {bucket} rate limit is closed for {delay:.0f} s more")
            if (
                secondary
            ):  # a per-minute budget frees up as the minute moves on: wait in small steps
                self.stats.secondary_waits += 1
                if self.on_wait is not None:  # the announcer says only long ones, once each
                    self.on_wait(f"{bucket} per-minute", delay)
                self._sleep(min(delay, self.cfg.minute / 60))  # a second on GitHub's clock
            else:
                self._wait(bucket, delay)

    def _guess(self, bucket: str) -> float | None:
        """How long the next answer on `bucket` may take (None before any answer)."""
        return self._estimate.get(bucket)

    def _wait(self, bucket: str, delay: float) -> None:
        with self._lock:
            self.stats.waits += 1
        if self.on_wait is not None:
            self.on_wait(bucket, delay)
        self._sleep(delay)

    def _sleep(self, seconds: float) -> None:
        """Sleep at the gate. `stats.waited_seconds` is the wall time during which at least one
        thread slept here, as measured: threads waiting for the same window count once, and
        a wait cut short (the crawl stopped) counts what it lasted."""
        with self._lock:
            if self._sleepers == 0:
                self._asleep_since = self.clock()
            self._sleepers += 1
        try:
            self.sleep(seconds)
        finally:
            with self._lock:
                self._sleepers -= 1
                if self._sleepers == 0:
                    self.stats.waited_seconds += max(0.0, self.clock() - self._asleep_since)

    def release(
        self,
        bucket: str,
        headers: Mapping[str, str] | None,
        ticket: int | None = None,
        seconds: float | None = None,
    ) -> None:
        """The request's answer (or failure) is in, after `seconds`: update the bucket from its
        headers and the minute's CPU-time account."""
        with self._lock:
            self._in_flight[bucket] = max(0, self._in_flight.get(bucket, 0) - 1)
            self._total_in_flight = max(0, self._total_in_flight - 1)
            if ticket is None:  # a caller without tickets: forget its bucket's oldest flight
                ticket = next((k for k, v in self._flying.items() if v.bucket == bucket), None)
            sent = self._flying.pop(ticket, None) if ticket is not None else None
            if sent is not None and seconds is not None:
                self._recent.append(Sent(sent.at, bucket, seconds))
                old = self._estimate.get(bucket)
                # a slowly decaying maximum: a big page after small ones must not be underestimated
                self._estimate[bucket] = seconds if old is None else max(seconds, 0.97 * old)
                self.response_seconds[bucket] = self.response_seconds.get(bucket, 0.0) + seconds
            if headers is not None:
                seen = pacing.parse_rate_limit(headers, default_resource=bucket)
                if seen is not None:
                    name = seen.resource or bucket
                    self._buckets[name] = pacing.merge_rate_limit(
                        self._buckets.get(name, BucketState()), seen
                    )
            self._lock.notify_all()

    def limit_hit(self, bucket: str, verdict: Verdict, headers: Mapping[str, str]) -> None:
        """A limit answer: pause the whole bucket as the policy says."""
        with self._lock:
            self.stats.limit_hits += 1
            state = self._buckets.get(bucket, BucketState())
            self._buckets[bucket] = pacing.pause_until(
                verdict, headers, state, self.clock(), self.cfg
            )

    def success(self, bucket: str) -> None:
        """A normal answer ends a streak of secondary limits."""
        with self._lock:
            state = self._buckets.get(bucket)
            if state is not None and state.secondary_hits:
                self._buckets[bucket] = BucketState(
                    state.limit, state.remaining, state.reset, state.paused_until, 0
                )

    def remaining(self, bucket: str = "core") -> int | None:
        with self._lock:
            return self._buckets.get(bucket, BucketState()).remaining
