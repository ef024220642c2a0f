"""Benchmark of the fake GitHub: world generation, the rust archive load, and request
throughput, each against a baseline measured in the same run.

    .venv/bin/python -m benchmarks.fakegh                 # 10k-item world, rust archive if present
    .venv/bin/python -m benchmarks.fakegh --items 50000   # a bigger world

- generation: `generate_world` for ~N items vs a JSON round-trip of the same corpus (the cost
  of merely copying that much data); target: a 10k-item world in a couple of seconds.
- serving: Link-following every issue and comment page over HTTP vs a bare
  `ThreadingHTTPServer` answering the same pre-serialised pages (the HTTP floor).
- rust: `rust_corpus` vs decompressing and parsing the same files.
"""

from __future__ import annotations

import argparse
import gzip
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx

from issues_sts.annotations.archives import ARCHIVES
from issues_sts.sandbox.corpus import Corpus
from issues_sts.sandbox.github.server import FakeGitHub
from issues_sts.sandbox.worlds.generator import WorldConfig, generate_world

RUST = ARCHIVES["rust"].path  # $ISSUES_STS_SHARED is honoured, as everywhere else
AUTH = {"Authorization": "Bearer test-token"}


def timed(fn, *args):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - start


def bench_generation(items: int) -> Corpus:
    repos = max(1, items // 2000)
    corpus, seconds = timed(
        generate_world, WorldConfig(seed=1, repos=repos, issues_per_repo=items // repos)
    )
    payload = {n: [r.issues, r.comments] for n, r in corpus.repos.items()}
    _, baseline = timed(lambda: json.loads(json.dumps(payload)))
    print(
        f"generation: {corpus.total_items():,} items + {corpus.total_comments():,} comments in "
        f"{seconds:.2f} s (JSON round-trip of the same data {baseline:.2f} s, ratio "
        f"{seconds / baseline:.2f})"
    )
    return corpus


def crawl(client: httpx.Client, first_urls: list[str]) -> int:
    requests = 0
    for url in first_urls:
        next_url: str | None = url
        while next_url:
            answer = client.get(next_url)
            answer.json()
            requests += 1
            next_url = answer.links.get("next", {}).get("url")
    return requests


def bench_serving(corpus: Corpus) -> None:
    with FakeGitHub(corpus) as gh, httpx.Client(headers=AUTH) as client:
        urls = [
            f"{gh.api_url}/repos/{n}/{what}?state=all&per_page=100"
            for n in corpus.repos
            for what in ("issues", "issues/comments")
        ]
        # Best of three: the first pass also pays for connection set-up and listing caches.
        requests, seconds = min((timed(crawl, client, urls) for _ in range(3)), key=lambda r: r[1])
        pages = {r.path: None for r in gh.log}
        bodies = {
            path: client.get(gh.api_url + path if not path.startswith("http") else path).content
            for path in pages
        }
    with _bare_server(bodies) as base, httpx.Client() as client:
        floor = min(
            timed(lambda: [client.get(base + path).json() for path in bodies])[1] for _ in range(3)
        )
    print(
        f"serving: {requests} pages (best of 3) in {seconds:.2f} s = {requests / seconds:.0f} "
        f"req/s (bare http.server, same pages, also parsed: {len(bodies) / floor:.0f} req/s, ratio "
        f"{seconds / floor:.2f})"
    )


class _bare_server:  # noqa: N801 - used as a context manager like a function
    def __init__(self, bodies: dict[str, bytes]) -> None:
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            wbufsize = 1 << 16
            disable_nagle_algorithm = True

            def do_GET(self) -> None:  # noqa: N802 - stdlib name
                body = bodies.get(self.path, b"[]")
                self.send_response(200)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                return

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()

    def __enter__(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def bench_rust() -> None:
    if not (RUST / "main.jsonl.gz").exists():
        print(f"rust: skipped, the archive is absent ({RUST})")
        return
    from issues_sts.sandbox.worlds.rust import rust_corpus

    corpus, seconds = timed(rust_corpus, RUST)

    def parse_only() -> int:
        count = 0
        for name in ("main.jsonl.gz", "comments.jsonl.gz", "xrefs.jsonl.gz"):
            with gzip.open(RUST / name, "rb") as handle:
                count += sum(1 for line in handle if json.loads(line))
        return count

    _, baseline = timed(parse_only)
    print(
        f"rust: {corpus.total_items():,} items + {corpus.total_comments():,} comments loaded in "
        f"{seconds:.2f} s (gunzip + json.loads of the files {baseline:.2f} s, ratio "
        f"{seconds / baseline:.2f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000, help="Items in the generated world.")
    parser.add_argument("--no-rust", action="store_true", help="Skip the rust archive.")
    args = parser.parse_args()
    corpus = bench_generation(args.items)
    bench_serving(corpus)
    if not args.no_rust:
        bench_rust()


if __name__ == "__main__":
    main()
