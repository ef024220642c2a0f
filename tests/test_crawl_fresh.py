"""A store holds what a fresh crawl of the same GitHub would hold, whatever its history: a
re-crawl after GitHub changed, a crawl started without a token and resumed with one (or the
reverse), a crawl killed at any moment. Each case compares the whole store, row by row
(`tests/store_rows.py`), with a fresh crawl, against the fake GitHub on 127.0.0.1.

Two histories left a store unlike a fresh crawl:
- a duplicate mark shows on the canonical's timeline too, but GitHub does not move the
  canonical's `updated_at`, so a re-crawl (which reads again only what moved) never saw it;
- a crawl's mode (GraphQL with a token, REST without) decides what it stores: pull requests'
  comments (REST lists them repo-wide, GraphQL never asks them), events without their
  canonical (REST timelines do not name it), the numbers that evidence names. A resume in
  the other mode kept what the first mode had stored.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from issues_sts.sandbox.corpus import Corpus, Json, RepoData
from issues_sts.sandbox.github.server import FakeGitHub
from issues_sts.sandbox.github.settings import FakeSettings
from issues_sts.sandbox.worlds.growth import Growth, grow_world
from issues_sts.sandbox.worlds.render import count_comments
from tests.crawl_support import TOKEN, crawl, crawl_command, small_world
from tests.store_rows import assert_same_rows, counts, store_rows

# anonymous crawls run under GitHub's 60 requests an hour; here the window never closes
SETTINGS = FakeSettings(unauthenticated_limit=1_000_000)
# (token of the first crawl, token of the one that resumes it): REST then GraphQL, and back
SWITCHES = pytest.mark.parametrize(
    ("first", "then"),
    [(None, TOKEN), (TOKEN, None)],
    ids=["rest-then-graphql", "graphql-then-rest"],
)


def _later(repo: RepoData, seconds: int) -> str:
    newest = max(str(i["updated_at"]) for i in repo.issues)
    when = datetime.strptime(newest, "%Y-%m-%dT%H:%M:%SZ") + timedelta(seconds=seconds)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _live_issues(repo: RepoData) -> list[Json]:
    dead = repo.deleted | repo.gone | set(repo.transferred)
    return [i for i in repo.issues if "pull_request" not in i and i["number"] not in dead]


def _next_id(repo: RepoData) -> int:
    ids = [int(c["id"]) for c in repo.comments]
    ids += [int(e["id"]) for events in repo.timeline.values() for e in events]
    return max(ids) + 1


def mark_duplicate(repo: RepoData, duplicate: Json, canonical: Json, when: str) -> None:
    """A maintainer says "Duplicate of #C" on an existing issue, marks it and closes it, as
    GitHub records it: the duplicate's `updated_at` moves, the canonical's does not (the
    mark shows on both timelines)."""
    number, target = int(duplicate["number"]), int(canonical["number"])
    actor = {"login": "maintainer-one", "id": 4242, "type": "User"}
    comment_id = _next_id(repo)
    api = str(duplicate["url"]).rsplit("/issues/", 1)[0]
    repo.comments.append(
        {
            "url": f"{api}/issues/comments/{comment_id}",
            "html_url": f"{duplicate['html_url']}#issuecomment-{comment_id}",
            "issue_url": f"{api}/issues/{number}",
            "id": comment_id,
            "node_id": f"IC_fresh{comment_id}",
            "user": actor,
            "created_at": when,
            "updated_at": when,
            "author_association": "MEMBER",
            "body": f"Duplicate of #{target}",
        }
    )
    events = repo.timeline.setdefault(number, [])
    for k, (kind, extra) in enumerate((("marked_as_duplicate", None), ("closed", "duplicate"))):
        event_id = comment_id + 1 + k
        event: Json = {
            "id": event_id,
            "node_id": f"{'MADE' if extra is None else 'CE'}_fresh{event_id}",
            "url": f"{api}/issues/events/{event_id}",
            "actor": actor,
            "event": kind,
            "commit_id": None,
            "commit_url": None,
            "created_at": when,
            "performed_via_github_app": None,
        }
        if extra is None:
            repo.event_canonical[event["node_id"]] = (repo.full_name, target)
        else:
            event["state_reason"] = extra
        events.append(event)
    duplicate.update(
        state="closed", state_reason="duplicate", closed_at=when, closed_by=actor, updated_at=when
    )
    repo.duplicate_of[number] = (repo.full_name, target)
    count_comments(repo)


def change_world(corpus: Corpus) -> dict[str, Any]:
    """A month of GitHub: new issues and duplicates (`grow_world`), a duplicate marked between
    two existing issues whose canonical's timeline a fresh crawl reads, a comment added to one
    thread and one deleted from another. Returns what it did, for messages."""
    grown = grow_world(corpus, Growth(seed=3, days=30, new_issues=12, new_repos=0))
    name, repo = next(iter(corpus.repos.items()))
    live = _live_issues(repo)
    canonical = next(i for i in live if i["state"] == "closed" and i["comments"] > 0)
    duplicate = next(
        i
        for i in live
        if i["state"] == "open" and i is not canonical and i["number"] not in repo.duplicate_of
    )
    mark_duplicate(repo, duplicate, canonical, _later(repo, 60))
    talked = next(i for i in live if i["comments"] >= 1 and i not in (duplicate, canonical))
    template = repo.comments_of(int(talked["number"]))[0]
    new_id = _next_id(repo)
    repo.comments.append(
        {**template, "id": new_id, "node_id": f"IC_fresh{new_id}", "body": "Still seen on 2.1."}
    )
    talked["updated_at"] = _later(repo, 70)
    pruned = next(i for i in live if i["comments"] >= 2 and i not in (duplicate, canonical, talked))
    repo.comments.remove(repo.comments_of(int(pruned["number"]))[-1])
    pruned["updated_at"] = _later(repo, 80)
    count_comments(repo)
    return {
        "grown": grown.duplicates,
        "marked": (name, duplicate["number"], canonical["number"]),
    }


@pytest.mark.parametrize("token", [TOKEN, None], ids=["graphql", "rest"])
def test_a_recrawl_after_github_changed_equals_a_fresh_crawl(
    tmp_path: Path, token: str | None
) -> None:
    corpus = small_world(seed=31, repos=2, issues=150)
    with FakeGitHub(corpus, SETTINGS) as gh:
        assert crawl(gh, tmp_path / "store", token=token).ok
        changed = change_world(corpus)
        assert crawl(gh, tmp_path / "store", token=token).ok
        assert crawl(gh, tmp_path / "fresh", token=token).ok
    got, want = store_rows(tmp_path / "store"), store_rows(tmp_path / "fresh")
    assert counts(want)["events"] > 0, changed
    assert_same_rows(got, want)


# Where the first crawl stops, as shares of what it spends whole: a GraphQL crawl reads its
# threads last (after the issue list), so it stores what its mode decides only late.
STOPS = {None: (0.3, 0.8), TOKEN: (0.9, 0.97)}


@pytest.mark.parametrize("stop", [0, 1], ids=["early", "late"])
@SWITCHES
def test_a_crawl_resumed_in_the_other_mode_equals_a_fresh_crawl_in_that_mode(
    tmp_path: Path, first: str | None, then: str | None, stop: int
) -> None:
    corpus = small_world(seed=32, repos=2, issues=150)
    with FakeGitHub(corpus, SETTINGS) as gh:
        whole = crawl(gh, tmp_path / "whole", token=first, per_page=10).requests
        budget = int(whole * STOPS[first][stop])
        stopped = crawl(gh, tmp_path / "store", token=first, per_page=10, max_requests=budget)
        assert stopped.stopped, "the first crawl finished before it was stopped"
        # the first mode stored rows of its own (threads' comments), which the other must not keep
        assert counts(store_rows(tmp_path / "store"))["comments"] > 0, budget
        assert crawl(gh, tmp_path / "store", token=then, per_page=10).ok
        assert crawl(gh, tmp_path / "fresh", token=then, per_page=10).ok
    assert_same_rows(store_rows(tmp_path / "store"), store_rows(tmp_path / "fresh"))


@SWITCHES
def test_a_finished_crawl_crawled_again_in_the_other_mode_equals_a_fresh_crawl(
    tmp_path: Path, first: str | None, then: str | None
) -> None:
    corpus = small_world(seed=33, repos=2, issues=120)
    with FakeGitHub(corpus, SETTINGS) as gh:
        assert crawl(gh, tmp_path / "store", token=first).ok
        change_world(corpus)
        assert crawl(gh, tmp_path / "store", token=then).ok
        assert crawl(gh, tmp_path / "fresh", token=then).ok
    assert_same_rows(store_rows(tmp_path / "store"), store_rows(tmp_path / "fresh"))


def _run_killed(
    gh: FakeGitHub, store: Path, env: dict[str, str], after: int | None, of: str = ""
) -> int:
    """Run the crawler as a process; SIGKILL it once the server saw `after` more requests
    whose path holds `of` (and three more of any kind, by when their pages are stored; None:
    let it end). Its exit status."""
    proc = subprocess.Popen(
        crawl_command(gh, store), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    start, end = len(gh.log), None
    while proc.poll() is None and after is not None:
        if end is None and sum(of in r.path for r in list(gh.log)[start:]) >= after:
            end = len(gh.log) + 3
        if end is not None and len(gh.log) >= end:
            proc.send_signal(signal.SIGKILL)
            break
        time.sleep(0.005)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode in (0, -signal.SIGKILL), err.decode()[-2000:]
    return proc.returncode


@pytest.mark.slow
@SWITCHES
def test_sigkilled_at_several_points_across_a_change_of_mode(
    tmp_path: Path, first: str | None, then: str | None
) -> None:
    """SIGKILLed twice in the first mode (the second time late, once it stored threads) and
    three times in the other (while it converts what the first mode stored, too): the
    finished store equals a fresh crawl in the last mode."""
    corpus = small_world(seed=34, repos=2, issues=300)
    rng = random.Random(9)
    base = {k: v for k, v in os.environ.items() if k not in ("GITHUB_TOKEN", "GH_TOKEN")}
    envs = {mode: base | ({"GITHUB_TOKEN": mode} if mode else {}) for mode in (first, then)}
    envs[None] = base | {"GH_CONFIG_DIR": str(tmp_path / "no-gh")}
    store = tmp_path / "store"
    with FakeGitHub(corpus, SETTINGS) as gh:
        kills = _run_killed(gh, store, envs[first], rng.randint(3, 15)) != 0
        # killed again once it stored rows of its own mode: threads' comments (GraphQL thread
        # batches, or pages of the REST comment listing)
        threads = "/graphql" if first else "/issues/comments"
        kills += _run_killed(gh, store, envs[first], rng.randint(1, 3), of=threads) != 0
        assert kills == 2 and counts(store_rows(store))["comments"] > 0
        for attempt in range(8):
            after = rng.randint(1, 12) if attempt < 3 else None
            code = _run_killed(gh, store, envs[then], after)
            kills += code != 0
            if code == 0:
                break
        assert code == 0 and kills >= 4, f"{kills} kills; use a bigger world"
        assert crawl(gh, tmp_path / "fresh", token=then, per_page=10).ok
    assert_same_rows(store_rows(store), store_rows(tmp_path / "fresh"))
