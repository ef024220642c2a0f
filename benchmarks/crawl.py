"""Crawl benchmark on the rust-lang/rust archive served by the fake GitHub.

    .venv/bin/python -m benchmarks.crawl [--limit N] [--core-limit 100] [--window 5]

Prints, for `issues-sts crawl` and for a naive per-issue crawler on the same server:
* requests used against the lower bound ceil(items/100) + ceil(comments/100) (target: within 5 %);
* wall time under a compressed rate limit (`--core-limit` requests per `--window` seconds)
  against the time the limit itself implies for the requests made (target: within 10 %).
The naive crawler needs ~30,000 requests: it runs for `--naive-seconds` per setting and its
full time is projected from that sample (labelled "proj."); its request count is exact, from
the list pages plus every issue's comment pages (known from each issue's `comments` field).
Skips with a message when ../shared/data/rust-issue-archive is absent.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from pathlib import Path

from pydantic import SecretStr

from issues_sts.crawl import CrawlConfig, PacingConfig, run_crawl
from issues_sts.fakegh.server import FakeGitHub
from issues_sts.fakegh.settings import FakeSettings

ROOT = Path(__file__).resolve().parents[1]
ARCHIVE = Path(os.environ.get("ISSUES_STS_SHARED", ROOT.parent / "shared")) / "data" / "rust-issue-archive"
TOKEN = "bench-token"
PACING = PacingConfig(reset_margin=0.02)  # same machine, same clock: no skew to cover


def window_implied(requests: int, limit: int, window: float, start: float) -> float:
    """Seconds an infinitely fast client needs for `requests` under the fake's windows:
    a window opens at the first request and ends on the whole second after `window` s."""
    t = start
    for _ in range(max(0, math.ceil(requests / limit) - 1)):
        t = float(math.ceil(t + window))
    return t - start


def core_requests(gh: FakeGitHub, since: int = 0) -> int:
    return sum(1 for r in gh.log[since:] if r.counted and r.bucket == "core")


def run_ours(gh: FakeGitHub, repo: str) -> tuple[int, int, float, float]:
    """(core requests, graphql requests, wall seconds, start time) of one full crawl."""
    before = len(gh.log)
    with tempfile.TemporaryDirectory() as tmp:
        cfg = CrawlConfig(repos=(repo,), token=SecretStr(TOKEN), api_url=gh.api_url, store=Path(tmp), pacing=PACING)
        start = time.time()
        summary = run_crawl(cfg, progress=sys.stderr.isatty())
        wall = time.time() - start
    if not summary.ok:
        raise SystemExit(f"the crawl did not finish: {summary}")
    first = next((r.t for r in gh.log[before:] if r.counted), start)
    return core_requests(gh, before), summary.graphql_requests, wall, first


def run_naive(gh: FakeGitHub, repo: str, seconds: float) -> tuple[int, int, float, bool, int]:
    """(requests made, requests the whole crawl takes, wall s, finished, violations)."""
    from benchmarks.naive_crawler import naive_crawl

    before = len(gh.log)
    with tempfile.TemporaryDirectory() as tmp:
        result = naive_crawl(gh.api_url, TOKEN, repo, Path(tmp), deadline=time.time() + seconds)
    violations = sum(r.violation for r in gh.log[before:])
    return result.requests, result.planned, result.seconds, result.finished, violations


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=None, help="only the first N items of the archive")
    parser.add_argument("--core-limit", type=int, default=100, help="compressed limit: requests per window")
    parser.add_argument("--window", type=float, default=20.0, help="compressed window length in seconds")
    parser.add_argument("--naive-seconds", type=float, default=60.0, help="sample length of the naive crawler under the limit")
    args = parser.parse_args(argv)
    if not (ARCHIVE / "main.jsonl.gz").exists():
        print(f"skipped: the rust issue archive is absent ({ARCHIVE})")
        return 0
    from issues_sts.fakegh.rust import load_rust_archive

    print(f"loading {ARCHIVE} ...", flush=True)
    corpus = load_rust_archive(ARCHIVE, limit=args.limit)
    repo = next(iter(corpus.repos))
    bound = corpus.lower_bound_requests()
    print(f"{repo}: {corpus.total_items()} items, {corpus.total_comments()} comments; lower bound {bound} requests")

    unlimited = FakeSettings(tokens=frozenset({TOKEN}), rate_limit={"core": 10**9, "graphql": 10**9})
    with FakeGitHub(corpus, unlimited) as gh:
        ours_req, ours_gql, ours_free, _ = run_ours(gh, repo)
        made, naive_req, naive_wall, naive_done, _ = run_naive(gh, repo, args.naive_seconds)
    naive_free = naive_wall if naive_done else naive_wall * naive_req / max(1, made)
    limited = FakeSettings(tokens=frozenset({TOKEN}), rate_limit={"core": args.core_limit, "graphql": 5000},
                           reset_seconds=args.window)
    with FakeGitHub(corpus, limited) as gh:
        req, _, wall, start = run_ours(gh, repo)
        ours_implied = window_implied(req, args.core_limit, args.window, start)
        ours_violations = gh.stats()["violations"]
    with FakeGitHub(corpus, limited) as gh:
        made, _, sample_wall, finished, naive_violations = run_naive(gh, repo, args.naive_seconds)
    naive_projected = sample_wall if finished else sample_wall * naive_req / max(1, made)
    naive_implied = window_implied(naive_req, args.core_limit, args.window, 0.0)
    print()
    print(f"{'':34}{'issues-sts crawl':>20}{'naive per-issue':>20}")
    print(f"{'core requests':34}{ours_req:>20}{naive_req:>20}")
    print(f"{'  / lower bound ' + str(bound):34}{ours_req / bound:>20.4f}{naive_req / bound:>20.2f}")
    print(f"{'graphql requests (candidates)':34}{ours_gql:>20}{0:>20}")
    proj = "" if naive_done else " (proj.)"
    print(f"{'wall s, no limit':34}{ours_free:>20.1f}{f'{naive_free:.0f}{proj}':>20}")
    label = f"wall s, {args.core_limit} req/{args.window:g} s"
    naive_shown = f"{naive_projected:.0f}" + ("" if finished else " (proj.)")
    print(f"{label:34}{wall:>20.1f}{naive_shown:>20}")
    print(f"{'  time the limit implies, s':34}{ours_implied:>20.1f}{naive_implied:>20.0f}")
    print(f"{'  / implied':34}{wall / max(ours_implied, 1e-9):>20.3f}{naive_projected / max(naive_implied, 1e-9):>20.3f}")
    print(f"{'requests inside a closed window':34}{ours_violations:>20}{naive_violations:>20}")
    print()
    print(f"targets: requests within 5 % of the bound: {'MET' if ours_req <= 1.05 * bound else 'MISSED'}; "
          f"wall within 10 % of the implied time: {'MET' if wall <= 1.10 * ours_implied else 'MISSED'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
