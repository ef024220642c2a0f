"""SIGKILL the crawler (a real subprocess) at random moments: the resumed crawl ends identical
to an uninterrupted one, refetches no completed page, and the token is in no file or log."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from issues_sts.sandbox.github.server import FakeGitHub
from tests.crawl_support import (
    assert_store_matches_corpus,
    crawl,
    crawl_command,
    small_world,
    snapshot,
)

SECRET = "ghp_kill-test-secret-0123456789"


@pytest.mark.slow
def test_sigkill_at_random_points_resumes_to_the_same_store(tmp_path: Path) -> None:
    corpus = small_world(seed=11, repos=2, issues=400)
    rng = random.Random(5)
    env = {**os.environ, "GITHUB_TOKEN": SECRET}
    outputs: list[bytes] = []
    kills = 0
    with FakeGitHub(corpus, _settings()) as gh:
        store = tmp_path / "killed"
        for attempt in range(6):
            log = tmp_path / f"run{attempt}.log"
            proc = subprocess.Popen(
                crawl_command(gh, store, "--log", str(log)),
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            if (
                attempt < 5
            ):  # kill after a random number of this run's requests: mid-page, mid-commit...
                kills += _kill_after(proc, gh, rng.randint(2, 40))
            out, err = proc.communicate(timeout=300)
            outputs += [out, err]
            if proc.returncode == 0:
                break
            assert proc.returncode == -signal.SIGKILL, err.decode()[-2000:]
        assert proc.returncode == 0, "the crawl never finished"
        assert kills >= 3, "the crawl finished before it could be killed; use a bigger world"
        log_records = list(gh.log)
        reference = tmp_path / "reference"
        crawl(gh, reference, per_page=10, token=SECRET)
    assert snapshot(store) == snapshot(reference)
    assert_store_matches_corpus(store, corpus, graphql=True)
    fetched = Counter(r.path for r in log_records if r.method == "GET" and r.status == 200)
    repeated = sum(n - 1 for path, n in fetched.items() if n > 1)
    assert repeated <= 2 * kills, f"{repeated} pages fetched twice over {kills} kills"
    _assert_secret_nowhere(tmp_path, outputs)


def _kill_after(proc: subprocess.Popen[bytes], gh: FakeGitHub, requests: int) -> int:
    """SIGKILL `proc` once the server saw `requests` more requests; 1 if it was killed."""
    target = len(gh.log) + requests
    while proc.poll() is None:
        if len(gh.log) >= target:
            proc.send_signal(signal.SIGKILL)
            return 1
        time.sleep(0.005)
    return 0


def _settings():
    from issues_sts.sandbox.github.settings import FakeSettings

    return FakeSettings(tokens=frozenset({SECRET}))


def _assert_secret_nowhere(root: Path, outputs: list[bytes]) -> None:
    needle = SECRET.encode()
    files = [p for p in root.rglob("*") if p.is_file()]
    assert any(p.suffix == ".log" and p.stat().st_size > 0 for p in files), "no log was written"
    for path in files:
        assert needle not in path.read_bytes(), f"the token leaked into {path}"
    for text in outputs:
        assert needle not in text
