"""The rust-lang/rust archive loads into the fake server (skipped when ../shared is absent)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from issues_sts.errors import ConfigError
from issues_sts.sandbox.github.server import FakeGitHub
from issues_sts.sandbox.worlds.rust import RUST_REPO, rust_corpus


def test_a_directory_without_the_archive_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="main.jsonl.gz"):
        rust_corpus(tmp_path)


@pytest.mark.shared
def test_first_items_load_and_serve_like_github(rust_archive: Path) -> None:
    corpus = rust_corpus(rust_archive, limit=300)
    repo = corpus.repos[RUST_REPO]
    assert [i["number"] for i in repo.issues] == sorted(i["number"] for i in repo.issues)
    assert len(repo.issues) == 300 and all("_meta" not in i for i in repo.issues)
    assert {c["issue_url"].rsplit("/", 1)[1] for c in repo.comments} <= {
        str(i["number"]) for i in repo.issues
    }
    with (
        FakeGitHub(corpus) as gh,
        httpx.Client(headers={"Authorization": "token test-token"}) as client,
    ):
        url = f"{gh.api_url}/repos/{RUST_REPO}/issues/comments?per_page=100"
        fetched = 0
        while url:
            answer = client.get(url)
            fetched += len(answer.json())
            url = answer.links.get("next", {}).get("url")
        assert fetched == len(repo.comments)
        one = client.get(f"{gh.api_url}/repos/{RUST_REPO}/issues/1").json()
        assert one["title"] == repo.issue(1)["title"]


@pytest.mark.shared
@pytest.mark.slow
def test_the_whole_archive_counts(rust_archive: Path) -> None:
    corpus = rust_corpus(rust_archive)
    repo = corpus.repos[RUST_REPO]
    assert corpus.total_items() == 30_652
    assert corpus.total_comments() == 146_789
    assert sum("pull_request" in i for i in repo.issues) == 14_837
    assert len(repo.deleted) == 12
    assert corpus.lower_bound_requests() == 307 + 1468
