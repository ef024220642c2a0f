"""Crawl benchmarks: the rust-lang/rust archive, and the paper-scale world with GitHub's limits.

    .venv/bin/python -m benchmarks.crawl [--limit N] [--core-limit 100] [--window 5]
    .venv/bin/python -m benchmarks.crawl --world paper --scale 0.05 [--speedup 20]
    .venv/bin/python -m benchmarks.crawl --world paper --scale 0.05 --kill 3

Paper world (`--world paper`): the 55 repositories of repos.yaml at `--scale` of their sizes,
served by a fake GitHub with GitHub's documented limits and a latency that grows with the
answer's size (`sandbox.github.settings.github_like`), on a clock `--speedup` times faster. Prints
REST requests and GraphQL points against their lower bounds, the wall time against the least
time the limits imply for what was asked (both buckets, per-minute CPU time), requests inside
limit windows, the `crawl --plan` projection against what was measured, and the projection
for the 55 repositories at scale 1.0 with one token.

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

from benchmarks.report import terminal_reporter
from issues_sts.annotations.archives import ARCHIVES
from issues_sts.crawl import CrawlConfig, PacingConfig, run_crawl
from issues_sts.sandbox.github.server import FakeGitHub
from issues_sts.sandbox.github.settings import FakeSettings

ROOT = Path(__file__).resolve().parents[1]
ARCHIVE = ARCHIVES["rust"].path
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
        cfg = CrawlConfig(
            repos=(repo,),
            token=SecretStr(TOKEN),
            api_url=gh.api_url,
            store=Path(tmp),
            pacing=PACING,
        )
        start = time.time()
        summary = run_crawl(cfg, reporter=terminal_reporter())
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


def paper(scale: float, speedup: float, seed: int) -> int:
    """The paper-scale world under GitHub's limits (see the module docstring)."""
    from issues_sts.crawl.plan import Assumptions, hours, plan_crawl
    from issues_sts.sandbox.github.settings import github_like
    from issues_sts.sandbox.worlds.paper import PaperConfig, generate_paper_world

    started = time.time()
    corpus = generate_paper_world(PaperConfig(seed=seed, scale=scale))
    repos = tuple(corpus.repos)
    threads = {
        n: [i["comments"] for i in r.issues if "pull_request" not in i and i["comments"] > 0]
        for n, r in corpus.repos.items()
    }
    rest_bound = sum(1 + math.ceil(len(r.issues) / 100) for r in corpus.repos.values())
    thread_bound = sum(
        math.ceil(sum(math.ceil(c / 100) for c in t) / 100) for t in threads.values()
    )
    print(
        f"paper world at scale {scale}: {len(repos)} repositories, {corpus.total_items():,} issues "
        f"and PRs, {corpus.total_comments():,} comments ({sum(len(t) for t in threads.values()):,} "
        f"issues with comments); generated in {time.time() - started:.0f} s",
        flush=True,
    )
    settings = github_like(speedup, tokens=frozenset({TOKEN}))
    pacing = PacingConfig().scaled(speedup)
    a = Assumptions()
    with tempfile.TemporaryDirectory() as tmp, FakeGitHub(corpus, settings) as gh:
        cfg = CrawlConfig(
            repos=repos, token=SecretStr(TOKEN), api_url=gh.api_url, store=Path(tmp), pacing=pacing
        )
        plan = plan_crawl(cfg)
        asked = len(gh.log)
        start = time.time()
        summary = run_crawl(cfg, reporter=terminal_reporter())
        wall = time.time() - start
        records = gh.log[asked:]
        stats = gh.stats()
    if not summary.ok:
        raise SystemExit(f"the crawl did not finish: {summary.stopped}")
    rest = sum(1 for r in records if r.counted and r.bucket == "core")
    points = sum(r.cost for r in records if r.counted and r.bucket == "graphql")
    seconds = sum(r.seconds for r in records)
    gql_seconds = sum(r.seconds for r in records if r.bucket == "graphql")
    candidates = sum(r.candidates for r in summary.repos)
    point_bound = thread_bound + math.ceil(candidates / 100)
    window = 3600 / speedup
    # least wall time: each bucket's primary windows, and the response time allowed a minute
    minimum = max(
        window_implied(rest, a.rest_per_hour, window, 0.0),
        window_implied(points, a.points_per_hour, window, 0.0),
        seconds / (a.cpu_per_minute / 60),
        gql_seconds / (a.graphql_cpu_per_minute / 60),
    )
    factor = 1 / scale
    # Scale 1.0: what grows with the items grows by 1/scale; what each repository costs once
    # (GET /repos, the list's confirming last page, a candidate batch) stays per repository.
    n = len(repos)
    pages = {name: math.ceil(len(r.issues) / 100) for name, r in corpus.repos.items()}
    pages_1 = sum(math.ceil(len(r.issues) * factor / 100) for r in corpus.repos.values())
    probes = max(0, rest - 2 * n - sum(pages.values()))
    rest_1 = 2 * n + pages_1 + probes * factor
    thread_points = sum(r.thread_points for r in summary.repos)
    thread_pages = {name: sum(math.ceil(c / 100) for c in t) for name, t in threads.items()}
    batching = thread_points / max(
        1, thread_bound
    )  # measured points per ideal (100 issues a point)
    points_1 = sum(math.ceil(p * factor / 100) for p in thread_pages.values()) * batching + sum(
        math.ceil(r.candidates * factor / 50) for r in summary.repos
    )
    # response time = base per answer + size part; the size part grows with the items
    base = settings.latency_base
    gql_requests = sum(1 for r in records if r.bucket == "graphql")
    rest_size_s = (seconds - gql_seconds - base * (len(records) - gql_requests)) * speedup * factor
    gql_size_s = (gql_seconds - base * gql_requests) * speedup * factor
    gql_seconds_1 = base * speedup * points_1 + gql_size_s
    seconds_1 = base * speedup * rest_1 + rest_size_s + gql_seconds_1
    limit_hours = hours(rest_1, points_1, seconds_1, gql_seconds_1, a)
    efficiency = wall / max(minimum, 1e-9)
    planned = plan.total()
    print()
    print(f"{'':44}{'measured':>14}{'lower bound':>14}{'ratio':>8}")
    print(f"{'REST requests':44}{rest:>14,}{rest_bound:>14,}{rest / rest_bound:>8.3f}")
    print(
        f"{'GraphQL points':44}{points:>14,}{point_bound:>14,}{points / max(1, point_bound):>8.3f}"
    )
    print(
        f"{'wall s (clock x' + format(speedup, 'g') + ')':44}"
        f"{wall:>14.1f}{minimum:>14.1f}{efficiency:>8.3f}"
    )
    print(f"{'  response s in all / GraphQL':44}{seconds:>14.1f}{gql_seconds:>14.1f}")
    mine = summary.response_seconds
    print(
        f"{'  the same, as the crawler measured them':44}"
        f"{sum(mine.values()):>14.1f}{mine.get('graphql', 0.0):>14.1f}"
    )
    # the crawler paces on its own response times (they include this harness's CPU time on a
    # loaded machine): the wall time against what those allow says whether it is limit-bound
    own = max(
        sum(mine.values()) / (a.cpu_per_minute / 60),
        mine.get("graphql", 0.0) / (a.graphql_cpu_per_minute / 60),
    )
    print(
        f"{'  wall s / least the crawler-measured times allow':44}"
        f"{wall:>14.1f}{own:>14.1f}{wall / max(own, 1e-9):>8.3f}"
    )
    print(f"{'requests inside limit windows':44}{stats['violations']:>14}")
    print(f"{'secondary limits tripped':44}{sum(stats['secondary_trips'].values()):>14}")
    print(f"{'most requests in flight':44}{stats['max_in_flight']:>14}")
    print(f"{'thread batches made smaller':44}{summary.graphql_shrinks:>14}")
    print()
    print(
        f"crawl --plan for this world: {planned.rest_requests:,} requests, "
        f"{planned.graphql_points:,} points ({plan.asked_requests} requests and "
        f"{plan.asked_points} points to ask); measured {rest:,} requests, {points:,} points"
    )
    print(
        f"projection for the 55 repositories at scale 1.0, one token: {rest_1:,.0f} REST requests "
        f"({rest_1 / a.rest_per_hour:.1f} h), {points_1:,.0f} points "
        f"({points_1 / a.points_per_hour:.1f} h), "
        f"{seconds_1 / 3600:,.1f} h of response time "
        f"({seconds_1 / 3600 / (a.cpu_per_minute / 60):.1f} h at "
        f"{a.cpu_per_minute:g} s a minute; GraphQL "
        f"{gql_seconds_1 / 3600 / (a.graphql_cpu_per_minute / 60):.1f} h)"
    )
    # Wall over the limits' minimum splits in two: the crawler's pacing over what its own
    # timings of the answers allow (its overhead, which github.com would see too), and those
    # timings over the latency model (this harness: the fake answers in this process, and its
    # CPU time reads `speedup` times longer on the compressed clock; not GitHub's).
    pacing = wall / max(own, 1e-9)
    harness = efficiency / pacing
    paced = limit_hours * pacing
    print(
        f"  -> {limit_hours:.1f} h as the limits allow; {paced:.1f} h with the crawler's pacing "
        f"overhead measured here (x{pacing:.2f}, wall / least its own answer timings allow); "
        f"target <= 12 h: {'MET' if limit_hours <= 12 else 'MISSED'} (limits), "
        f"{'MET' if paced <= 12 else 'MISSED'} (paced)"
    )
    print(
        f"     wall / the limits' minimum here: x{efficiency:.2f} = x{pacing:.2f} pacing times "
        f"x{harness:.2f} of this harness's own answer times over its latency model "
        f"({limit_hours * efficiency:.1f} h if github.com answered as slowly as this fake does)"
    )
    return 0


CRAWLER = """
import os, sys
from pathlib import Path
from pydantic import SecretStr
from issues_sts.crawl import CrawlConfig, PacingConfig, run_crawl
api, store, speedup, *repos = sys.argv[1:]
cfg = CrawlConfig(repos=tuple(repos), token=SecretStr(os.environ["GITHUB_TOKEN"]), api_url=api,
                  store=Path(store), pacing=PacingConfig().scaled(float(speedup)))
sys.exit(0 if run_crawl(cfg).ok else 1)
"""


def _peak_rss(pid: int) -> int:
    """Peak RSS of a running process in bytes (Linux VmHWM: of its own image, unlike the
    rusage of a child, which counts the parent's pages it was forked with)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def paper_kill(scale: float, speedup: float, seed: int, kills: int) -> int:
    """The crawler as a process of its own against the paper world: SIGKILLed `kills` times at
    random moments, run again until it completes; then the store is checked against the world
    (every issue and PR, every issue's comment, no row twice) and the pages fetched twice are
    counted. Prints the crawler's peak RSS (its own process: the fake GitHub runs here)."""
    import random
    import signal
    import subprocess

    from issues_sts.sandbox.github.settings import github_like
    from issues_sts.sandbox.worlds.paper import PaperConfig, generate_paper_world
    from issues_sts.store import Store

    corpus = generate_paper_world(PaperConfig(seed=seed, scale=scale))
    print(
        f"paper world at scale {scale}: {corpus.total_items():,} issues and PRs, "
        f"{corpus.total_comments():,} comments",
        flush=True,
    )
    rng = random.Random(seed)
    env = {**os.environ, "GITHUB_TOKEN": TOKEN, "PYTHONPATH": str(ROOT)}
    peaks: list[int] = []
    killed = 0
    started = time.time()
    with (
        tempfile.TemporaryDirectory() as tmp,
        FakeGitHub(corpus, github_like(speedup, tokens=frozenset({TOKEN}))) as gh,
    ):
        store = Path(tmp) / "store"
        repos = list(corpus.repos)
        # run_crawl in a process of its own, paced for the fake's compressed clock (the CLI paces
        # for github.com's); the token comes from the environment, as the CLI's does
        command = [sys.executable, "-c", CRAWLER, gh.api_url, str(store), str(speedup), *repos]
        expected_requests = None
        for attempt in range(kills + 3):
            proc = subprocess.Popen(
                command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
            )
            peak = 0
            if attempt < kills:
                # kill somewhere in the first 80 % of what is left (the world's pages as a guide)
                left = (
                    expected_requests or corpus.total_items() // 100 + corpus.total_items() // 200
                )
                target = len(gh.log) + rng.randint(
                    1, max(2, int(0.8 * left / max(1, kills - attempt)))
                )
                while proc.poll() is None and len(gh.log) < target:
                    peak = max(peak, _peak_rss(proc.pid))
                    time.sleep(0.01)
                if proc.poll() is None:
                    peak = max(peak, _peak_rss(proc.pid))
                    proc.send_signal(signal.SIGKILL)
                    killed += 1
            while proc.poll() is None:
                peak = max(peak, _peak_rss(proc.pid))
                time.sleep(0.2)
            peaks.append(peak)
            err = proc.stderr.read().decode() if proc.stderr else ""
            print(
                f"run {attempt + 1}: exit {proc.returncode}, {len(gh.log):,} requests so far, "
                f"peak RSS {peak / 2**20:.0f} MB",
                flush=True,
            )
            if proc.returncode == 0:
                break
            if proc.returncode != -signal.SIGKILL:
                raise SystemExit(f"the crawl failed: {err[-2000:]}")
        else:
            raise SystemExit("the crawl never finished")
        fetched: dict[str, int] = {}
        for r in gh.log:
            if r.method == "GET" and r.status == 200:
                fetched[r.path] = fetched.get(r.path, 0) + 1
        violations = gh.stats()["violations"]
        with Store.open(store) as db:
            issues = db.issue_keys_frame()
            comment_ids = db.comments_frame(columns=["id"])["id"].to_list()
    keys = {
        (r["repo"], r["number"])
        for r in issues.filter(issues["tombstone"].is_null()).iter_rows(named=True)
    }
    want = {(name, int(i["number"])) for name, repo in corpus.repos.items() for i in repo.issues}
    prs = {
        (name, int(i["number"]))
        for name, repo in corpus.repos.items()
        for i in repo.issues
        if "pull_request" in i
    }
    want_comments = {
        c["id"]
        for name, r in corpus.repos.items()
        for c in r.comments
        if (name, int(c["issue_url"].rsplit("/", 1)[1])) not in prs
    }
    twice = sum(n - 1 for n in fetched.values() if n > 1)
    same = (
        keys == want
        and set(comment_ids) == want_comments
        and len(comment_ids) == len(set(comment_ids))
    )
    print(
        f"{killed} SIGKILLs, {time.time() - started:.0f} s in all; "
        "store == world (issues and PRs, issue comments, "
        f"no row twice): {same} ({len(keys):,}/{len(want):,} items, "
        f"{len(comment_ids):,}/{len(want_comments):,} comments); "
        f"pages fetched twice: {twice}; requests inside limit windows: {violations}; "
        f"crawler peak RSS: {max(peaks) / 2**20:.0f} MB (largest of its runs)"
    )
    return 0 if same and violations == 0 else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--world", choices=("rust", "paper"), default="rust", help="which world to crawl"
    )
    parser.add_argument(
        "--scale", type=float, default=0.05, help="paper world: share of the real sizes"
    )
    parser.add_argument(
        "--speedup",
        type=float,
        default=20.0,
        help="paper world: how much faster the fake's clock runs",
    )
    parser.add_argument("--seed", type=int, default=0, help="paper world: generator seed")
    parser.add_argument(
        "--kill",
        type=int,
        default=0,
        metavar="K",
        help="paper world: run the crawler as a process, SIGKILL it K times, check the store",
    )
    parser.add_argument(
        "--limit", type=int, default=None, help="only the first N items of the archive"
    )
    parser.add_argument(
        "--rest-only", action="store_true", help="rust: only the crawl without GraphQL, by endpoint"
    )
    parser.add_argument(
        "--core-limit", type=int, default=100, help="compressed limit: requests per window"
    )
    parser.add_argument(
        "--window", type=float, default=20.0, help="compressed window length in seconds"
    )
    parser.add_argument(
        "--naive-seconds",
        type=float,
        default=60.0,
        help="sample length of the naive crawler under the limit",
    )
    args = parser.parse_args(argv)
    if args.world == "paper" and args.kill:
        return paper_kill(args.scale, args.speedup, args.seed, args.kill)
    if args.world == "paper":
        return paper(args.scale, args.speedup, args.seed)
    if not (ARCHIVE / "main.jsonl.gz").exists():
        print(f"skipped: the rust issue archive is absent ({ARCHIVE})")
        return 0
    from issues_sts.sandbox.worlds.rust import rust_corpus

    print(f"loading {ARCHIVE} ...", flush=True)
    corpus = rust_corpus(ARCHIVE, limit=args.limit)
    repo = next(iter(corpus.repos))
    bound = corpus.lower_bound_requests()
    print(
        f"{repo}: {corpus.total_items()} items, {corpus.total_comments()} comments; lower bound "
        f"{bound} requests"
    )

    if args.rest_only:
        with FakeGitHub(
            corpus,
            FakeSettings(tokens=frozenset({TOKEN}), rate_limit={"core": 10**9}, graphql=False),
        ) as gh:
            rest_only, _, _, _ = run_ours(gh, repo)
            endpoints = gh.stats()["by_endpoint"]
        print(
            f"without GraphQL (/graphql answers 404): {rest_only} requests = "
            f"{rest_only / bound:.3f}x the lower bound "
            f"(target <= 1.10x: {'MET' if rest_only <= 1.10 * bound else 'MISSED'}); {endpoints}"
        )
        return 0
    unlimited = FakeSettings(
        tokens=frozenset({TOKEN}), rate_limit={"core": 10**9, "graphql": 10**9}
    )
    with FakeGitHub(corpus, unlimited) as gh:
        ours_req, ours_gql, ours_free, _ = run_ours(gh, repo)
        points = gh.stats()["graphql_points"]
        made, naive_req, naive_wall, naive_done, _ = run_naive(gh, repo, args.naive_seconds)
    with FakeGitHub(
        corpus, FakeSettings(tokens=frozenset({TOKEN}), rate_limit={"core": 10**9}, graphql=False)
    ) as gh:
        rest_only, _, _, _ = run_ours(gh, repo)
    print(
        f"without GraphQL (/graphql answers 404): {rest_only} requests = "
        f"{rest_only / bound:.3f}x the lower bound "
        f"(target <= 1.10x: {'MET' if rest_only <= 1.10 * bound else 'MISSED'})"
    )
    print(
        f"with GraphQL: {ours_req} REST requests ({ours_req / bound:.3f}x the REST lower bound: "
        f"comments come per issue over GraphQL) + {points} GraphQL points"
    )
    naive_free = naive_wall if naive_done else naive_wall * naive_req / max(1, made)
    limited = FakeSettings(
        tokens=frozenset({TOKEN}),
        rate_limit={"core": args.core_limit, "graphql": 5000},
        reset_seconds=args.window,
    )
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
    print(
        f"{'  / lower bound ' + str(bound):34}{ours_req / bound:>20.4f}{naive_req / bound:>20.2f}"
    )
    print(f"{'graphql requests (candidates)':34}{ours_gql:>20}{0:>20}")
    proj = "" if naive_done else " (proj.)"
    print(f"{'wall s, no limit':34}{ours_free:>20.1f}{f'{naive_free:.0f}{proj}':>20}")
    label = f"wall s, {args.core_limit} req/{args.window:g} s"
    naive_shown = f"{naive_projected:.0f}" + ("" if finished else " (proj.)")
    print(f"{label:34}{wall:>20.1f}{naive_shown:>20}")
    print(f"{'  time the limit implies, s':34}{ours_implied:>20.1f}{naive_implied:>20.0f}")
    print(
        f"{'  / implied':34}{wall / max(ours_implied, 1e-9):>20.3f}"
        f"{naive_projected / max(naive_implied, 1e-9):>20.3f}"
    )
    print(f"{'requests inside a closed window':34}{ours_violations:>20}{naive_violations:>20}")
    print()
    print(
        "targets: requests within 5 % of the bound: "
        f"{'MET' if ours_req <= 1.05 * bound else 'MISSED'}; "
        "wall within 10 % of the implied time: "
        f"{'MET' if wall <= 1.10 * ours_implied else 'MISSED'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
