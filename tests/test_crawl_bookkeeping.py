"""A crawl's bookkeeping when it is stopped or shared: SIGTERM and SIGHUP (a closed terminal)
print the summary with what each repository spent and the resume line; `status` lists every
repository the crawl was asked for; a second crawl into a store in use is refused."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest

from issues_sts.sandbox.github.server import FakeGitHub
from issues_sts.sandbox.github.settings import FakeSettings
from issues_sts.store.lock import CrawlLock
from tests.cli_process import env, run, run_and_signal, script
from tests.crawl_support import TOKEN, crawl, small_world


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_stopped_crawl_keeps_its_books_and_says_how_to_resume(
    signum: int, tmp_path: Path
) -> None:
    settings = FakeSettings(unauthenticated_limit=4, reset_seconds=3600)
    log = tmp_path / "crawl.jsonl"
    with FakeGitHub(small_world(repos=1, issues=400), settings) as gh:
        repo = next(iter(gh.corpus.repos))
        args = ["crawl", "--api-url", gh.api_url, "--repo", repo, "--store", str(tmp_path / "s")]
        result, after = run_and_signal([*args, "--log", str(log)], "waiting", signum, timeout=120)
    name = signal.Signals(signum).name
    assert result.code == 143 and after < 15, result.err[-2000:]  # SIGHUP killed it silently
    assert f"terminated ({name}): " in result.err and "pages committed" in result.err
    assert "crawl summary" in result.out + result.err
    assert any(line.startswith("to resume:") for line in result.err.splitlines())
    events = [json.loads(line) for line in log.read_text().splitlines()]
    summary = next(e["data"] for e in events if e.get("event") == "summary")
    (row,) = summary["repos"]
    # it said `requests 0` and `seconds 0.0` although the run counted both
    assert summary["requests"] > 0 and row["requests"] == summary["requests"]
    assert row["seconds"] > 0 and row["status"] == "interrupted"


def test_a_second_crawl_into_a_store_in_use_is_refused_naming_the_holder(tmp_path: Path) -> None:
    settings = FakeSettings(unauthenticated_limit=4, reset_seconds=3600)
    store = tmp_path / "s"
    with FakeGitHub(small_world(repos=1, issues=400), settings) as gh:
        repo = next(iter(gh.corpus.repos))
        args = ["crawl", "--api-url", gh.api_url, "--repo", repo, "--store", str(store)]
        first = subprocess.Popen(
            [script(), *args],
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            env=env(),
            text=True,
        )
        try:
            assert first.stderr is not None
            for line in first.stderr:  # the first crawl waits for the rate limit, holding it
                if "waiting" in line:
                    break
            second = run(args)
        finally:
            first.kill()  # kill -9: no chance to release anything itself
            first.wait(timeout=30)
    assert second.code == 3, second.err  # both crawled one store without a word
    (line,) = second.error_lines
    assert f"is in use by another crawl (PID {first.pid})" in line and "run this command" in line
    CrawlLock(store).acquire().release()  # the kernel let go of the killed one's lock


def test_status_lists_every_repository_the_crawl_was_asked_for(tmp_path: Path) -> None:
    with FakeGitHub(small_world(repos=3, issues=60)) as gh:
        stopped = crawl(gh, tmp_path, max_requests=3, repos_at_once=1)
    assert stopped.stopped
    result = run(["status", "--store", str(tmp_path), "--json"])
    assert result.code == 0, result.err
    rows = {row["repo"]: row for row in json.loads(result.out)}
    assert set(rows) == set(gh.corpus.repos)  # it listed only the one started
    waiting = [row for row in rows.values() if row["status"] == "not started"]
    assert len(waiting) == 2 and all(row["issues"] == 0 for row in waiting)
    table = run(["status", "--store", str(tmp_path)])
    assert table.code == 0 and table.out.count("not started") == 2


def test_a_repository_given_to_repo_is_checked_there_not_in_repos_yaml(tmp_path: Path) -> None:
    with FakeGitHub(small_world(repos=1, issues=10)) as gh:
        args = ["crawl", "--api-url", gh.api_url, "--store", str(tmp_path / "s")]
        result = run([*args, "--repo", "nobody/nothing", "--token", TOKEN])
        listed = tmp_path / "list.yaml"
        listed.write_text("- nobody/nothing\n")
        from_file = run([*args, "--repos", str(listed), "--token", TOKEN])
    assert result.code == 4 and from_file.code == 4
    (line,) = result.error_lines
    assert "check the owner/name given to --repo" in line and "repos.yaml" not in line
    assert f"check the owner/name in {listed}" in from_file.error_lines[0]


@pytest.mark.parametrize("wrong", ["/api/v3", "/elsewhere"])
def test_a_wrong_api_url_is_named_instead_of_every_repository_missing(
    wrong: str, tmp_path: Path
) -> None:
    with FakeGitHub(small_world(repos=2, issues=10)) as gh:  # github.com-like: no /api/v3
        args = ["crawl", "--api-url", gh.root_url + wrong, "--store", str(tmp_path / "s")]
        result = run([*args, "--token", TOKEN])
        planned = run([*args, "--token", TOKEN, "--plan"])
    for outcome in (result, planned):
        assert outcome.code == 2, outcome.err  # exit 4, every repository "missing"
        (line,) = outcome.error_lines
        assert f"--api-url {gh.root_url + wrong} is not a GitHub REST API root" in line
        assert "https://HOST/api/v3" in line and "repos.yaml" not in line


def test_a_repository_missing_on_a_real_api_root_is_still_missing(tmp_path: Path) -> None:
    with FakeGitHub(small_world(repos=1, issues=10), FakeSettings(enterprise=True)) as gh:
        result = run(
            ["crawl", "--api-url", gh.api_url, "--store", str(tmp_path), "--repo", "no/such"]
            + ["--token", TOKEN]
        )
    assert result.code == 4 and "no/such does not exist" in result.error_lines[0]
