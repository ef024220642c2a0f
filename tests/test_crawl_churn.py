"""Issues updated while the crawl reads the issue list (GitHub moves them to the end of a list
sorted by `updated`), and a re-crawl whose first page is full: nothing may be skipped.

With numbered pages, an issue updated after its page was read shifts every issue behind it up
one place, and the first issue of the next page was never read, by this crawl or a later one
(which asks only for what is newer). With `--per-page 1`, a finished crawl kept the ETag of a
full first page, and the next crawl's 304 hid every issue added behind it."""

from __future__ import annotations

import shutil
from pathlib import Path

from issues_sts.sandbox.github.server import FakeGitHub
from issues_sts.store import Store
from tests.crawl_support import crawl, small_world


def _numbers(world_issues: list[dict[str, object]]) -> set[int]:
    return {int(str(i["number"])) for i in world_issues}


def _later(issues: list[dict[str, object]], seconds: int) -> str:
    """A GitHub timestamp `seconds` after the newest `updated_at` of `issues`."""
    from datetime import datetime, timedelta

    newest = max(str(i["updated_at"]) for i in issues)
    when = datetime.strptime(newest, "%Y-%m-%dT%H:%M:%SZ") + timedelta(seconds=seconds)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_an_issue_updated_between_two_list_pages_costs_no_other_issue(tmp_path: Path) -> None:
    world = small_world(repos=1, issues=60)
    repo = next(iter(world.repos))
    issues = world.repos[repo].issues
    store = tmp_path / "store"
    with FakeGitHub(world) as gh:
        # GET /repos/{r}, then list pages: the crawl stops between two list pages. Without
        # GraphQL the issue list and the comment list are read side by side, and either may
        # take the next request: a larger budget, each in a fresh store, until one issue page
        # is in (six pages hold the 60 issues; the budget leaves at least one unread).
        read: set[int] = set()
        for budget in range(2, 7):
            shutil.rmtree(store, ignore_errors=True)
            first = crawl(gh, store, repos=(repo,), per_page=10, max_requests=budget, graphql=False)
            assert not first.ok
            with Store.open(store) as db:
                read = db.known_numbers(repo)
            if read:
                break
        assert 0 < len(read) < len(issues)
        # an issue of that first page is updated on GitHub: it moves to the end of the list
        moved = next(i for i in issues if int(str(i["number"])) in read)
        moved["updated_at"] = _later(issues, 60)
        world.repos[repo].reindex()
        resumed = crawl(gh, store, repos=(repo,), per_page=10, graphql=False)
        again = crawl(gh, store, repos=(repo,), per_page=10, graphql=False)
    assert resumed.ok and again.ok
    with Store.open(store) as db:
        assert db.known_numbers(repo) >= _numbers(issues)
        stored = {
            r["number"]: r["updated_at"] for r in db.issues_frame(repo=repo).iter_rows(named=True)
        }
    assert stored[int(str(moved["number"]))] == moved["updated_at"]  # and its update is read


def test_issues_updated_during_every_page_of_a_crawl_are_all_read(tmp_path: Path) -> None:
    """The crawl stops after every list page while the issue just read is updated: each time
    the list shifts under it."""
    world = small_world(repos=1, issues=40)
    repo = next(iter(world.repos))
    issues = world.repos[repo].issues
    store = tmp_path / "store"
    with FakeGitHub(world) as gh:
        for step in range(1, 30):
            summary = crawl(gh, store, repos=(repo,), per_page=5, max_requests=1, graphql=False)
            if summary.ok:
                break
            with Store.open(store) as db:
                read = sorted(db.known_numbers(repo))
            if read:
                touched = next(i for i in issues if int(str(i["number"])) == read[step % len(read)])
                touched["updated_at"] = _later(issues, 5)
                world.repos[repo].reindex()
        final = crawl(gh, store, repos=(repo,), per_page=5, graphql=False)
    assert final.ok
    with Store.open(store) as db:
        assert db.known_numbers(repo) >= _numbers(issues)


def test_a_recrawl_after_a_full_first_page_sees_the_issues_added_behind_it(
    tmp_path: Path,
) -> None:
    world = small_world(repos=1, issues=12)
    repo = next(iter(world.repos))
    issues = world.repos[repo].issues
    store = tmp_path / "store"
    with FakeGitHub(world) as gh:
        assert crawl(gh, store, repos=(repo,), per_page=1, graphql=False).ok
        # a later issue on GitHub (a copy of the first, renumbered and updated last)
        new = {**issues[0], "number": 999, "id": int(str(issues[0]["id"])) + 10**9}
        new["node_id"] = f"{issues[0]['node_id']}x"
        new["updated_at"] = new["created_at"] = _later(issues, 60)
        new["html_url"] = str(issues[0]["html_url"]).rsplit("/", 1)[0] + "/999"
        new["url"] = str(issues[0]["url"]).rsplit("/", 1)[0] + "/999"
        new["comments"] = 0
        issues.append(new)
        world.repos[repo].reindex()
        assert crawl(gh, store, repos=(repo,), per_page=1, graphql=False).ok
    with Store.open(store) as db:
        assert 999 in db.known_numbers(repo)


def test_a_comment_deleted_on_github_leaves_the_store_when_its_thread_is_read_again(
    tmp_path: Path,
) -> None:
    """A deleted "Duplicate of #N" is no evidence: a thread read whole again is the thread as
    GitHub has it now."""
    from issues_sts.sandbox.worlds.render import count_comments

    world = small_world(repos=1, issues=40)
    repo = next(iter(world.repos))
    data = world.repos[repo]
    store = tmp_path / "store"
    with FakeGitHub(world) as gh:
        assert crawl(gh, store, repos=(repo,)).ok
        issue = next(
            i
            for i in data.issues
            if not i.get("pull_request") and len(data.comments_of(int(str(i["number"])))) >= 2
        )
        number = int(str(issue["number"]))
        gone, *kept = data.comments_of(number)
        data.comments.remove(gone)
        issue["updated_at"] = _later(data.issues, 60)
        data.reindex()
        count_comments(data)
        assert crawl(gh, store, repos=(repo,)).ok
    with Store.open(store) as db:
        frame = db.comments_frame()
    stored = frame.filter((frame["repo"] == repo) & (frame["number"] == number))
    assert set(stored["id"].to_list()) == {int(str(c["id"])) for c in kept}


def test_a_repository_whose_crawl_failed_says_failed_in_the_store(tmp_path: Path) -> None:
    """GitHub refusing a repository's first list page ends that repository as `failed`; the
    store said `pending`, and `status` showed a repository still under way."""
    from issues_sts.sandbox.github.settings import FakeSettings

    world = small_world(repos=1, issues=5)
    repo = next(iter(world.repos))
    with FakeGitHub(world, FakeSettings(page_cap=0)) as gh:  # page 1 is past the cap: 422
        summary = crawl(gh, tmp_path / "store", repos=(repo,), graphql=False)
    assert [r.status for r in summary.repos] == ["failed"]
    with Store.open(tmp_path / "store") as db:
        assert db.repo_states() == {repo: "failed"}
