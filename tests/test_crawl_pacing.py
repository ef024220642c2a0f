"""Table-driven tests of the pacing policy and the bucket gate (fake clock, no real sleeping)."""

from __future__ import annotations

import httpx
import pytest

from issues_sts.crawl import pacing
from issues_sts.crawl.limiter import Limiter
from issues_sts.crawl.pacing import BucketState, PacingConfig, RateLimit, Verdict
from issues_sts.errors import RateLimited

CFG = PacingConfig(reset_margin=0.5, secondary_base=60.0, backoff_base=1.0, backoff_cap=8.0)


def rl_headers(
    remaining: int, reset: int, limit: int = 5000, resource: str = "core"
) -> dict[str, str]:
    return {
        "X-RateLimit-Limit": str(limit),
        "X-RateLimit-Remaining": str(remaining),
        "X-RateLimit-Reset": str(reset),
        "X-RateLimit-Used": str(limit - remaining),
        "X-RateLimit-Resource": resource,
    }


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        (rl_headers(4640, 1641832874), RateLimit("core", 5000, 4640, 360, 1641832874.0)),
        (
            rl_headers(4979, 1726598744, resource="graphql"),
            RateLimit("graphql", 5000, 4979, 21, 1726598744.0),
        ),
        (
            {"x-ratelimit-limit": "60", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "100"},
            RateLimit("core", 60, 0, 60, 100.0),
        ),
        ({"x-ratelimit-limit": "60"}, None),
        ({"x-ratelimit-limit": "x", "x-ratelimit-remaining": "1", "x-ratelimit-reset": "1"}, None),
        ({}, None),
    ],
)
def test_parse_rate_limit(headers: dict[str, str], expected: RateLimit | None) -> None:
    assert pacing.parse_rate_limit(headers) == expected
    assert pacing.parse_rate_limit(httpx.Headers(headers)) == expected


@pytest.mark.parametrize(
    ("state", "now", "in_flight", "expected"),
    [
        (BucketState(), 0.0, 0, 0.0),  # nothing known yet
        (BucketState(limit=10, remaining=5, reset=100.0), 50.0, 0, 0.0),
        (BucketState(limit=10, remaining=2, reset=100.0), 50.0, 1, 0.0),
        (BucketState(limit=10, remaining=2, reset=100.0), 50.0, 2, 50.5),  # both left are in flight
        (BucketState(limit=10, remaining=0, reset=100.0), 50.0, 0, 50.5),
        (BucketState(limit=10, remaining=0, reset=100.0), 100.4, 0, 0.1),  # margin after reset
        (BucketState(limit=10, remaining=0, reset=100.0), 100.5, 0, 0.0),  # window over
        (
            BucketState(limit=10, remaining=9, reset=100.0, paused_until=70.0),
            50.0,
            0,
            20.0,
        ),  # retry-after
        (BucketState(limit=10, remaining=0, reset=100.0, paused_until=170.0), 150.0, 0, 20.0),
    ],
)
def test_pace_delay(state: BucketState, now: float, in_flight: int, expected: float) -> None:
    assert pacing.pace_delay(state, now, in_flight, CFG) == pytest.approx(expected)


def test_pace_delay_keeps_reserve() -> None:
    cfg = PacingConfig(reset_margin=0.0, reserve=3)
    assert pacing.pace_delay(BucketState(10, 4, 100.0), 0.0, 0, cfg) == 0.0
    assert pacing.pace_delay(BucketState(10, 3, 100.0), 0.0, 0, cfg) == 100.0


@pytest.mark.parametrize(
    ("state", "seen", "remaining", "reset"),
    [
        (BucketState(), RateLimit("core", 10, 7, 3, 100.0), 7, 100.0),
        (
            BucketState(10, 5, 100.0),
            RateLimit("core", 10, 6, 4, 100.0),
            5,
            100.0,
        ),  # straggler answer
        (BucketState(10, 5, 100.0), RateLimit("core", 10, 4, 6, 100.0), 4, 100.0),
        (BucketState(10, 0, 100.0), RateLimit("core", 10, 9, 1, 160.0), 9, 160.0),  # new window
        (BucketState(10, 9, 160.0), RateLimit("core", 10, 0, 10, 100.0), 9, 160.0),  # old window
    ],
)
def test_merge_rate_limit(
    state: BucketState, seen: RateLimit, remaining: int, reset: float
) -> None:
    merged = pacing.merge_rate_limit(state, seen)
    assert (merged.remaining, merged.reset) == (remaining, reset)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Retry-After": "30"}, 30.0),
        ({"retry-after": "0"}, 0.0),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, 12.0),
        ({"retry-after": "soon"}, None),
        ({}, None),
    ],
)
def test_retry_after_seconds(headers: dict[str, str], expected: float | None) -> None:
    now = 1445412468.0  # 07:27:48 on that day
    assert pacing.retry_after_seconds(headers, now) == expected


@pytest.mark.parametrize(
    ("status", "headers", "message", "verdict"),
    [
        (200, {}, "", Verdict.OK),
        (304, {}, "", Verdict.NOT_MODIFIED),
        (301, {}, "Moved Permanently", Verdict.OK),
        (401, {}, "Bad credentials", Verdict.BAD_CREDENTIALS),
        (
            403,
            {"retry-after": "60"},
            "You have exceeded a secondary rate limit",
            Verdict.RETRY_AFTER,
        ),
        (429, {"retry-after": "3"}, "", Verdict.RETRY_AFTER),
        (403, rl_headers(0, 100), "API rate limit exceeded for user ID 1.", Verdict.PRIMARY_LIMIT),
        (429, rl_headers(0, 100), "API rate limit exceeded", Verdict.PRIMARY_LIMIT),
        (
            403,
            rl_headers(10, 100),
            "You have exceeded a secondary rate limit. Please wait",
            Verdict.SECONDARY_LIMIT,
        ),
        (403, {}, "You have triggered an abuse detection mechanism", Verdict.SECONDARY_LIMIT),
        (429, {}, "", Verdict.SECONDARY_LIMIT),
        (403, rl_headers(10, 100), "Resource not accessible by integration", Verdict.CLIENT_ERROR),
        (404, {}, "Not Found", Verdict.CLIENT_ERROR),
        (410, {}, "Gone", Verdict.CLIENT_ERROR),
        (422, {}, "pagination is limited", Verdict.CLIENT_ERROR),
        (500, {}, "", Verdict.TRANSIENT),
        (502, {}, "", Verdict.TRANSIENT),
        (503, {}, "", Verdict.TRANSIENT),
    ],
)
def test_classify(status: int, headers: dict[str, str], message: str, verdict: Verdict) -> None:
    assert pacing.classify(status, headers, message) is verdict


@pytest.mark.parametrize(
    ("hits", "expected"), [(1, 60.0), (2, 120.0), (3, 240.0), (4, 480.0), (5, 900.0), (9, 900.0)]
)
def test_secondary_backoff_starts_at_a_minute_and_doubles(hits: int, expected: float) -> None:
    assert pacing.secondary_backoff(hits, PacingConfig()) == expected


@pytest.mark.parametrize(
    ("attempt", "expected"), [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (5, 8.0)]
)
def test_backoff_seconds(attempt: int, expected: float) -> None:
    assert pacing.backoff_seconds(attempt, CFG) == expected


@pytest.mark.parametrize(
    ("exc", "retryable", "wait"),
    [
        (pacing.TransientError("502"), True, 2.0),
        (pacing.LimitHit("403"), True, 0.0),  # waits at the bucket gate instead
        (httpx.ReadTimeout("slow"), True, 2.0),
        (httpx.RemoteProtocolError("peer closed connection"), True, 2.0),
        (httpx.ConnectError("refused"), True, 2.0),
        (ValueError("bug"), False, 2.0),
    ],
)
def test_is_retryable_and_wait(exc: BaseException, retryable: bool, wait: float) -> None:
    assert pacing.is_retryable(exc) is retryable
    assert pacing.retry_wait(exc, 2, CFG) == wait


@pytest.mark.parametrize(
    ("attempt", "waited", "next_wait", "stop"),
    [(1, 0.0, 1.0, False), (9, 10.0, 1.0, False), (10, 10.0, 1.0, True), (3, 299.0, 2.0, True)],
)
def test_should_stop(attempt: int, waited: float, next_wait: float, stop: bool) -> None:
    assert pacing.should_stop(attempt, waited, next_wait, PacingConfig()) is stop


def test_pause_until_covers_the_whole_window() -> None:
    state = BucketState(10, 5, 100.0)
    after = pacing.pause_until(Verdict.RETRY_AFTER, {"retry-after": "7"}, state, 50.0, CFG)
    assert after.paused_until == 57.0
    second = pacing.pause_until(Verdict.SECONDARY_LIMIT, {}, after, 50.0, CFG)
    assert second.paused_until == 110.0 and second.secondary_hits == 1
    third = pacing.pause_until(Verdict.SECONDARY_LIMIT, {}, second, 50.0, CFG)
    assert third.paused_until == 170.0 and third.secondary_hits == 2
    primary = pacing.pause_until(Verdict.PRIMARY_LIMIT, rl_headers(0, 120), state, 50.0, CFG)
    assert primary.paused_until == 120.5 and primary.remaining == 0
    skewed = pacing.pause_until(Verdict.PRIMARY_LIMIT, rl_headers(0, 40), state, 50.0, CFG)
    assert skewed.paused_until == 50.0 + 60.0 + 0.5


@pytest.mark.parametrize(
    ("requests", "limit", "window", "expected"),
    [(100, 100, 2.0, 0.0), (101, 100, 2.0, 2.0), (450, 100, 2.0, 8.0), (0, 5, 1.0, 0.0)],
)
def test_implied_seconds(requests: int, limit: int, window: float, expected: float) -> None:
    assert pacing.implied_seconds(requests, limit, window) == expected


class FakeTime:
    """A clock that only moves when someone sleeps."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_limiter_never_sends_into_an_empty_bucket() -> None:
    """A server-side oracle: 3 requests per 10 s window; every send must find room."""
    t = FakeTime()
    limiter = Limiter(PacingConfig(reset_margin=0.0), t.clock, t.sleep, max_in_flight=1)
    window_end, used = 0.0, 0
    for _ in range(10):
        limiter.acquire("core")
        if t.now >= window_end:
            window_end, used = t.now + 10, 0
        used += 1
        assert used <= 3, "sent while the window was exhausted"
        limiter.release("core", rl_headers(3 - used, int(window_end), limit=3))
    assert sum(t.sleeps) == pytest.approx(30.0)  # 10 requests at 3 per window: 3 waits


def test_limiter_pauses_the_whole_bucket_on_retry_after() -> None:
    t = FakeTime()
    limiter = Limiter(CFG, t.clock, t.sleep)
    limiter.acquire("core")
    limiter.release("core", rl_headers(100, 2000))
    limiter.limit_hit("core", Verdict.RETRY_AFTER, {"retry-after": "5"})
    limiter.acquire("graphql")  # another bucket is not affected
    assert t.sleeps == []
    limiter.release("graphql", None)
    limiter.acquire("core")
    assert t.sleeps == [5.0]


def test_limiter_refuses_an_endless_pause() -> None:
    t = FakeTime()
    limiter = Limiter(PacingConfig(max_pause=60.0), t.clock, t.sleep)
    limiter.limit_hit("core", Verdict.RETRY_AFTER, {"retry-after": "3600"})
    with pytest.raises(RateLimited):
        limiter.acquire("core")


def test_secondary_delay_keeps_points_and_cpu_time_per_minute() -> None:
    from issues_sts.crawl.pacing import Sent, secondary_delay

    cfg = PacingConfig(
        minute=60.0,
        rest_points_per_minute=10,
        cpu_per_minute=10.0,
        graphql_cpu_per_minute=5.0,
        secondary_margin=1.0,
    )
    assert secondary_delay([], 100.0, "core", 1.0, cfg) == 0.0
    ten = [Sent(50.0 + i, "core", 0.1) for i in range(10)]  # the 10th point of the minute is spent
    assert secondary_delay(ten, 100.0, "core", 0.1, cfg) == pytest.approx(
        10.0
    )  # the oldest leaves at 110
    assert secondary_delay(ten, 100.0, "graphql", 0.1, cfg) == 0.0  # another bucket's points
    slow = [Sent(70.0, "graphql", 4.0), Sent(80.0, "core", 5.0)]
    assert secondary_delay(slow, 100.0, "core", 0.5, cfg) == 0.0  # 9.5 s of 10
    assert secondary_delay(slow, 100.0, "core", 2.0, cfg) == pytest.approx(
        30.0
    )  # wait until 70 + 60
    assert secondary_delay(slow, 100.0, "graphql", 2.0, cfg) == pytest.approx(
        30.0
    )  # GraphQL: 6 s of 5


@pytest.mark.parametrize(("first_status", "second_sent"), [(200, False), (304, True)])
def test_the_request_budget_holds_with_requests_in_flight(
    first_status: int, second_sent: bool
) -> None:
    """--max-requests 1 with two workers: while the first request is unanswered, the second
    must not pass the budget check (both once saw 0 counted and sent: 2 of 1). It waits for
    the first answer: counted, the budget is spent; a free 304, the second goes out."""
    import threading
    import time

    from issues_sts.crawl.client import BudgetReached, GitHubClient, Scrubber

    entered, release = threading.Event(), threading.Event()
    calls: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.path)
        if len(calls) == 1:  # the first answer waits until the test lets it go
            entered.set()
            release.wait(10)
            return httpx.Response(first_status, json=[] if first_status == 200 else None)
        return httpx.Response(200, json=[])

    http = httpx.Client(transport=httpx.MockTransport(answer))
    limiter = Limiter(PacingConfig(), time.time, time.sleep, max_in_flight=4)
    client = GitHubClient(
        http,
        api_url="https://api.github.com",
        limiter=limiter,
        cfg=PacingConfig(),
        sleep=None,
        scrub=Scrubber([]),
        max_requests=1,
    )
    first = threading.Thread(target=client.get, args=("repos/a/b/issues",), kwargs={"etag": "x"})
    first.start()
    assert entered.wait(10)
    threading.Timer(0.3, release.set).start()  # answers while the second request waits
    try:
        if second_sent:
            assert client.get("repos/a/b/comments").status == 200
        else:
            with pytest.raises(BudgetReached):
                client.get("repos/a/b/comments")
    finally:
        release.set()
        first.join(10)
    assert len(calls) == 1 + second_sent and client.stats.counted == 1
