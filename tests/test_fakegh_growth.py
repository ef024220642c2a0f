"""World growth: deterministic, dated after everything the world held, ids kept unique; the
fake GitHub grows the world it serves on request (an endpoint, `fake-github --grow N`)."""

from __future__ import annotations

import socket
import sys
import time
from pathlib import Path

import httpx
import pytest

from issues_sts.sandbox.github.server import GROW_PATH, FakeGitHub
from issues_sts.sandbox.github.settings import FakeSettings
from issues_sts.sandbox.worlds.generator import generate_world, preset
from issues_sts.sandbox.worlds.growth import Growth, grow_world
from issues_sts.store import Store
from tests.crawl_support import crawl, small_world

FAKE = [sys.executable, "-m", "issues_sts.cli.app", "fake-github"]


def test_growth_is_deterministic_later_and_keeps_ids_unique() -> None:
    # a seed whose tiny world has two marked canonicals still open, which a merge needs
    worlds = [generate_world(preset("tiny", seed=2)) for _ in range(2)]
    before = max(i["updated_at"] for r in worlds[0].repos.values() for i in r.issues)
    old_repos = set(worlds[0].repos)
    reports = [
        grow_world(w, Growth(seed=2, new_issues=10, merges=1, new_repos=1, new_repo_issues=30))
        for w in worlds
    ]
    assert reports[0] == reports[1]
    assert [r.issues for r in worlds[0].repos.values()] == [
        r.issues for r in worlds[1].repos.values()
    ]
    corpus, report = worlds[0], reports[0]
    assert len(report.new_repos) == 1 and report.new_repos[0] not in old_repos
    comment_ids = [c["id"] for r in corpus.repos.values() for c in r.comments]
    assert len(comment_ids) == len(set(comment_ids))
    for repo, numbers in report.new_issues.items():
        data = corpus.repos[repo]
        assert len(numbers) == 10 and all(data.issue(n)["created_at"] > before for n in numbers)  # type: ignore[index]
    assert report.merges and report.duplicates
    for repo, number, target_repo, target in report.merges:
        item = corpus.repos[repo].issue(number)
        assert (
            item is not None and item["state_reason"] == "duplicate" and item["updated_at"] > before
        )
        assert corpus.repos[repo].duplicate_of[number] == (target_repo, target)
        assert any(f"#{target}" in c["body"] for c in corpus.repos[repo].comments_of(number))


def test_the_served_world_grows_on_request_and_a_recrawl_catches_up(tmp_path: Path) -> None:
    """What `curl -X POST .../_fake/grow` does by hand: a month more while serving, and an
    incremental crawl that fetches only it."""
    world = small_world(repos=1, issues=40)
    repo = next(iter(world.repos))
    with FakeGitHub(world) as gh:
        first = crawl(gh, tmp_path / "store", repos=(repo,))
        assert first.ok
        answer = httpx.post(gh.root_url + GROW_PATH)
        assert answer.status_code == 200
        grown = answer.json()
        assert grown["growths"] == 1 and grown["new_issues"][repo] > 0 and grown["new_repos"]
        assert httpx.get(gh.root_url + GROW_PATH).status_code == 405  # GET changes nothing
        second = crawl(gh, tmp_path / "store", repos=(repo,))
    assert second.ok and 0 < sum(r.issues for r in second.repos) < len(world.repos[repo].issues)
    with Store.open(tmp_path / "store") as store:
        known = store.known_numbers(repo)
    assert {int(i["number"]) for i in world.repos[repo].issues} <= known


def test_a_dropped_connection_is_no_traceback(capfd: pytest.CaptureFixture[str]) -> None:
    settings = FakeSettings(latency_base=0.3)  # the answer comes after the client has gone
    with FakeGitHub(small_world(repos=1, issues=5), settings) as gh:
        repo = next(iter(gh.corpus.repos))
        for _ in range(3):
            with socket.create_connection(("127.0.0.1", gh.port)) as sock:
                request = f"GET /repos/{repo}/issues HTTP/1.1\r\nHost: x\r\n\r\n"
                sock.sendall(request.encode())
                sock.setsockopt(
                    socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00"
                )
        time.sleep(0.8)  # the answers are written to closed sockets
    assert "Traceback" not in capfd.readouterr().err
