"""`issues-sts crawl` and `issues-sts status` through the real CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from issues_sts.cli.app import main
from issues_sts.sandbox.github.server import FakeGitHub
from issues_sts.sandbox.github.settings import FakeSettings
from tests.crawl_support import TOKEN, small_world


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_crawl_then_status_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = small_world(seed=3, repos=2, issues=60)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    log = tmp_path / "crawl.log"
    with FakeGitHub(corpus) as gh:
        repos = [a for name in corpus.repos for a in ("--repo", name)]
        code, out, err = run(
            [
                "crawl",
                *repos,
                "--api-url",
                gh.api_url,
                "--store",
                str(tmp_path / "s"),
                "--log",
                str(log),
                "--quiet",
            ],
            capsys,
        )
    assert code == 0, err
    assert "crawl summary" in err and "requests counted" in err
    code, out, err = run(["status", "--store", str(tmp_path / "s"), "--json"], capsys)
    assert code == 0
    rows = json.loads(out)
    assert {r["repo"] for r in rows} == set(corpus.repos)
    for row in rows:
        assert {
            "repo",
            "issues",
            "pull_requests",
            "comments",
            "events",
            "duplicate_candidates",
            "last_sync",
        } <= row.keys()
        repo = corpus.repos[row["repo"]]
        assert row["issues"] + row["pull_requests"] == len(repo.issues)
        prs = {
            i["number"] for i in repo.issues if "pull_request" in i
        }  # PR comments are not crawled
        assert row["comments"] == sum(
            1 for c in repo.comments if int(c["issue_url"].rsplit("/", 1)[1]) not in prs
        )
    code, out, _ = run(["status", "--store", str(tmp_path / "s")], capsys)
    assert code == 0 and "crawl store" in out
    assert log.stat().st_size > 0 and TOKEN not in log.read_text()


def test_rejected_token_is_one_line_without_the_token(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeGitHub(small_world(repos=1, issues=10)) as gh:
        code, out, err = run(
            [
                "crawl",
                "--repo",
                "acme/x",
                "--api-url",
                gh.api_url,
                "--store",
                str(tmp_path),
                "--token",
                "ghp_wrong_secret_value",
                "--quiet",
            ],
            capsys,
        )
    assert code == 5
    assert "the token was rejected" in err and "ghp_wrong_secret_value" not in out + err
    assert err.count("error:") == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["crawl", "--repo", "not a repo"], "owner/name"),
        (["crawl", "--repos", "missing.yaml"], "does not exist"),
        (["crawl", "--repo", "a/b", "--api-url", "ftp://x"], "api-url"),
        (["status", "--store", "no/such/store"], "no crawl store"),
    ],
)
def test_bad_input_is_one_line(
    argv: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run(argv, capsys)
    assert code != 0 and message in err and "Traceback" not in err


def test_plan_projects_then_the_crawl_compares(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = small_world(seed=5, repos=2, issues=80)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    store = tmp_path / "s"
    with FakeGitHub(corpus) as gh:
        repos = [a for name in corpus.repos for a in ("--repo", name)]
        code, out, err = run(
            ["crawl", *repos, "--api-url", gh.api_url, "--store", str(store), "--plan"], capsys
        )
        assert code == 0, err
        assert (
            "crawl plan" in out and "KiB per issue" in out
        )  # the table and its stated assumptions
        saved = json.loads((store / "crawl-plan.json").read_text())
        assert [r["repo"] for r in saved["repos"]] == list(corpus.repos) and saved["graphql"]
        assert not gh.stats()["by_endpoint"].get("GET /repos/{repo}/issues"), "--plan crawled"
        assert gh.stats()["counted"] == 2 * len(corpus.repos)  # GET /repos + one GraphQL point each
        code, out, err = run(
            ["crawl", *repos, "--api-url", gh.api_url, "--store", str(store), "--quiet"], capsys
        )
        assert code == 0, err
        assert "planned" in err and "spent" in err
        code, out, err = run(
            ["crawl", *repos, "--api-url", gh.api_url, "--store", str(store), "--quiet"], capsys
        )
        assert "planned" not in err  # compared once, after the first crawl


def test_repos_at_once_reaches_the_crawl(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One repository at a time still crawls everything, and 0 is refused in one line."""
    corpus = small_world(seed=4, repos=2, issues=30)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    repos = [a for name in corpus.repos for a in ("--repo", name)]
    # with some latency, repositories synced at once interleave their requests
    with FakeGitHub(corpus, FakeSettings(latency_base=0.05)) as gh:
        args = ["crawl", *repos, "--api-url", gh.api_url, "--store", str(tmp_path / "s")]
        code, _, err = run([*args, "--quiet", "--repos-at-once", "1"], capsys)
        assert code == 0, err
        # one at a time: a repository's REST requests never interleave with another's
        order = [n for r in gh.log for n in corpus.repos if f"/repos/{n}/" in r.path + "/"]
        changes = sum(1 for a, b in zip(order, order[1:], strict=False) if a != b)
        assert changes == len(corpus.repos) - 1, order
        code, _, err = run([*args, "--repos-at-once", "0"], capsys)
    assert code == 2 and "--repos-at-once" in err
    code, out, _ = run(["status", "--store", str(tmp_path / "s"), "--json"], capsys)
    issues = {r["repo"]: r["issues"] + r["pull_requests"] for r in json.loads(out)}
    assert issues == {name: len(repo.issues) for name, repo in corpus.repos.items()}
