"""A duplicate named under the repository's name from before an owner transfer
("quicktype/quicktype#N" in glideapps/quicktype): the crawl asks GitHub once about each other
owner's repository of the same name that the duplicate wording links to, and stores the ones
GitHub redirects here as renames, so the link lands in the repository instead of outside it.
The worlds are the fake GitHub's own; the comments naming old names are written here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from issues_sts.links import LinkConfig, build_links
from issues_sts.sandbox.corpus import Corpus, RepoData
from issues_sts.sandbox.github.server import FakeGitHub
from issues_sts.store import Store
from tests.cli_process import run
from tests.crawl_support import crawl, small_world, snapshot

OLD_OWNER = "oldco"


def _world() -> tuple[Corpus, RepoData, dict[str, int], int]:
    """One repository, once owned by `oldco`, whose issue `source` has a comment saying it
    duplicates `target` under the old name; another issue names a namesake that does not exist
    ("someone/<name>#N") and a third a repository of another name."""
    corpus = small_world(seed=3, repos=1, issues=40)
    repo = next(iter(corpus.repos.values()))
    repo.renamed_from.append(f"{OLD_OWNER}/{repo.name}")
    plain = [
        int(i["number"])
        for i in repo.issues
        if "pull_request" not in i
        and int(i["number"]) not in repo.truth_duplicates
        and repo.comments_of(int(i["number"]))
        and not any("#" in str(c.get("body")) for c in repo.comments_of(int(i["number"])))
    ]
    closed = [n for n in plain if repo.issue(n)["state"] == "closed"]
    source = closed[-1]
    namesake, other = [n for n in reversed(plain) if n != source][:2]
    target = next(n for n in plain if n not in (source, namesake, other))
    bodies = {
        source: f"Duplicate of https://github.com/{OLD_OWNER}/{repo.name}/issues/{target}",
        namesake: f"Duplicate of someone/{repo.name}#{target}",
        other: f"Duplicate of https://github.com/{OLD_OWNER}/elsewhere/issues/{target}",
    }
    for number, body in bodies.items():
        # a maintainer's word (what makes a keyword link usable; the crawl asks either way)
        repo.comments_of(number)[0].update(body=body, author_association="MEMBER")
    repo.reindex()
    return corpus, repo, {"source": source, "namesake": namesake, "other": other}, target


def _asked(gh: FakeGitHub, path: str) -> int:
    return sum(1 for r in gh.log if r.method == "GET" and r.path.split("?")[0].endswith(path))


@pytest.mark.parametrize("graphql", [True, False], ids=["graphql", "rest"])
def test_an_old_name_the_wording_uses_is_asked_once_and_stored_as_a_rename(
    tmp_path: Path, graphql: bool
) -> None:
    corpus, repo, numbers, target = _world()
    old = f"{OLD_OWNER}/{repo.name}"
    with FakeGitHub(corpus) as gh:
        assert crawl(gh, tmp_path / "s", graphql=graphql).ok
        # the old name and the namesake are asked; another name is never asked
        assert _asked(gh, f"/repos/{old}") == 1
        assert _asked(gh, f"/repos/someone/{repo.name}") == 1
        assert _asked(gh, f"/repos/{OLD_OWNER}/elsewhere") == 0
        before = len(gh.log)
        assert crawl(gh, tmp_path / "s", graphql=graphql).ok  # a re-crawl asks neither again
        again = gh.log[before:]
        assert not any("/repos/oldco" in r.path or "/repos/someone" in r.path for r in again)
    with Store.open(tmp_path / "s") as db:
        assert db.renamed_repos() == ((old, repo.full_name),)
        links = build_links(db, LinkConfig()).links
    targets = {
        n: (t_repo, t, usable)
        for n, t_repo, t, usable in links.select(
            "number", "target_repo", "target_number", "usable"
        ).rows()
    }
    assert targets[numbers["source"]] == (repo.full_name, target, True)
    # the namesake GitHub does not know, and the other name, stay outside the repository
    assert targets[numbers["namesake"]][:2] == (f"someone/{repo.name}", target)
    assert targets[numbers["other"]][:2] == (f"{OLD_OWNER}/elsewhere", target)
    assert not targets[numbers["namesake"]][2] and not targets[numbers["other"]][2]


def test_without_the_wording_nothing_is_asked(tmp_path: Path) -> None:
    """A plain mention of another owner's namesake ("see someone/<name>#N") costs nothing: only
    duplicate evidence can become a link."""
    corpus, repo, numbers, _ = _world()
    for number in numbers.values():
        repo.comments_of(number)[0]["body"] = "Thanks for the report."
    comment = repo.comments_of(numbers["source"])[0]
    comment["body"] = f"See {OLD_OWNER}/{repo.name}#3 for the log."
    repo.reindex()
    with FakeGitHub(corpus) as gh:
        assert crawl(gh, tmp_path / "s").ok
        assert _asked(gh, f"/repos/{OLD_OWNER}/{repo.name}") == 0


def test_a_killed_crawl_resumes_to_the_same_store(tmp_path: Path) -> None:
    """Stopped by its request budget between the two questions, the crawl asks only what is
    left and ends with the rows a crawl in one go has."""
    corpus, repo, _, _ = _world()
    with FakeGitHub(corpus) as gh:
        whole = crawl(gh, tmp_path / "whole")
        assert whole.ok
        first = crawl(gh, tmp_path / "parts", max_requests=whole.requests - 1)
        assert first.stopped
        assert crawl(gh, tmp_path / "parts").ok
    assert snapshot(tmp_path / "parts") == snapshot(tmp_path / "whole")
    with Store.open(tmp_path / "parts") as a, Store.open(tmp_path / "whole") as b:
        assert (
            a.renamed_repos()
            == b.renamed_repos()
            == ((f"{OLD_OWNER}/{repo.name}", repo.full_name),)
        )


def test_status_names_the_old_names_under_its_table(tmp_path: Path) -> None:
    """`issues-sts status` lists repositories; an old name is no repository of its own, so it is
    one line under the table (and a row of its own in `--json`, as stored)."""
    corpus, repo, _, _ = _world()
    with FakeGitHub(corpus) as gh:
        assert crawl(gh, tmp_path / "s").ok
    old = f"{OLD_OWNER}/{repo.name}"
    table = run(["status", "--store", str(tmp_path / "s")])
    assert table.code == 0, table.err
    rows = [line for line in table.out.splitlines() if "│" in line]
    assert any(repo.full_name in line for line in rows) and not any(old in line for line in rows)
    assert f"old names (links to them land in the repository): {old} -> {repo.full_name}" in (
        table.out
    )
    listed = run(["status", "--store", str(tmp_path / "s"), "--json"])
    assert {row["repo"]: row["status"] for row in json.loads(listed.out)}[old] == "renamed"


def test_a_name_changed_under_the_same_owner_is_found_too(tmp_path: Path) -> None:
    """pixijs/pixi.js became pixijs/pixijs: another name under the repository's own owner may be
    its old name as well. A sibling repository of that owner is asked once and stores nothing;
    a repository the store holds is never asked."""
    corpus, repo, numbers, target = _world()
    old = f"{repo.owner}/{repo.name}.js"
    repo.renamed_from[:] = [old]
    bodies = {
        numbers["source"]: f"Duplicate of {old}#{target}",
        numbers["namesake"]: f"Duplicate of {repo.owner}/sibling-tool#{target}",
        numbers["other"]: f"Duplicate of {repo.full_name}#{target}",
    }
    for number, body in bodies.items():
        repo.comments_of(number)[0]["body"] = body
    repo.reindex()
    with FakeGitHub(corpus) as gh:
        assert crawl(gh, tmp_path / "s").ok
        assert _asked(gh, f"/repos/{old}") == 1
        assert _asked(gh, f"/repos/{repo.owner}/sibling-tool") == 1
        assert _asked(gh, f"/repos/{repo.full_name}") == 1  # the crawl's own first question
    with Store.open(tmp_path / "s") as db:
        assert db.renamed_repos() == ((old, repo.full_name),)
        links = build_links(db, LinkConfig()).links
    source = links.filter(links["number"] == numbers["source"]).row(0, named=True)
    assert (source["target_repo"], source["target_number"], source["usable"]) == (
        repo.full_name,
        target,
        True,
    )
