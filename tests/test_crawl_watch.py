"""A crawl a person can watch: run as `issues-sts crawl > log 2>&1` (nohup, a scheduler), the
log shows a line within seconds and then at a steady pace, also while every request waits for
a rate limit; `--log` holds JSON lines; without a token the cost of that is said before the
first request; the summary counts the waiting that really happened.

The long-wait test runs a real subprocess against the fake GitHub with a rate-limit window of
a few seconds (the accelerated clock) and `--progress-every 1` (the pace, scaled down from 30 s).
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest
from rich.console import Console

from issues_sts.cli.report import LineReporter, RichReporter
from issues_sts.crawl.announce import WaitAnnouncer
from issues_sts.crawl.pacing import BucketState
from issues_sts.crawl.plan import Plan, RepoPlan
from issues_sts.crawl.progress import CrawlProgress, Projection, eta_seconds
from issues_sts.report import SilentReporter
from issues_sts.sandbox.github.server import FakeGitHub
from issues_sts.sandbox.github.settings import FakeSettings
from tests.cli_process import env, run, script
from tests.crawl_support import small_world

STAMP = re.compile(r"^\[\d\d:\d\d:\d\d\] ")
RESET = 6.0  # seconds of the fake's rate-limit window: the crawl must wait for it


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Recorder(SilentReporter):
    """A Reporter that writes down what it was told."""

    def __init__(self) -> None:
        self.events: list[tuple[str, object]] = []

    def stage(self, name: str, total: int | None = None) -> None:
        self.events.append(("stage", name))

    def advance(self, steps: int = 1, *, note: str | None = None, **kw: object) -> None:
        self.events.append(("milestone" if kw.get("milestone") else "advance", note))

    def notice(self, text: str) -> None:
        self.events.append(("notice", text))


@pytest.fixture(scope="module")
def limited() -> Iterator[FakeGitHub]:
    """Anonymous clients get 5 requests a window of RESET seconds: a crawl of 300 issues
    without a token waits for the window more than once."""
    settings = FakeSettings(unauthenticated_limit=5, reset_seconds=RESET)
    with FakeGitHub(small_world(repos=1, issues=300), settings) as gh:
        yield gh


def _follow(args: list[str], log: Path) -> tuple[int, list[tuple[float, str]]]:
    """Run the console script with stdout and stderr into `log`, the way `> log 2>&1` does, and
    note when each line first appeared in the file (seconds after the start)."""
    seen: list[tuple[float, str]] = []
    with log.open("w") as sink:
        started = time.monotonic()
        # as a user's shell starts it: buffered output, so only our own flushing shows lines
        plain = {k: v for k, v in env().items() if k != "PYTHONUNBUFFERED"}
        proc = subprocess.Popen(
            [script(), *args], stdout=sink, stderr=subprocess.STDOUT, env=plain, text=True
        )
        done = threading.Event()

        def watch() -> None:
            count = 0
            while not done.is_set():
                lines = log.read_text().splitlines()
                for line in lines[count:]:
                    seen.append((time.monotonic() - started, line))
                count = len(lines)
                done.wait(0.1)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        code = proc.wait(timeout=300)
        time.sleep(0.3)
        done.set()
        watcher.join()
    lines = log.read_text().splitlines()
    seen += [(time.monotonic() - started, line) for line in lines[len(seen) :]]
    return code, seen


def test_a_crawl_into_a_log_file_shows_lines_at_a_steady_pace_through_its_waits(
    limited: FakeGitHub, tmp_path: Path
) -> None:
    repo = next(iter(limited.corpus.repos))
    args = ["crawl", "--api-url", limited.api_url, "--repo", repo, "--store", str(tmp_path / "s")]
    planned = run([*args, "--plan"])  # sizes it: the crawl's lines then carry an ETA
    assert planned.code == 0 and "no token" in planned.err and "the plan's" in planned.err
    time.sleep(RESET)  # a fresh window for the crawl
    code, seen = _follow(
        [*args, "--progress-every", "1", "--log", str(tmp_path / "crawl.jsonl")],
        tmp_path / "crawl.log",
    )
    text = "\n".join(line for _, line in seen)
    assert code == 0, text[-3000:]

    # before the first request: what crawling without a token costs, with the plan's hours
    first = seen[0][1]
    assert first.startswith("no token: GitHub allows 60 requests an hour")
    assert "the plan's" in first and " h (" in first and "--token" in first
    assert seen[0][0] < 30  # within the first minute, whatever the machine's load

    progress = [
        (t, line) for t, line in seen if STAMP.match(line) and "crawl (repositories)" in line
    ]
    assert any(f"started {repo}" in line for _, line in progress)
    assert any(f"{repo}: ok" in line for _, line in progress)
    assert all("ETA " in line and "planned requests+points" in line for _, line in progress[1:])
    waits = [line for _, line in seen if "waiting" in line and "rate limit, until" in line]
    assert waits, text[-3000:]
    # the pace: a line at least every second or so from the first to the last progress line,
    # waits included (slack for a busy 2-core machine)
    times = [t for t, _ in progress]
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert len(progress) >= RESET and max(gaps) < 4, gaps

    # the summary counts the waiting that happened (it said 0.0 s after a 45 s wait)
    waited = float(re.search(r"([\d.]+) s waiting for rate limits", text).group(1))  # type: ignore[union-attr]
    assert waited >= RESET / 2

    events = [json.loads(line) for line in (tmp_path / "crawl.jsonl").read_text().splitlines()]
    kinds = {e.get("event") for e in events}
    assert {"progress", "wait", "summary"} <= kinds
    summary = next(e for e in events if e.get("event") == "summary")["data"]
    assert summary["ok"] and summary["waited_seconds"] == pytest.approx(waited, abs=0.06)
    starts = [e["data"] for e in events if e.get("event") == "progress"]
    assert starts[0]["repos_left"] == 1 and starts[-1]["repos_done"] == 1
    assert starts[0]["repos_not_started"] == 0  # the one repository is under way
    assert all("eta_seconds" in d and d["planned"] > 0 for d in starts)
    # the JSON log keeps the stderr line's pace through the waits (it had only each
    # repository's start and end: nothing during a 49 s wait)
    stamps = [_seconds(e["time"]) for e in events if e.get("event") == "progress"]
    json_gaps = [b - a for a, b in zip(stamps, stamps[1:], strict=False)]
    assert len(stamps) >= RESET and max(json_gaps) < 4, json_gaps


def _seconds(stamp: str) -> float:
    """A JSON log's `time` (UTC, milliseconds) as seconds since the epoch."""
    moment = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    return moment.timestamp()


def test_line_reporter_keeps_its_pace_and_milestones() -> None:
    clock = Clock()
    lines: list[str] = []

    class Console:
        def print(self, text: str, **_: object) -> None:
            lines.append(STAMP.sub("", text))

    reporter = LineReporter(Console(), every=30, clock=clock)  # type: ignore[arg-type]
    reporter.stage("crawl (repositories)", total=2)
    reporter.advance(0, note="started a/b", milestone=True)
    clock.now += 10
    reporter.advance(0, note="a page")  # too soon: no line
    clock.now += 25
    reporter.advance(0, note="a later page")  # 35 s since the last line
    reporter.notice("waiting 60 s for the core rate limit")
    reporter.advance(1, note="a/b: ok", milestone=True)
    assert lines == [
        "crawl (repositories) (2)",
        "crawl (repositories) 0/2: started a/b",
        "crawl (repositories) 0/2: a later page",
        "waiting 60 s for the core rate limit",
        "crawl (repositories) 1/2: a/b: ok",
    ]
    lines.clear()
    quiet = LineReporter(Console(), quiet=True, every=30, clock=clock)  # type: ignore[arg-type]
    quiet.stage("crawl", total=1)
    quiet.advance(1, note="done", milestone=True)
    quiet.notice("retrying: 502")
    assert lines == ["retrying: 502"]


def test_the_heartbeat_refreshes_the_line_while_nothing_moves() -> None:
    recorder = Recorder()
    progress = CrawlProgress(recorder, 2, every=0.05)
    with progress:
        progress.start("a/b")
        time.sleep(0.5)  # no page arrives: a rate-limit wait
    beats = [e for e in recorder.events if e[0] == "advance"]
    assert len(beats) >= 3 and all("under way: a/b" in str(note) for _, note in beats)


@pytest.mark.parametrize(
    ("cost", "hours", "spent", "elapsed", "expected"),
    [
        (1000, 2.0, 0, 0.0, 7200.0),  # nothing spent: the plan's hours
        (1000, 2.0, 250, 30.0, 5400.0),  # before a minute: the plan's hours for what is left
        (1000, 2.0, 250, 600.0, 1800.0),  # this run's pace: 600 s for a quarter
        (1000, 2.0, 5000, 600.0, 600.0 * 0.01 / 0.99),  # spent more than planned: nearly done
    ],
)
def test_eta(cost: int, hours: float, spent: int, elapsed: float, expected: float) -> None:
    assert eta_seconds(Projection(cost, hours), spent, elapsed) == pytest.approx(expected)


def test_projection_comes_from_a_first_crawls_plan() -> None:
    plan = Plan([RepoPlan("a/b", 1000, 800, 4000, 11, 3, 20.0, 5.0)], graphql=True)
    assert Projection.of(None, anonymous=False) is None
    assert Projection.of(plan, anonymous=False) == Projection(
        14, plan.total().hours(plan.assumptions)
    )
    anonymous = Projection.of(plan, anonymous=True)
    assert anonymous is not None and anonymous.cost == plan.anonymous_requests() > 11
    assert anonymous.hours == pytest.approx(anonymous.cost / 60)
    plan.compared = "planned ...; spent ..."  # a complete crawl followed: re-crawls are cheaper
    assert Projection.of(plan, anonymous=False) is None


def test_a_long_wait_says_why_until_when_and_what_shortens_it() -> None:
    clock = Clock()
    recorder = Recorder()
    spent = BucketState(limit=5000, remaining=0)
    announce = WaitAnnouncer(recorder, clock, 2.0, anonymous=False, state=lambda _: spent)
    announce("core", 3299)
    (kind, text), *_ = recorder.events
    assert kind == "notice" and "waiting 55 min for the core rate limit, until" in str(text)
    assert "this hour's 5,000 core requests are spent" in str(text)
    assert "Ctrl-C" in str(text) and "resumes" in str(text)
    recorder.events.clear()
    # no token, one request left and in flight: the hour is spent, no secondary limit was
    # hit (it said both "core rate limit" and "a secondary rate limit")
    one_left = BucketState(limit=60, remaining=1, reset=clock.now + 3299)
    WaitAnnouncer(recorder, clock, 2.0, anonymous=True, state=lambda _: one_left)("core", 3299)
    assert "this hour's 60 core requests are spent" in str(recorder.events[-1][1])
    assert "secondary" not in str(recorder.events[-1][1])
    slowed = BucketState(limit=60, remaining=30, paused_until=clock.now + 400, secondary_hits=1)
    WaitAnnouncer(recorder, clock, 2.0, anonymous=True, state=lambda _: slowed)("core", 400)
    assert "a secondary rate limit" in str(recorder.events[-1][1])
    recorder.events.clear()
    WaitAnnouncer(recorder, clock, 2.0, anonymous=True)("core", 3299)
    assert "60 requests an hour" in str(recorder.events[0][1])
    assert "--token" in str(recorder.events[0][1])
    recorder.events.clear()
    WaitAnnouncer(recorder, clock, 2.0, anonymous=False)("core", 45)  # short: the time only
    assert recorder.events == [("notice", recorder.events[0][1])]
    assert "waiting 45 s" in str(recorder.events[0][1]) and "Ctrl-C" not in str(
        recorder.events[0][1]
    )


@pytest.mark.parametrize("width", [80, 120])
def test_the_crawl_bar_keeps_its_eta_and_budget_on_a_narrow_terminal(width: int) -> None:
    """At 120 columns the bar was cut to "crawl (reposit… … ETA unknown (`issues-sts craw…"."""
    sink = io.StringIO()
    console = Console(file=sink, width=width, force_terminal=True, color_system=None)
    reporter = RichReporter(console)
    progress = CrawlProgress(reporter, 5, projection=Projection(1000, 2.0), spent=lambda: 250)
    with reporter:
        progress.start("rust-lang/rust")
        progress.page("rust-lang/rust", "issues", 100, 3, "4,321 (--max-requests: 900 left)")
    last = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", sink.getvalue()).split("\r")[-1]
    drawn = " ".join(last.split())
    assert all(len(line) <= width for line in last.splitlines())
    assert "ETA 1.5 h" in drawn and "budget 4,321 (--max-requests: 900 left)" in drawn
    assert "crawl (repositories)" in drawn and "4 not started" in drawn and "…" not in drawn
