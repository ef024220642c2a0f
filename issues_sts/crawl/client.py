"""The GitHub client: builds requests, passes the bucket gate, retries, follows nothing by itself.

Policy (what an answer means, how long to wait) lives in `pacing`; this module applies it.
Tenacity is plugged in here and nowhere else. The `httpx.Client` is passed in
(`make_http_client` builds the usual one) so tests and callers choose transport and timeouts;
`open_client` is the one place that puts the HTTP client, the limiter and the GitHub client
together for a crawl configuration (`crawl` and `crawl --plan`).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

import httpx
import tenacity

from issues_sts import stopping
from issues_sts.crawl import pacing
from issues_sts.crawl.config import CrawlConfig
from issues_sts.crawl.limiter import Limiter
from issues_sts.crawl.pacing import LimitHit, PacingConfig, TransientError, Verdict
from issues_sts.crawl.pagination import next_url, same_origin
from issues_sts.errors import BadCredentials, GitHubError, RetriesExhausted, Unreachable
from issues_sts.secrets import Scrubber

log = logging.getLogger("issues_sts.crawl")

USER_AGENT = "issues-sts-crawler"
ACCEPT = "application/vnd.github+json"


_LIMIT_VERDICTS = (Verdict.RETRY_AFTER, Verdict.SECONDARY_LIMIT, Verdict.PRIMARY_LIMIT)


class BudgetReached(Exception):
    """The request budget (`--max-requests`) is spent; the crawl stops cleanly and resumes later."""


# The longest a blocking wait may last without a look at pending signals: the kernel may hand
# Ctrl-C to a worker thread, and Python then runs the handler only when the main thread wakes.
SIGNAL_SLICE = 0.25


def _wait_in_slices(event: threading.Event, seconds: float) -> bool:
    """`event.wait(seconds)`, woken every SIGNAL_SLICE so Ctrl-C is never held back (nor a stop
    the pump has noted and will raise at its next safe point: `stopping`)."""
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return event.is_set()
        if event.wait(min(left, SIGNAL_SLICE)) or stopping.stop_requested():
            return True


class CrawlCancelled(Exception):
    """The crawl is stopping (Ctrl-C / SIGTERM): a worker's wait or retry ends here."""


class GraphQLUnavailable(Exception):
    """`/graphql` answered 404 or refused us: fall back to REST timelines."""


def make_http_client(api_url: str, token: str | None, *, timeout: float = 30.0) -> httpx.Client:
    """The httpx client the crawler expects: auth, GitHub's media type, no automatic redirects
    (301s are recorded, and the token must never follow a redirect to another host)."""
    headers = {"Accept": ACCEPT, "User-Agent": USER_AGENT, "X-GitHub-Api-Version": "2022-11-28"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.Client(headers=headers, timeout=timeout, follow_redirects=False)


def graphql_url(api_url: str) -> str:
    """github.com: https://api.github.com/graphql; GHE: https://HOST/api/v3 -> https://HOST/api/graphql."""
    base = api_url.rstrip("/")
    if base.endswith("/api/v3"):
        return base[: -len("/v3")] + "/graphql"
    return base + "/graphql"


@dataclass(frozen=True)
class Page:
    """One answer: JSON data (None for 304/redirects/errors) plus what pagination needs."""

    url: str
    status: int
    data: Any
    next_url: str | None
    etag: str | None
    location: str | None
    link: str | None


@dataclass
class ClientStats:
    sent: int = 0
    counted: int = 0  # every answer but 304 counts against the limit
    not_modified: int = 0
    retries: int = 0
    graphql: int = 0


class GitHubClient:
    """GET pages and POST GraphQL queries against one API root."""

    def __init__(
        self,
        http: httpx.Client,
        *,
        api_url: str,
        limiter: Limiter,
        cfg: PacingConfig,
        sleep: Callable[[float], None] | None,
        scrub: Scrubber,
        max_requests: int | None = None,
        on_retry: Callable[[str], None] | None = None,
    ) -> None:
        self.http = http
        self.api_url = api_url.rstrip("/")
        self.graphql_url = graphql_url(self.api_url)
        self.limiter = limiter
        self.cfg = cfg
        self.sleep = sleep
        self.scrub = scrub
        self.max_requests = max_requests
        self.on_retry = on_retry
        self.stats = ClientStats()
        self.reached = False  # has the server answered anything yet?
        self._stats_lock = threading.Lock()  # workers update the counts concurrently
        self._in_flight = 0  # requests sent and not yet counted: reserved from the budget
        self._settled = threading.Condition(self._stats_lock)  # a reservation was freed
        self._local = threading.local()  # per worker: how long its last answer took
        self.cancelled = threading.Event()

    def cancel(self) -> None:
        """Stop: waits and retries under way end with CrawlCancelled."""
        self.cancelled.set()

    def pause(self, seconds: float) -> None:
        """Sleep (the injected sleep, or a wait that `cancel` ends at once)."""
        if self.sleep is None:
            stopped = _wait_in_slices(self.cancelled, seconds)
        else:
            stopped = self.cancelled.is_set()
            if not stopped:
                self.sleep(seconds)
                stopped = self.cancelled.is_set()
        if stopped:
            raise CrawlCancelled("the crawl is stopping")

    def last_seconds(self) -> float:
        """How long the last answer this thread received took (waits at the gate excluded)."""
        return float(getattr(self._local, "seconds", 0.0))

    def counted_here(self) -> int:
        """Requests this thread has had counted: the difference around a step is what that
        step cost, though other threads' steps run at the same time."""
        return int(getattr(self._local, "counted", 0))

    def url(self, path: str) -> str:
        return path if "://" in path else f"{self.api_url}/{path.lstrip('/')}"

    # -- public calls --------------------------------------------------------------
    def get(
        self, path_or_url: str, *, etag: str | None = None, expect: tuple[int, ...] = ()
    ) -> Page:
        """GET one page. 2xx/304/3xx come back as a Page, statuses in `expect` too (data = the
        error body); 401 raises BadCredentials, anything else GitHubError."""
        url = self.url(path_or_url)
        if not same_origin(url, self.api_url):
            raise GitHubError(f"refusing to follow a link off the API host: {self.scrub(url)}")
        headers = {"If-None-Match": etag} if etag else {}
        response, data = self._send("GET", url, "core", headers=headers)
        status = response.status_code
        if status >= 400 and status not in expect:
            raise self._error(response, data)
        location = response.headers.get("location")
        return Page(
            url=url,
            status=status,
            data=data,
            next_url=next_url(response.headers.get("link")),
            etag=response.headers.get("etag"),
            link=response.headers.get("link"),
            location=urljoin(url, location) if location else None,
        )

    def graphql(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        """POST a query; returns GitHub's `{"data": ..., "errors": [...]}` object."""
        body = {"query": query, "variables": variables or {}}
        response, data = self._send("POST", self.graphql_url, "graphql", json_body=body)
        status = response.status_code
        # REST already vouched for the token; a 401 here is GraphQL refusing this client
        # (anonymous, or a token without GraphQL access): REST timelines still work.
        if status >= 400:
            raise GraphQLUnavailable(f"/graphql answered {status}")
        if not isinstance(data, dict):
            raise GraphQLUnavailable("/graphql answered something that is not a GraphQL result")
        return data

    # -- the one retry loop ------------------------------------------------------------
    def _send(
        self,
        method: str,
        url: str,
        bucket: str,
        *,
        headers: dict[str, str] | None = None,
        json_body: Any = None,
    ) -> tuple[httpx.Response, Any]:
        retrying = tenacity.Retrying(
            retry=tenacity.retry_if_exception(pacing.is_retryable),
            wait=self._wait,
            stop=self._stop,
            sleep=self.pause,
            before_sleep=self._before_sleep,
            reraise=True,
        )
        try:
            for attempt in retrying:
                with attempt:
                    return self._send_once(method, url, bucket, headers or {}, json_body)
        except (TransientError, LimitHit, httpx.TransportError) as exc:
            raise self._gave_up(method, url, exc) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def _gave_up(self, method: str, url: str, exc: Exception) -> GitHubError:
        reason = self.scrub(f"{type(exc).__name__}: {exc}".rstrip(": "))
        if not pacing.is_retryable(exc):
            return GitHubError(
                f"{method} {self.scrub(url)} cannot be sent: {reason}",
                url=self.scrub(url),
                hint="check --api-url (e.g. https://api.github.com)",
            )
        if not self.reached and pacing.unreachable(exc):
            return Unreachable(
                f"cannot reach {self.scrub(self.api_url)}: {reason}", url=self.scrub(url)
            )
        return RetriesExhausted(
            f"{method} {self.scrub(url)} kept failing: {reason}", url=self.scrub(url)
        )

    def _wait(self, state: tenacity.RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        return pacing.retry_wait(exc, state.attempt_number, self.cfg)

    def _stop(self, state: tenacity.RetryCallState) -> bool:
        return pacing.should_stop(
            state.attempt_number, state.idle_for, self._wait(state), self.cfg, reached=self.reached
        )

    def _before_sleep(self, state: tenacity.RetryCallState) -> None:
        with self._stats_lock:
            self.stats.retries += 1
        exc = state.outcome.exception() if state.outcome else None
        wait = state.next_action.sleep if state.next_action else 0.0
        what = self.scrub(f"{type(exc).__name__}: {exc}".rstrip(": "))
        log.info("retrying after %s", what)
        if self.on_retry is not None and wait >= self.cfg.announce_after:
            self.on_retry(
                f"{what}; attempt {state.attempt_number + 1} of {self.cfg.max_attempts} in "
                f"{wait:.0f} s"
            )

    def _send_once(
        self, method: str, url: str, bucket: str, headers: dict[str, str], json_body: Any
    ) -> tuple[httpx.Response, Any]:
        response, data, verdict = self._exchange(method, url, bucket, headers, json_body)
        log.debug("%s %s -> %s", method, self.scrub(url), response.status_code)
        if response.status_code != 304:
            self._local.counted = self.counted_here() + 1
        return response, self._check(response, data, verdict, bucket)

    def _exchange(
        self, method: str, url: str, bucket: str, headers: dict[str, str], json_body: Any
    ) -> tuple[httpx.Response, Any, Verdict]:
        """One request through the limiter's gate: the answer, its decoded body and verdict."""
        if self.max_requests is not None and self.stats.counted >= self.max_requests:
            raise BudgetReached(
                f"the request budget of {self.max_requests} is spent"
            )  # no wait at the gate
        ticket = self.limiter.acquire(bucket)
        response: httpx.Response | None = None
        answered: float | None = None
        reserved = completed = False
        started = time.monotonic()
        try:
            self._reserve()  # past the gate: a request waiting there holds no part of the budget
            reserved = True
            response = self.http.request(method, url, headers=headers, json=json_body)
            content = response.read()
            answered = time.monotonic()  # decoding the body is our time, not GitHub's
            self.reached = True
            data, verdict = self._classify(response, content, bucket)
            if verdict in _LIMIT_VERDICTS:
                # Pause the bucket while this request still holds its slot: released first,
                # another thread could slip a request into the window this answer opened.
                self.limiter.limit_hit(bucket, verdict, response.headers)
            completed = True
        finally:
            if not reserved:  # refused at the budget: nothing was sent, nothing to account
                self.limiter.release(bucket, None, ticket)
            else:
                # the response time is what GitHub's CPU-time secondary limit is estimated from
                self._local.seconds = (
                    answered if answered is not None else time.monotonic()
                ) - started
                self.limiter.release(
                    bucket,
                    response.headers if response is not None else None,
                    ticket,
                    self._local.seconds,
                )
                self._settle(
                    response.status_code if completed and response is not None else None, bucket
                )
        assert response is not None  # completed
        return response, data, verdict

    def _reserve(self) -> None:
        """Take one request of the `--max-requests` budget just before sending. Requests in
        flight are reserved, so workers that check at once cannot all pass the last free slot;
        when the rest of the budget is reserved, wait to see whether those answers count (a
        304 or a failure hands its reservation back)."""
        with self._settled:
            while self.max_requests is not None:
                if self.stats.counted >= self.max_requests:
                    raise BudgetReached(f"the request budget of {self.max_requests} is spent")
                if self.stats.counted + self._in_flight < self.max_requests:
                    break
                if self.cancelled.is_set():
                    raise CrawlCancelled("the crawl is stopping")
                self._settled.wait(0.5)
            self._in_flight += 1
            self.stats.sent += 1

    def _settle(self, status: int | None, bucket: str) -> None:
        """Free a reservation and count its answer (`status` None: no usable answer came, as
        before the budget was reserved; a 304 is free and hands its reservation back)."""
        with self._settled:
            self._in_flight -= 1
            self._settled.notify_all()
            if status is None:
                return
            if status == 304:
                self.stats.not_modified += 1
            else:
                self.stats.counted += 1
                self.stats.graphql += bucket == "graphql"

    def _classify(
        self, response: httpx.Response, content: bytes, bucket: str
    ) -> tuple[Any, Verdict]:
        """Decode the body and decide what the answer means for pacing and retries."""
        try:
            data = json.loads(content) if content.strip() else None
        except ValueError:
            if response.status_code < 300 or response.status_code >= 500:
                raise TransientError(f"truncated or invalid JSON ({len(content)} bytes)") from None
            data = None
        message = data.get("message", "") if isinstance(data, dict) else ""
        verdict = pacing.classify(response.status_code, response.headers, str(message))
        if verdict is Verdict.OK and bucket == "graphql" and pacing.graphql_rate_limited(data):
            verdict = Verdict.PRIMARY_LIMIT
        return data, verdict

    def _check(self, response: httpx.Response, data: Any, verdict: Verdict, bucket: str) -> Any:
        """Turn limit/transient answers into retryable exceptions; return the decoded body."""
        if verdict in _LIMIT_VERDICTS:
            raise LimitHit(f"{response.status_code} {verdict.value}")
        if verdict is Verdict.TRANSIENT:
            raise TransientError(f"GitHub answered {response.status_code}")
        if verdict is Verdict.BAD_CREDENTIALS and bucket != "graphql":
            raise BadCredentials(
                "the token was rejected (401 Bad credentials)",
                status=401,
                url=self.scrub(str(response.request.url)),
            )
        self.limiter.success(bucket)
        return data

    def _error(self, response: httpx.Response, data: Any) -> GitHubError:
        message = data.get("message", "") if isinstance(data, dict) else ""
        url = self.scrub(str(response.request.url))
        text = self.scrub(
            f"GitHub answered {response.status_code} for {url}: {message}".rstrip(": ")
        )
        cls = BadCredentials if response.status_code == 401 else GitHubError
        return cls(
            text,
            status=response.status_code,
            url=url,
            request_id=response.headers.get("x-github-request-id"),
        )


@contextmanager
def open_client(
    cfg: CrawlConfig,
    *,
    http: httpx.Client | None = None,
    clock: Callable[[], float] = time.time,
    sleep: Callable[[float], None] | None = None,
    on_retry: Callable[[str], None] | None = None,
) -> Iterator[GitHubClient]:
    """The GitHub client of a crawl configuration: its limiter paced by `cfg.pacing`, over
    `http` (tests and the sandbox pass their own) or an HTTP client built here and closed on
    exit. `sleep` is injected by tests (None: a wait that `cancel` ends at once)."""
    token = cfg.token_value()
    own_http = http is None
    http = http or make_http_client(cfg.api_url, token, timeout=cfg.timeout)
    limiter = Limiter(cfg.pacing, clock, time.sleep, max_in_flight=cfg.max_in_flight)
    client = GitHubClient(
        http,
        api_url=cfg.api_url,
        limiter=limiter,
        cfg=cfg.pacing,
        sleep=sleep,
        scrub=Scrubber([token]),
        max_requests=cfg.max_requests,
        on_retry=on_retry,
    )
    limiter.sleep = client.pause  # waits at the bucket gate end too when the crawl stops
    try:
        yield client
    finally:
        if own_http:
            http.close()
