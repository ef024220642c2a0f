"""`FakeGitHub`: a real HTTP server on 127.0.0.1 that serves a corpus the way GitHub does.

    with FakeGitHub(corpus, FakeSettings(rate_limit={"core": 50}, reset_seconds=2)) as gh:
        httpx.get(gh.api_url + "/repos/acme/widgets/issues",
                  headers={"Authorization": "Bearer test-token"})
        assert gh.stats()["violations"] == 0

Every request lands in `gh.log` with whether it counted against its bucket and whether it was
a *violation* (sent while the bucket was exhausted or a retry-after window was open).

`gh.grow()` (or `POST /_fake/grow` on the server, outside GitHub's API) lets the world live on
by a month while it is served, so that an incremental crawl can be tried by hand. A client
that drops its connection (a crawl killed mid-request) is not an error worth a traceback.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import re
import socket
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from issues_sts.sandbox.corpus import Corpus
from issues_sts.sandbox.github.faults import SERVED_FAULTS, FaultPlan, tamper
from issues_sts.sandbox.github.http_types import Request, Response, error
from issues_sts.sandbox.github.ratelimit import RateLimiter
from issues_sts.sandbox.github.rest import RestApi
from issues_sts.sandbox.github.settings import FakeSettings
from issues_sts.sandbox.worlds.growth import Growth, GrowthReport, grow_world

GROW_PATH = "/_fake/grow"  # outside GitHub's API: POST grows the served world by a month

BASE_HEADERS = {
    "content-type": "application/json; charset=utf-8",
    "x-github-media-type": "github.v3; format=json",
    "x-github-api-version-selected": "2022-11-28",
    "access-control-expose-headers": (
        "ETag, Link, Location, Retry-After, X-GitHub-OTP, X-RateLimit-Limit, "
        "X-RateLimit-Remaining, X-RateLimit-Used, X-RateLimit-Resource, X-RateLimit-Reset, "
        "X-OAuth-Scopes, X-Accepted-OAuth-Scopes, X-Poll-Interval, X-GitHub-Media-Type, "
        "X-GitHub-SSO, X-GitHub-Request-Id, Deprecation, Sunset"
    ),
    "access-control-allow-origin": "*",
    "x-content-type-options": "nosniff",
    "x-frame-options": "deny",
    "vary": "Accept, Authorization, Cookie, X-GitHub-OTP, Accept-Encoding, Accept, "
    "X-Requested-With",
}
PRIMARY_DOCS = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"
SECONDARY_DOCS = PRIMARY_DOCS + "#about-secondary-rate-limits"


@dataclass(frozen=True)
class RequestRecord:
    t: float  # server clock when the request arrived
    method: str
    path: str  # path + query as received
    status: int  # 0 for a dropped connection
    bucket: str | None
    counted: bool
    violation: bool
    fault: str | None = None
    cost: int = 0
    seconds: float = 0.0  # how long the answer took (the modelled latency)
    identity: str = ""  # whose buckets it was charged to (a hash of the token)


class FakeGitHub:
    """Serve `corpus` on 127.0.0.1:`port` (0 = any free port) until `close()` or the `with` ends."""

    def __init__(
        self,
        corpus: Corpus,
        settings: FakeSettings | None = None,
        *,
        port: int = 0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.corpus = corpus
        self.settings = settings or FakeSettings()
        self.clock = clock
        self.log: list[RequestRecord] = []
        self.limiter = RateLimiter(self.settings)
        self.faults = FaultPlan(self.settings)
        self.outage_until = clock() + self.settings.outage_seconds
        self.rest = RestApi(corpus, self.settings, lambda: self.api_url)
        self._graphql: Any = None
        self._log_lock = threading.Lock()
        self._connections: set[socket.socket] = set()
        self._in_flight = 0
        self.max_in_flight = 0  # most requests being answered at once (crawlers promise <= 2)
        self._ids = itertools.count(1)
        self._world = _ReadWriteLock()  # answers read the corpus; a growth rewrites it
        self.growths = 0
        self._httpd = _QuietServer(("127.0.0.1", port), _make_handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-github",
            daemon=True,
        )
        self._thread.start()

    # -- public surface ---------------------------------------------------------------------
    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_url(self) -> str:
        return self.root_url + ("/api/v3" if self.settings.enterprise else "")

    @property
    def graphql_url(self) -> str:
        return self.root_url + ("/api/graphql" if self.settings.enterprise else "/graphql")

    def close(self) -> None:
        """Stop serving and cut open keep-alive connections, as a server going away would."""
        self._httpd.shutdown()
        self._httpd.server_close()
        with self._log_lock:
            open_connections = list(self._connections)
        for connection in open_connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        self._thread.join(timeout=5)

    @contextlib.contextmanager
    def _flight(self) -> Iterator[None]:
        with self._log_lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            yield
        finally:
            with self._log_lock:
                self._in_flight -= 1

    def _track(self, connection: socket.socket, alive: bool) -> None:
        with self._log_lock:
            if alive:
                self._connections.add(connection)
            else:
                self._connections.discard(connection)

    def __enter__(self) -> FakeGitHub:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def stats(self) -> dict[str, Any]:
        with self._log_lock:
            records = list(self.log)
        return {
            "requests": len(records),
            "counted": sum(r.counted for r in records),
            "violations": sum(r.violation for r in records),
            "not_modified": sum(r.status == 304 for r in records),
            "faults": dict(Counter(r.fault for r in records if r.fault)),
            "by_status": dict(Counter(r.status for r in records)),
            "by_endpoint": dict(Counter(endpoint_of(r.method, r.path) for r in records)),
            "graphql_points": sum(r.cost for r in records if r.bucket == "graphql" and r.counted),
            "max_in_flight": self.max_in_flight,
            "secondary_trips": dict(self.limiter.secondary_trips),
            "response_seconds": round(sum(r.seconds for r in records), 3),
            "graphql_response_seconds": round(
                sum(r.seconds for r in records if r.bucket == "graphql"), 3
            ),
        }

    def grow(self, growth: Growth | None = None) -> GrowthReport:
        """Add a month of GitHub to the served world (new issues, comments, duplicates, merges,
        a new repository), between answers; each call adds a different month."""
        self.growths += 1
        with self._world.writing():
            return grow_world(self.corpus, growth or Growth(seed=self.growths))

    def violations(self) -> list[RequestRecord]:
        with self._log_lock:
            return [r for r in self.log if r.violation]

    # -- request processing (called from handler threads) ------------------------------------
    def process(self, request: Request) -> tuple[Response, RequestRecord, str | None]:
        """Answer one request; the HTTP layer only writes what this returns."""
        now = self.clock()
        identity, auth_error = self._identity(request)
        if auth_error is not None:
            return self._finish(request, now, auth_error, identity, counted=False, violation=False)
        if request.path == "/rate_limit":
            payload = self.limiter.snapshot(identity, now)
            answer = Response(200, {"resources": payload, "rate": payload["core"]}, bucket="core")
            return self._finish(request, now, answer, identity, counted=False, violation=False)
        bucket = "graphql" if request.path == "/graphql" else "core"
        if bucket == "graphql" and identity == "anonymous" and self.settings.graphql:
            answer = error(
                401,
                "This endpoint requires you to be authenticated.",
                "https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql",
            )
            answer.bucket = None
            return self._finish(request, now, answer, identity, counted=False, violation=False)
        fault = "500" if now < self.outage_until else self.faults.next_fault()
        if fault in ("500", "502", "503", "drop"):
            violation = self.limiter.window_open(identity, bucket, now)
            answer = error(int(fault), "Server Error") if fault != "drop" else Response(0)
            return self._finish(
                request, now, answer, identity, counted=False, violation=violation, fault=fault
            )
        with self._world.reading():
            answer = self._answer(request, identity, now)
        answer.bucket = bucket
        not_modified = _not_modified(request, answer)
        seconds = self.settings.latency(0 if not_modified else len(answer.body()))
        timeout = self.settings.query_timeout
        if bucket == "graphql" and timeout is not None and seconds > timeout:
            # GitHub stops a query after 10 s; the points are spent anyway, plus one
            cost = answer.cost + 1
            answer = error(
                502,
                "Something went wrong while executing your query. This may be the result of a "
                "timeout, or it could be a GitHub bug. Please include the request ID when "
                "reporting this issue.",
            )
            answer.bucket, answer.cost, seconds = bucket, cost, timeout
        with self._log_lock:
            in_flight = self._in_flight
        admission = self.limiter.admit(
            identity,
            bucket,
            now,
            answer.cost,
            not_modified=not_modified,
            seconds=seconds,
            in_flight=in_flight,
        )
        if admission.outcome in ("primary", "secondary"):
            refusal = self._refusal(admission.outcome, admission.retry_after, identity, bucket)
            return self._finish(
                request, now, refusal, identity, counted=False, violation=admission.violation
            )
        if admission.outcome == "not_modified":
            answer = Response(304, None, {"etag": answer.headers["etag"]}, bucket=bucket)
            return self._finish(
                request, now, answer, identity, counted=False, violation=False, seconds=seconds
            )
        return self._finish(
            request,
            now,
            answer,
            identity,
            counted=True,
            violation=False,
            fault=fault,
            seconds=seconds,
        )

    def _identity(self, request: Request) -> tuple[str, Response | None]:
        header = request.headers.get("authorization", "").strip()
        if not header:
            return "anonymous", None
        scheme, _, token = header.partition(" ")
        if scheme.lower() in ("bearer", "token") and token.strip() in self.settings.tokens:
            return "token:" + hashlib.sha256(token.strip().encode()).hexdigest()[:12], None
        answer = error(401, "Bad credentials")
        answer.bucket = None
        return "anonymous", answer

    def _answer(self, request: Request, identity: str, now: float) -> Response:
        if request.path == "/graphql":
            if not self.settings.graphql or request.method != "POST":
                return error(404, "Not Found")
            return self._graphql_api().handle(
                request, lambda cost: self._after(identity, now, cost)
            )
        answer = self.rest.handle(request)
        if answer.status == 200 and request.method == "GET":
            digest = hashlib.sha256(answer.body()).hexdigest()
            answer.headers["etag"] = f'W/"{digest}"'
            answer.headers["cache-control"] = "private, max-age=60, s-maxage=60"
        return answer

    def _after(self, identity: str, now: float, cost: int) -> dict[str, str]:
        """GraphQL rate-limit headers as they will read once this query is charged."""
        headers = self.limiter.headers(identity, "graphql", now)
        remaining = max(0, int(headers["x-ratelimit-remaining"]) - cost)
        return headers | {
            "x-ratelimit-remaining": str(remaining),
            "x-ratelimit-used": str(int(headers["x-ratelimit-used"]) + cost),
        }

    def _graphql_api(self) -> Any:
        # Built on first use: loading the schema costs time that REST-only tests need not pay.
        if self._graphql is None:
            from issues_sts.sandbox.github.graphql_api import GraphqlApi

            self._graphql = GraphqlApi(self.corpus, self.settings)
        return self._graphql

    def _refusal(self, kind: str, retry_after: int | None, identity: str, bucket: str) -> Response:
        if kind == "secondary":
            answer = error(
                403,
                "You have exceeded a secondary rate limit. Please wait a few minutes before you "
                "try again. If you reach out to GitHub Support for help, please include the "
                "request ID.",
                SECONDARY_DOCS,
            )
            if retry_after is not None:
                answer.headers["retry-after"] = str(retry_after)
        elif identity == "anonymous":
            answer = error(
                self.settings.exhausted_status,
                "API rate limit exceeded for 127.0.0.1. (But here's the good news: Authenticated "
                "requests get a higher rate limit. Check out the documentation for more details.)",
                PRIMARY_DOCS + "#primary-rate-limit-for-unauthenticated-users",
            )
        else:
            answer = error(
                self.settings.exhausted_status,
                "API rate limit exceeded for user ID 1. If you reach out to GitHub Support for "
                "help, please include the request ID.",
                PRIMARY_DOCS + "#about-primary-rate-limits",
            )
        if bucket == "graphql" and kind == "primary":
            answer.status = 200  # GitHub's GraphQL answers 200 with a RATE_LIMITED error
            answer.payload = {
                "errors": [{"type": "RATE_LIMITED", "message": answer.payload["message"]}]
            }
        answer.bucket = bucket
        return answer

    def _finish(
        self,
        request: Request,
        now: float,
        answer: Response,
        identity: str,
        *,
        counted: bool,
        violation: bool,
        fault: str | None = None,
        seconds: float = 0.0,
    ) -> tuple[Response, RequestRecord, str | None]:
        headers = dict(BASE_HEADERS)
        headers["x-github-request-id"] = f"FAKE:{next(self._ids):08X}"
        if answer.bucket is not None or answer.status == 401:
            headers.update(self.limiter.headers(identity, answer.bucket or "core", now))
        if request.path == "/graphql":
            headers["x-github-media-type"] = "github.v4; format=json"
        headers.update(answer.headers)
        answer.headers = headers
        # a fault that rides on the body (truncate, short_body, slow) is applied to a success
        # only; on a 404 or a refusal it is not served, and so not counted as one
        if fault in SERVED_FAULTS and answer.status >= 300:
            fault = None
        served_fault = fault if fault in SERVED_FAULTS else None
        record = RequestRecord(
            t=now,
            method=request.method,
            path=request.raw_target,
            status=answer.status,
            bucket=answer.bucket,
            counted=counted,
            violation=violation,
            fault=fault,
            cost=answer.cost if counted else 0,
            seconds=seconds,
            identity=identity,
        )
        with self._log_lock:
            self.log.append(record)
        return answer, record, served_fault


def _not_modified(request: Request, answer: Response) -> bool:
    etag = answer.headers.get("etag")
    wanted = request.headers.get("if-none-match")
    if not etag or not wanted:
        return False
    tags = {t.strip().removeprefix("W/") for t in wanted.split(",")}
    return "*" in tags or etag.removeprefix("W/") in tags


_NUMBER = re.compile(r"/\d+(?=/|$)")


def endpoint_of(method: str, target: str) -> str:
    """`GET /repos/acme/widgets/issues/12/comments?page=2` ->
    `GET /repos/{repo}/issues/{n}/comments`."""
    path = urlsplit(target).path.removeprefix("/api/v3").removeprefix("/api")
    path = re.sub(r"^/repos/[^/]+/[^/]+", "/repos/{repo}", path)
    path = re.sub(r"^/repositories/\d+", "/repositories/{id}", path)
    return f"{method} {_NUMBER.sub('/{n}', path)}"


class _QuietServer(ThreadingHTTPServer):
    """A client that goes away mid-answer (a killed crawl, a timeout) is what GitHub sees every
    second; the stdlib prints a traceback for each. Other errors still get one line."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return
        print(f"fake GitHub: {type(exc).__name__}: {exc}", file=sys.stderr)


class _ReadWriteLock:
    """Many answers read the corpus at once; a growth waits for them and holds off new ones."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writing = False

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        with self._cond:
            while self._writing:
                self._cond.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                self._cond.notify_all()

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        with self._cond:
            while self._writing:
                self._cond.wait()
            self._writing = True
            while self._readers:
                self._cond.wait()
        try:
            yield
        finally:
            with self._cond:
                self._writing = False
                self._cond.notify_all()


def _make_handler(server: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # One buffered write per answer and no Nagle: otherwise every keep-alive request
        # waits ~40 ms for a delayed ACK.
        wbufsize = 1 << 16
        disable_nagle_algorithm = True

        def setup(self) -> None:
            super().setup()
            server._track(self.connection, alive=True)

        def finish(self) -> None:
            server._track(self.connection, alive=False)
            with contextlib.suppress(OSError):
                super().finish()

        def version_string(self) -> str:
            return "GitHub.com"

        def date_time_string(self, timestamp: float | None = None) -> str:
            return formatdate(server.clock() if timestamp is None else timestamp, usegmt=True)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib name
            return  # the request log is `server.log`; stderr stays quiet

        def do_GET(self) -> None:
            self._serve()

        def do_POST(self) -> None:
            self._serve()

        def do_HEAD(self) -> None:
            self._serve()

        def _serve(self) -> None:
            started = time.monotonic()
            if self.path.split("?")[0] == GROW_PATH:
                self._grow()
                return
            request = self._request()
            if request is None:
                self._write(error(404, "Not Found"), None, head=False)
                return
            with server._flight():
                answer, record, fault = server.process(request)
                if record.status == 0:
                    self.close_connection = True
                    return
                if fault == "slow":
                    time.sleep(server.settings.slow_seconds)
                # The modelled latency, held in flight meanwhile. The fake's own work (building
                # the answer, resolving a query) is part of it rather than added to it: on a
                # compressed clock that work would otherwise outweigh the latency modelled.
                left = record.seconds - (time.monotonic() - started)
                if left > 0:
                    time.sleep(left)
                self._write(answer, fault, head=request.method == "HEAD")
                if record.status in (403, 429) and record.bucket is not None:
                    self.wfile.flush()
                    server.limiter.told(record.identity, record.bucket, server.clock())

        def _grow(self) -> None:
            if self.command != "POST":
                self._write(error(405, "POST to grow the world"), None, head=False)
                return
            self.rfile.read(int(self.headers.get("content-length") or 0))
            report = server.grow()
            grown = {
                "growths": server.growths,
                "new_issues": {repo: len(ns) for repo, ns in report.new_issues.items()},
                "duplicates": len(report.duplicates),
                "merges": len(report.merges),
                "new_repos": report.new_repos,
            }
            self._write(Response(200, grown), None, head=False)

        def _request(self) -> Request | None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            parts = urlsplit(self.path)
            path = parts.path.rstrip("/") or "/"
            if server.settings.enterprise:
                if path == "/api/graphql":
                    path = "/graphql"
                elif path.startswith("/api/v3/") or path == "/api/v3":
                    path = path[len("/api/v3") :] or "/"
                else:
                    return None
            elif path.startswith("/api/"):
                return None
            headers = {k.lower(): v for k, v in self.headers.items()}
            query = parse_qsl(parts.query, keep_blank_values=True)
            return Request(self.command, path, query, headers, body, self.path)

        def _write(self, answer: Response, fault: str | None, *, head: bool) -> None:
            body = answer.body()
            sent, length = tamper(body, fault)
            self.send_response(answer.status)
            for name, value in answer.headers.items():
                self.send_header(name, value)
            if answer.status != 304:
                self.send_header("content-length", str(length))
            self.end_headers()
            if not head and answer.status != 304:
                self.wfile.write(sent)
            if fault == "short_body":
                self.close_connection = True

    return Handler
