"""64-bit ids and the completeness invariant: no comment is lost on GraphQL as github.com
serves it today (comment ids above 2^31 since 2024, `databaseId` a 32-bit Int)."""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path

import httpx
import pytest

from issues_sts.cli.app import main
from issues_sts.crawl.threads import node_id_of, rest_login
from issues_sts.sandbox.github.server import FakeGitHub
from issues_sts.sandbox.github.settings import FakeSettings
from issues_sts.store import Store
from tests.crawl_support import TOKEN, crawl, small_world

INT_MAX = 2**31 - 1


def served_comment_ids(corpus, *, issues_only: bool = True) -> set[int]:
    return {
        int(c["id"])
        for repo in corpus.repos.values()
        for c in repo.comments
        if not issues_only
        or "pull_request" not in (repo.issue(int(c["issue_url"].rsplit("/", 1)[1])) or {})
    }


def stored_comment_ids(store: Path) -> set[int]:
    with Store.open(store) as db:
        return set(db.comments_frame()["id"].to_list())


def test_the_generated_world_hands_out_ids_as_github_does() -> None:
    corpus = small_world(seed=1, repos=2, issues=200)
    comments = [c for r in corpus.repos.values() for c in r.comments]
    recent = [int(c["id"]) for c in comments if c["created_at"] >= "2024-03"]
    old = [int(c["id"]) for c in comments if c["created_at"] < "2023-06"]
    assert recent and old
    assert min(recent) > INT_MAX >= max(old)  # the 32-bit limit passed in early 2024
    assert len({int(c["id"]) for c in comments}) == len(comments)
    events = [e for r in corpus.repos.values() for t in r.timeline.values() for e in t]
    assert len({e["id"] for e in events}) == len(events)


def test_databaseid_fails_above_two_to_the_31_and_fulldatabaseid_carries_it() -> None:
    corpus = small_world(seed=1, repos=1, issues=200)
    repo = next(iter(corpus.repos.values()))
    big = next(
        c
        for c in repo.comments
        if int(c["id"]) > INT_MAX
        and "pull_request" not in (repo.issue(int(c["issue_url"].rsplit("/", 1)[1])) or {})
    )
    number = int(big["issue_url"].rsplit("/", 1)[1])
    query = (
        "query($o: String!, $n: String!) { repository(owner: $o, name: $n) { "
        f"issue(number: {number}) {{ comments(first: 100) {{ nodes {{ databaseId "
        "fullDatabaseId } } } } }"
    )
    with FakeGitHub(corpus, FakeSettings(graphql_schema_check=True)) as gh:
        answer = httpx.post(
            gh.graphql_url,
            json={"query": query, "variables": {"o": repo.owner, "n": repo.name}},
            headers={"Authorization": f"bearer {TOKEN}"},
        ).json()
    nodes = answer["data"]["repository"]["issue"]["comments"]["nodes"]
    node = next(n for n in nodes if n["fullDatabaseId"] == str(big["id"]))
    assert node["databaseId"] is None
    assert any("32-bit" in e["message"] for e in answer["errors"])


def test_graphql_crawl_keeps_every_comment_above_two_to_the_31(tmp_path: Path) -> None:
    corpus = small_world(seed=2, repos=2, issues=200)
    want = served_comment_ids(corpus)
    assert sum(i > INT_MAX for i in want) > 50
    with FakeGitHub(corpus, FakeSettings(graphql_schema_check=True)) as gh:
        summary = crawl(gh, tmp_path / "s")
    assert summary.ok and summary.graphql_used
    assert stored_comment_ids(tmp_path / "s") == want
    with Store.open(tmp_path / "s") as db:
        assert db.gaps() == []
        assert all(r["lost_threads"] == 0 and r["status"] == "ok" for r in db.repo_counts())


def test_a_server_without_full_ids_is_read_again_over_rest(tmp_path: Path) -> None:
    """GraphQL gives comments it cannot key (fullDatabaseId null): each such thread is a gap,
    read again issue by issue over REST, and the crawl ends whole."""
    corpus = small_world(seed=2, repos=1, issues=150)
    want = served_comment_ids(corpus)
    with FakeGitHub(corpus, FakeSettings(graphql_full_ids=False)) as gh:
        summary = crawl(gh, tmp_path / "s")
        rest_threads = [r for r in gh.log if re.search(r"/issues/\d+/comments", r.path)]
    assert summary.ok
    assert sum(r.gaps for r in summary.repos) > 0 and rest_threads
    assert stored_comment_ids(tmp_path / "s") == want
    with Store.open(tmp_path / "s") as db:
        assert db.gaps() == []


def test_a_crawl_that_cannot_store_a_thread_says_so_and_never_ends_ok(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = small_world(seed=2, repos=1, issues=120)
    settings = FakeSettings(graphql_full_ids=False, issue_comments=False)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    store = tmp_path / "s"
    with FakeGitHub(corpus, settings) as gh:
        summary = crawl(gh, store)
        assert not summary.ok and summary.lossy
        argv = ["crawl", "--repo", *corpus.repos, "--api-url", gh.api_url, "--store", str(store)]
        try:
            main([*argv, "--quiet"])
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
    err = capsys.readouterr().err
    assert code == 4
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "lost" in lines[0] and "comments" in lines[0]
    with Store.open(store) as db:
        counts = db.repo_counts()
        gaps = db.gaps()
    assert counts[0]["status"] == "lossy"
    assert counts[0]["lost_threads"] == len(gaps) > 0
    assert counts[0]["lost_comments"] == sum(g.expected - g.got for g in gaps) > 0
    with contextlib.suppress(SystemExit):
        main(["status", "--store", str(store), "--json"])
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["lost_comments"] == counts[0]["lost_comments"]


def test_a_resumed_crawl_closes_the_gaps_once_rest_answers(tmp_path: Path) -> None:
    corpus = small_world(seed=2, repos=1, issues=120)
    with FakeGitHub(corpus, FakeSettings(graphql_full_ids=False, issue_comments=False)) as gh:
        assert crawl(gh, tmp_path / "s").lossy
    with FakeGitHub(corpus, FakeSettings(graphql_full_ids=False)) as gh:
        assert crawl(gh, tmp_path / "s").ok
    assert stored_comment_ids(tmp_path / "s") == served_comment_ids(corpus)
    with Store.open(tmp_path / "s") as db:
        assert db.gaps() == [] and db.repo_counts()[0]["status"] == "ok"


@pytest.mark.parametrize(
    ("node", "expected"),
    [
        ({"fullDatabaseId": "3704504455", "databaseId": None}, 3704504455),
        ({"fullDatabaseId": None, "databaseId": 12}, 12),
        ({"databaseId": 12}, 12),
        ({"fullDatabaseId": None, "databaseId": None}, None),
        ({}, None),
    ],
)
def test_node_ids_prefer_the_64_bit_field(node: dict, expected: int | None) -> None:
    assert node_id_of(node) == expected


@pytest.mark.parametrize(
    ("actor", "login"),
    [
        ({"__typename": "Bot", "login": "dependabot"}, "dependabot[bot]"),
        ({"__typename": "Bot", "login": "triage[bot]"}, "triage[bot]"),
        ({"__typename": "User", "login": "octocat"}, "octocat"),
        (None, None),
    ],
)
def test_a_bot_keeps_the_login_rest_shows(actor: dict | None, login: str | None) -> None:
    user = rest_login(actor)
    assert (user or {}).get("login") == login


@pytest.mark.shared
def test_the_neovim_archive_over_graphql_loses_no_comment(tmp_path: Path, shared_dir: Path) -> None:
    """The real 2014-2026 threads, served as github.com serves them (GitHub's own schema
    checks every query), crawled with GraphQL: every one of their 35,298 comments is stored,
    16,188 of them with ids above 2^31."""
    from issues_sts.sandbox.worlds.archive import load_thread_archive

    archive = shared_dir / "data" / "neovim-issue-archive"
    if not (archive / "threads.jsonl.gz").is_file():
        pytest.skip(f"the neovim issue archive is absent ({archive})")
    corpus = load_thread_archive(archive)
    want = served_comment_ids(corpus)
    with FakeGitHub(corpus, FakeSettings(graphql_schema_check=True)) as gh:
        summary = crawl(gh, tmp_path / "s")
    assert summary.ok and summary.graphql_used
    stored = stored_comment_ids(tmp_path / "s")
    assert stored == want
    assert sum(i > INT_MAX for i in stored) > 16_000
