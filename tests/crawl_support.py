"""Shared helpers of the crawler's integration tests (fake GitHub worlds, store snapshots)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from issues_sts.crawl import CrawlConfig, CrawlSummary, PacingConfig, run_crawl
from issues_sts.sandbox.corpus import Corpus
from issues_sts.sandbox.github.listing import list_item
from issues_sts.sandbox.github.server import FakeGitHub
from issues_sts.sandbox.worlds.generator import WorldConfig, generate_world
from issues_sts.store import Store

TOKEN = "test-token"
# Compressed for tests: reset windows of 1-2 s, backoff in milliseconds.
FAST = PacingConfig(
    reset_margin=0.02,
    backoff_base=0.01,
    backoff_cap=0.2,
    secondary_base=0.6,
    secondary_cap=2.0,
    max_total_wait=30.0,
    max_attempts=12,
)


def small_world(seed: int = 0, repos: int = 2, issues: int = 150) -> Corpus:
    return generate_world(WorldConfig(seed=seed, repos=repos, issues_per_repo=issues))


def crawl(gh: FakeGitHub, store: Path, **overrides: Any) -> CrawlSummary:
    fields: dict[str, Any] = {
        "repos": tuple(gh.corpus.repos),
        "token": TOKEN,
        "api_url": gh.api_url,
        "store": store,
        "pacing": FAST,
    }
    fields.update(overrides)
    return run_crawl(CrawlConfig(**fields))


def crawl_command(gh: FakeGitHub, store: Path, *extra: str) -> list[str]:
    """`issues-sts crawl` of every repository of `gh` as a child process's argv (10 a page)."""
    repos = [arg for name in gh.corpus.repos for arg in ("--repo", name)]
    return [
        sys.executable,
        "-m",
        "issues_sts.cli.app",
        "crawl",
        *repos,
        "--api-url",
        gh.api_url,
        "--store",
        str(store),
        "--per-page",
        "10",
        *extra,
        "--quiet",
    ]


def snapshot(store: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Everything the store holds that a crawl decides (not bookkeeping timestamps)."""
    with Store.open(store) as db:
        return {
            "issues": sorted(db.issues_frame(include_raw=True).drop("labels").rows()),
            "comments": sorted(db.comments_frame().rows()),
            "events": sorted(db.events_frame().rows(), key=str),
            "redirects": sorted(db.redirects_frame().rows()),
        }


def dup_events(corpus: Corpus) -> set[tuple[str, int, str, str]]:
    return {
        (name, number, e["node_id"], e["event"])
        for name, repo in corpus.repos.items()
        for number, events in repo.timeline.items()
        for e in events
        if e.get("event") in ("marked_as_duplicate", "unmarked_as_duplicate")
    }


def keyword_closed(corpus: Corpus) -> set[tuple[str, int]]:
    from issues_sts.evidence import KEYWORD_LINE

    return {
        (name, n)
        for name, repo in corpus.repos.items()
        for c in repo.comments
        if KEYWORD_LINE.search(c.get("body") or "")
        and (repo.issue(n := int(c["issue_url"].rsplit("/", 1)[1])) or {}).get("state") == "open"
    }


def closed_duplicates(corpus: Corpus) -> set[tuple[str, int]]:
    from issues_sts.crawl.candidates import says_duplicate_itself

    return {
        (name, int(i["number"]))
        for name, repo in corpus.repos.items()
        for i in repo.issues
        if i.get("state") == "closed"
        and "pull_request" not in i
        and int(i["number"]) not in repo.deleted | repo.gone | set(repo.transferred)
        and says_duplicate_itself(i.get("labels") or [], i.get("state_reason"))
    }


def evidence_named(corpus: Corpus) -> set[tuple[str, int]]:
    """(repo, number) that duplicate-worded comments or events' canonicals name."""
    from issues_sts.crawl.candidates import has_duplicate_wording, referenced_numbers

    named = {
        (n, t[1]) for n, r in corpus.repos.items() for t in r.event_canonical.values() if t[0] == n
    }
    for name, repo in corpus.repos.items():
        for c in repo.comments:
            if has_duplicate_wording(c.get("body")):
                named |= {(name, k) for k in referenced_numbers(c.get("body"), name)}
    return named


def assert_closes_stored(corpus: Corpus, rows: list[dict[str, Any]]) -> None:
    """With GraphQL, every closed issue that points at another issue (or that GitHub calls a
    duplicate) has its last close stored: who closed it, a bot as a bot."""
    from issues_sts.crawl.candidates import mentions_issue, says_duplicate_itself

    closes = {
        (r["repo"], r["number"]): (r["actor"], r["actor_type"])
        for r in sorted(rows, key=lambda r: r["created_at"] or "")
        if r["event"] == "closed"
    }
    for name, repo in corpus.repos.items():
        for item in repo.issues:
            if item.get("state") != "closed" or "pull_request" in item:
                continue
            if item["number"] in repo.deleted | repo.gone or item["number"] in repo.transferred:
                continue
            text = " ".join(
                [item.get("title") or "", item.get("body") or ""]
                + [c.get("body") or "" for c in repo.comments_of(item["number"])]
            )
            if not (
                mentions_issue(text)
                or says_duplicate_itself(item["labels"], item.get("state_reason"))
            ):
                continue
            closer = item.get("closed_by") or {}
            assert closes.get((name, item["number"])) == (
                closer.get("login"),
                closer.get("type", "User"),
            ), f"{name}#{item['number']}: its close was not stored"


def assert_store_matches_corpus(store: Path, corpus: Corpus, *, graphql: bool) -> None:
    """The store holds exactly the corpus: every item as served, every comment, every
    duplicate event (with its canonical when GraphQL was used), transfers and tombstones."""
    with Store.open(store) as db:
        issues = db.issues_frame(include_raw=True)
        comments = db.comments_frame()
        events = db.events_frame()
        redirects = db.redirects_frame()
    live = issues.filter(issues["tombstone"].is_null())
    stored = {(r["repo"], r["number"]): json.loads(r["raw"]) for r in live.iter_rows(named=True)}
    expected = {(name, i["number"]): i for name, repo in corpus.repos.items() for i in repo.issues}
    assert stored.keys() == expected.keys()
    # as a list page serves it (no `closed_by`), or as GET /issues/{n} does (a probed number)
    assert all(stored[k] in (list_item(expected[k]), expected[k]) for k in expected), (
        "an item differs from what GitHub served"
    )
    # with GraphQL, comments come per issue: pull requests' comments are never asked for
    wanted_comments = {
        c["id"]
        for r in corpus.repos.values()
        for c in r.comments
        if not graphql
        or "pull_request" not in (r.issue(int(c["issue_url"].rsplit("/", 1)[1])) or {})
    }
    assert set(comments["id"].to_list()) == wanted_comments
    assert comments.height == len(wanted_comments)
    marks = ("marked_as_duplicate", "unmarked_as_duplicate")
    rows = list(events.iter_rows(named=True))
    got_events = {  # each issue's own duplicate events (not those shown on its canonical's)
        (r["repo"], r["number"], r["event_key"], r["event"])
        for r in rows
        if r["event"] in marks and r["duplicate_number"] in (None, r["number"])
    }
    # REST events name no canonical: only a keyword close open again (an unmark?) needs them
    # REST timelines (no canonical named) only where they can change a link: a keyword close
    # open again (an unmark?), a closed issue GitHub calls a duplicate (who closed it?)
    rest_worthy = keyword_closed(corpus) | closed_duplicates(corpus)
    wanted = (
        dup_events(corpus)
        if graphql
        else {e for e in dup_events(corpus) if (e[0], e[1]) in rest_worthy}
    )
    assert got_events == wanted
    if graphql:
        assert_closes_stored(corpus, rows)
        canon = {
            r["event_key"]: (r["canonical_repo"], r["canonical_number"])
            for r in rows
            if r["event"] in marks
        }
        for repo in corpus.repos.values():
            for key, target in repo.event_canonical.items():
                assert canon[key] == tuple(target)
    tombs = issues.filter(issues["tombstone"].is_not_null())
    got_tombs = {(r["repo"], r["number"], r["tombstone"]) for r in tombs.iter_rows(named=True)}
    dead = {(n, k, "deleted") for n, r in corpus.repos.items() for k in r.deleted} | {
        (n, k, "gone") for n, r in corpus.repos.items() for k in r.gone
    }
    assert got_tombs <= dead, "a live issue was tombstoned"
    # what duplicate evidence names is resolved once (tombstone, redirect); unnamed gaps never
    named = evidence_named(corpus)
    assert {(n, k) for n, k, _ in dead if (n, k) in named} == {(n, k) for n, k, _ in got_tombs}
    moved = {
        (n, k, to[0], to[1]) for n, r in corpus.repos.items() for k, to in r.transferred.items()
    }
    assert {
        (r["repo"], r["number"], r["to_repo"], r["to_number"])
        for r in redirects.iter_rows(named=True)
    } == {m for m in moved if (m[0], m[1]) in named}
