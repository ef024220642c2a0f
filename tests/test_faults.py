"""Fault injection through the installed console script: what the network and the disk can do
to a crawl or a push, and what the user must see (exit status, one line, data intact).

Servers are real sockets on 127.0.0.1: the fake GitHub, the fake Hub, and raw TCP servers
that answer garbage or stall. The DNS failure happens at the resolver of the child process
(tests/fake_resolver), so no query leaves this machine. The full disk is a file-size limit
(RLIMIT_FSIZE) on the crawling process: SQLite then fails a write exactly as on a full disk.
"""

from __future__ import annotations

import os
import re
import resource
import signal
import sqlite3
import subprocess
from pathlib import Path

import pytest

from issues_sts.sandbox.github.server import FakeGitHub
from issues_sts.sandbox.github.settings import FakeSettings
from issues_sts.store import DB_NAME, Store
from tests.cli_process import Outcome, env, free_port, raw_server, run, script
from tests.crawl_support import TOKEN, small_world, snapshot

RESOLVER = str(Path(__file__).resolve().parent / "fake_resolver")
TLS_HELLO = bytes.fromhex("160303002a020000260303") + os.urandom(32) + b"\x00\x13\x01\x00"
STALLED_BODY = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n"
    b'{"id": 1, "full_name": "a/b", "descr'
)


def _crawl(api_url: str, store: Path, *extra: str, **env_extra: str) -> Outcome:
    pythonpath = os.pathsep.join(p for p in (RESOLVER, os.environ.get("PYTHONPATH", "")) if p)
    return run(
        [
            "crawl",
            "--quiet",
            "--timeout",
            "2",
            "--api-url",
            api_url,
            "--repo",
            "a/b",
            "--store",
            str(store),
            *extra,
        ],
        GITHUB_TOKEN=TOKEN,
        PYTHONPATH=pythonpath,
        **env_extra,
    )


def _assert_one_line(result: Outcome, *needles: str) -> str:
    errors = result.error_lines
    assert len(errors) == 1 and "Traceback" not in result.err, result.err[-3000:]
    for needle in needles:
        assert needle in errors[0], errors[0]
    assert TOKEN not in result.out + result.err
    return errors[0]


def _assert_store_intact(store: Path) -> None:
    with sqlite3.connect(store / DB_NAME) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    with Store.open(store) as db:
        db.repo_counts()


@pytest.mark.parametrize(
    ("name", "needle"),
    [
        ("connection refused", "Connection refused"),
        ("dns failure", "Name or service not known"),
        ("tls garbage", "cannot reach"),
        ("stall mid-body", "ReadTimeout"),
    ],
)
def test_an_unusable_server_fails_within_seconds_with_one_line(
    name: str, needle: str, tmp_path: Path
) -> None:
    store = tmp_path / "store"
    if name == "connection refused":
        result = _crawl(f"http://127.0.0.1:{free_port()}", store)
    elif name == "dns failure":
        result = _crawl("http://api.github.invalid", store)
    else:
        reply, stall = (TLS_HELLO, 0.0) if name == "tls garbage" else (STALLED_BODY, 30.0)
        with raw_server(reply, stall=stall) as url:
            result = _crawl(url, store)
    assert result.code == 4
    _assert_one_line(result, needle)
    assert result.seconds < 60
    _assert_store_intact(store)


@pytest.mark.slow
def test_a_minute_of_500s_is_waited_out_and_announced(tmp_path: Path) -> None:
    world = small_world(repos=1, issues=60)
    with FakeGitHub(world) as clean:
        reference = tmp_path / "reference"
        assert (
            run(
                [
                    "crawl",
                    "--quiet",
                    "--api-url",
                    clean.api_url,
                    "--repo",
                    next(iter(world.repos)),
                    "--store",
                    str(reference),
                ],
                GITHUB_TOKEN=TOKEN,
            ).code
            == 0
        )
    with FakeGitHub(world, FakeSettings(outage_seconds=60)) as gh:
        result = run(
            [
                "crawl",
                "--quiet",
                "--api-url",
                gh.api_url,
                "--repo",
                next(iter(world.repos)),
                "--store",
                str(tmp_path / "store"),
            ],
            GITHUB_TOKEN=TOKEN,
            timeout=400,
        )
    assert result.code == 0, result.err[-2000:]
    # off a terminal every line of progress and every notice starts with its time
    lines = [re.sub(r"^\[\d\d:\d\d:\d\d\] ", "", line) for line in result.err.splitlines()]
    retries = [line for line in lines if line.startswith("retrying:")]
    assert retries and all("500" in line and "attempt" in line for line in retries)
    assert snapshot(tmp_path / "store") == snapshot(reference)


def _limited(max_bytes: int) -> None:
    def preexec() -> None:
        signal.signal(
            signal.SIGXFSZ, signal.SIG_IGN
        )  # a write past the limit fails instead of killing us
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, max_bytes))

    return preexec  # type: ignore[return-value]


def test_a_full_disk_keeps_the_store_consistent_and_the_crawl_resumes(tmp_path: Path) -> None:
    world = small_world(repos=1, issues=300)
    repo = next(iter(world.repos))
    with FakeGitHub(world) as gh:
        args = ["crawl", "--quiet", "--per-page", "20", "--api-url", gh.api_url, "--repo", repo]
        reference = tmp_path / "reference"
        assert run([*args, "--store", str(reference)], GITHUB_TOKEN=TOKEN).code == 0
        full_size = sum(p.stat().st_size for p in reference.iterdir())
        store = tmp_path / "store"
        done = subprocess.run(
            [script(), *args, "--store", str(store)],
            capture_output=True,
            text=True,
            timeout=240,
            env=env(GITHUB_TOKEN=TOKEN),
            preexec_fn=_limited(full_size // 3),
        )
        line = _assert_one_line(
            Outcome(done.returncode, done.stdout, done.stderr, 0.0),
            "could not be written",
            "disk",
            "full",
        )
        assert done.returncode == 3 and "run the same command again" in line
        _assert_store_intact(store)
        with Store.open(store) as db:
            partial = db.repo_counts()[0]
        assert partial["issues"] + partial["comments"] > 0  # some pages were committed before
        resumed = run(
            [*args, "--store", str(store)], GITHUB_TOKEN=TOKEN
        )  # space freed: the limit is gone
    assert resumed.code == 0, resumed.err[-2000:]
    assert snapshot(store) == snapshot(reference)


def test_push_to_a_hub_that_answers_garbage_is_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "not-needed"
    from tests.dataset_store import make_store

    built = tmp_path / "ds"
    assert (
        run(
            ["build", "--quiet", "--store", str(make_store(tmp_path / "s")), "--out", str(built)]
        ).code
        == 0
    )
    with raw_server(TLS_HELLO) as url:
        result = run(
            ["push", "--repo-id", "me/ds", "--dataset", str(built)],
            HF_ENDPOINT=url,
            HF_TOKEN="hf_" + "z" * 30,
            HF_HUB_OFFLINE="0",
            HF_HOME=str(tmp_path / "hf"),
        )
    assert result.code == 7
    _assert_one_line(result, "cannot reach the Hub")
    assert not folder.exists()
