"""The line that says a rate-limit wait has started, when it ends, why, and what would cure it.

The limiter calls the announcer (`Limiter.on_wait`) whenever a request must wait at a bucket's
gate; the announcer says so once per wait, to the `Reporter` and to the `issues_sts.crawl`
logger (a `wait` event).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from issues_sts.crawl.pacing import BucketState
from issues_sts.crawl.token import HOW_TO_PASS
from issues_sts.report import Reporter

log = logging.getLogger("issues_sts.crawl")


class WaitAnnouncer:
    """Says once, as a line, when a rate-limit wait starts and when it will end, with the cure
    when there is one (no token: 60 requests an hour). A wait of `LONG_WAIT` or more also
    says why and what would shorten it: it is where a crawl in a log looks hung."""

    LONG_WAIT = 180.0

    def __init__(
        self,
        reporter: Reporter,
        clock: Callable[[], float],
        at_least: float,
        *,
        anonymous: bool,
        state: Callable[[str], BucketState] | None = None,
    ) -> None:
        self.reporter = reporter
        self.clock = clock
        self.at_least = at_least
        self.anonymous = anonymous
        self.state = state
        self._announced: dict[str, float] = {}

    def __call__(self, bucket: str, seconds: float) -> None:
        until = self.clock() + seconds
        if seconds < self.at_least or abs(self._announced.get(bucket, 0.0) - until) < 5:
            return
        self._announced[bucket] = until
        when = time.strftime("%H:%M:%S UTC", time.gmtime(until))
        text = f"waiting {seconds:.0f} s for the {bucket} rate limit, until {when}"
        if seconds >= self.LONG_WAIT:
            text = (
                f"waiting {seconds / 60:.0f} min for the {bucket} rate limit, until {when}: "
                f"{self._why(bucket)}; {self._cure()}"
            )
        elif self.anonymous:
            text += f"; no token: GitHub allows 60 requests an hour, {HOW_TO_PASS}"
        self.reporter.notice(text)
        log.info(
            "%s",
            text,
            extra={"event": "wait", "data": {"bucket": bucket, "seconds": round(seconds, 1)}},
        )

    def _why(self, bucket: str) -> str:
        if bucket.endswith("per-minute"):
            return "GitHub's per-minute secondary limits (points and response time) are reached"
        state = self.state(bucket) if self.state is not None else None
        if state is None:
            return f"the {bucket} rate limit is reached"
        limit = f"{state.limit:,} " if state.limit else ""
        # a wait that no pause of GitHub's explains is the crawler keeping its last requests
        # (those in flight count): this hour's are spent, whatever `remaining` still says
        if state.remaining == 0 or self.clock() >= state.paused_until:
            return f"this hour's {limit}{bucket} requests are spent"
        if state.secondary_hits:
            return "GitHub asked the crawler to slow down (a secondary rate limit)"
        return "GitHub asked the crawler to wait (a Retry-After answer)"

    def _cure(self) -> str:
        if self.anonymous:
            return (
                "no token: GitHub allows 60 requests an hour; a token allows 5,000: "
                f"{HOW_TO_PASS}, then run the same command (it resumes)"
            )
        return (
            "nothing but time shortens it for this token; the crawl goes on by itself, or stop "
            "it now (Ctrl-C) and run the same command later: it resumes where it stopped"
        )
