"""The fake GitHub's REST behaviour, exercised over real HTTP on 127.0.0.1."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from issues_sts.sandbox.corpus import Corpus
from issues_sts.sandbox.github.listing import list_item
from issues_sts.sandbox.github.server import FakeGitHub
from issues_sts.sandbox.github.settings import FakeSettings
from issues_sts.sandbox.worlds.generator import WorldConfig, generate_world

AUTH = {"Authorization": "Bearer test-token"}


class Clock:
    """The server's clock, moved by hand: no real sleeping."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return generate_world(
        WorldConfig(
            seed=3,
            repos=2,
            issues_per_repo=250,
            transfer_rate=0.02,
            deleted_rate=0.02,
            gone_rate=0.01,
        )
    )


@pytest.fixture()
def client():
    with httpx.Client(headers=AUTH, timeout=10) as c:
        yield c


def follow(client: httpx.Client, url: str) -> tuple[list[dict], list[httpx.Response]]:
    items: list[dict] = []
    answers = []
    while url:
        answer = client.get(url)
        assert answer.status_code == 200, answer.text
        items.extend(answer.json())
        answers.append(answer)
        url = answer.links.get("next", {}).get("url")
    return items, answers


def test_issue_and_comment_listings_match_the_corpus_exactly(
    corpus: Corpus, client: httpx.Client
) -> None:
    with FakeGitHub(corpus) as gh:
        for name, repo in corpus.repos.items():
            issues, pages = follow(
                client, f"{gh.api_url}/repos/{name}/issues?state=all&per_page=100"
            )
            # as a list serves them: without `closed_by` (GET /issues/{n} has it)
            assert issues == [
                list_item(i)
                for i in sorted(
                    repo.issues, key=lambda i: (i["created_at"], i["number"]), reverse=True
                )
            ]
            assert all("closed_by" not in i for i in issues)
            assert len(pages) == math.ceil(len(repo.issues) / 100)
            assert f"/repositories/{repo.repo_id}/issues?" in pages[0].links["next"]["url"]
            assert pages[0].links["last"]["url"].endswith(f"page={len(pages)}")
            comments, _ = follow(client, f"{gh.api_url}/repos/{name}/issues/comments?per_page=100")
            assert [c["id"] for c in comments] == sorted(c["id"] for c in repo.comments)
        assert gh.stats()["counted"] == corpus.lower_bound_requests()
        assert gh.stats()["violations"] == 0


def test_link_header_has_githubs_shape(corpus: Corpus, client: httpx.Client) -> None:
    name = next(iter(corpus.repos))
    with FakeGitHub(corpus) as gh:
        answer = client.get(f"{gh.api_url}/repos/{name}/issues?state=all&per_page=50&page=2")
        rels = [part.split('rel="')[1].rstrip('"') for part in answer.headers["link"].split(", ")]
        assert rels == ["prev", "next", "last", "first"]
        assert "state=all&per_page=50&page=3" in answer.links["next"]["url"]


def test_state_since_sort_and_direction(corpus: Corpus, client: httpx.Client) -> None:
    name, repo = next(iter(corpus.repos.items()))
    with FakeGitHub(corpus) as gh:
        default, _ = follow(client, f"{gh.api_url}/repos/{name}/issues?per_page=100")
        assert {i["state"] for i in default} == {"open"}
        cut = sorted(i["updated_at"] for i in repo.issues)[len(repo.issues) // 2]
        url = (
            f"{gh.api_url}/repos/{name}/issues?state=all&sort=updated&direction=asc"
            f"&since={cut}&per_page=100"
        )
        recent, _ = follow(client, url)
        assert [i["updated_at"] for i in recent] == sorted(
            i["updated_at"] for i in repo.issues if i["updated_at"] >= cut
        )
        bad = client.get(f"{gh.api_url}/repos/{name}/issues?sort=sideways")
        assert bad.status_code == 422


def test_page_cap_answers_422_and_links_stop_at_the_cap(
    corpus: Corpus, client: httpx.Client
) -> None:
    name = next(iter(corpus.repos))
    with FakeGitHub(corpus, FakeSettings(page_cap=2)) as gh:
        _, pages = follow(client, f"{gh.api_url}/repos/{name}/issues?state=all&per_page=50")
        assert len(pages) == 2
        deep = client.get(f"{gh.api_url}/repos/{name}/issues?state=all&per_page=50&page=3")
        assert deep.status_code == 422
        assert "pagination is limited" in deep.json()["message"]


def test_repo_wide_comments_stop_at_the_cap_and_since_moves_the_window(
    corpus: Corpus, client: httpx.Client
) -> None:
    name, repo = next(iter(corpus.repos.items()))
    cap = 120
    with FakeGitHub(corpus, FakeSettings(comments_cap=cap)) as gh:
        first, _ = follow(
            client,
            f"{gh.api_url}/repos/{name}/issues/comments?sort=updated&direction=asc&per_page=50",
        )
        assert len(first) == cap
        since = first[-1]["updated_at"]
        rest, _ = follow(
            client,
            f"{gh.api_url}/repos/{name}/issues/comments?sort=updated&direction=asc&since={since}&per_page=50",
        )
        assert {c["id"] for c in first} | {c["id"] for c in rest} >= {
            c["id"] for c in repo.comments[: 2 * cap - 20]
        }
        assert (
            client.get(f"{gh.api_url}/repos/{name}/issues/comments?per_page=50&page=4").status_code
            == 422
        )


def test_cursor_pagination_follows_after_links(corpus: Corpus, client: httpx.Client) -> None:
    name, repo = next(iter(corpus.repos.items()))
    with FakeGitHub(corpus, FakeSettings(cursor_pagination=True)) as gh:
        issues, pages = follow(client, f"{gh.api_url}/repos/{name}/issues?state=all&per_page=100")
        assert len(issues) == len(repo.issues)
        assert "after=" in pages[0].links["next"]["url"] and "last" not in pages[0].links


def test_etag_304_is_not_counted(client: httpx.Client) -> None:
    corpus = generate_world(WorldConfig(seed=4, repos=1, issues_per_repo=80))  # edited below
    name = next(iter(corpus.repos))
    with FakeGitHub(corpus) as gh:
        url = f"{gh.api_url}/repos/{name}/issues?state=all&per_page=100"
        first = client.get(url)
        again = client.get(url, headers={"If-None-Match": first.headers["etag"]})
        assert again.status_code == 304 and again.content == b""
        assert again.headers["x-ratelimit-remaining"] == first.headers["x-ratelimit-remaining"]
        corpus.touch(
            name,
            corpus.repos[name].issues[-1]["number"],
            body="edited",
            when="2030-01-01T00:00:00Z",
        )
        changed = client.get(url, headers={"If-None-Match": first.headers["etag"]})
        assert changed.status_code == 200
        assert [r.counted for r in gh.log] == [True, False, True]


def test_exhaustion_violations_and_reset_on_the_server_clock(
    corpus: Corpus, client: httpx.Client
) -> None:
    name = next(iter(corpus.repos))
    clock = Clock()
    with FakeGitHub(
        corpus, FakeSettings(rate_limit={"core": 3}, reset_seconds=2), clock=clock
    ) as gh:
        url = f"{gh.api_url}/repos/{name}"
        answers = [client.get(url) for _ in range(3)]
        assert [a.headers["x-ratelimit-remaining"] for a in answers] == ["2", "1", "0"]
        reset = int(answers[0].headers["x-ratelimit-reset"])
        assert reset == math.ceil(clock.now + 2)
        refused = client.get(url)
        assert refused.status_code == 403 and "rate limit exceeded" in refused.json()["message"]
        assert gh.stats()["violations"] == 1
        clock.now = reset
        assert client.get(url).headers["x-ratelimit-remaining"] == "2"
        assert gh.stats()["violations"] == 1


def test_exhausted_status_can_be_429(corpus: Corpus, client: httpx.Client) -> None:
    name = next(iter(corpus.repos))
    with FakeGitHub(corpus, FakeSettings(rate_limit={"core": 1}, exhausted_status=429)) as gh:
        client.get(f"{gh.api_url}/repos/{name}")
        assert client.get(f"{gh.api_url}/repos/{name}").status_code == 429


@pytest.mark.parametrize("retry_after", [3, None])
def test_secondary_limit_opens_a_window(
    corpus: Corpus, client: httpx.Client, retry_after: int | None
) -> None:
    name = next(iter(corpus.repos))
    clock = Clock()
    settings = FakeSettings(
        secondary_limit_every=2, secondary_retry_after=retry_after, secondary_min_wait=60
    )
    with FakeGitHub(corpus, settings, clock=clock) as gh:
        url = f"{gh.api_url}/repos/{name}"
        assert client.get(url).status_code == 200
        limited = client.get(url)
        assert limited.status_code == 403 and "secondary rate limit" in limited.json()["message"]
        assert limited.headers.get("retry-after") == (str(retry_after) if retry_after else None)
        clock.now += 1
        assert client.get(url).status_code == 403
        assert gh.stats()["violations"] == 1
        clock.now += retry_after or 60
        assert client.get(url).status_code == 200
        assert [r.violation for r in gh.log] == [False, False, True, False]


def test_bad_credentials_and_anonymous_limit(corpus: Corpus) -> None:
    name = next(iter(corpus.repos))
    with FakeGitHub(corpus) as gh:
        wrong = httpx.get(f"{gh.api_url}/repos/{name}", headers={"Authorization": "token nope"})
        assert wrong.status_code == 401 and wrong.json()["message"] == "Bad credentials"
        anonymous = httpx.get(f"{gh.api_url}/repos/{name}")
        assert anonymous.status_code == 200 and anonymous.headers["x-ratelimit-limit"] == "60"
        assert not gh.log[0].counted


def test_transfers_deletions_renames_and_unknown_repos(
    corpus: Corpus, client: httpx.Client
) -> None:
    repo = next(r for r in corpus.repos.values() if r.transferred and r.deleted and r.gone)
    moved, (target_name, target_number) = next(iter(repo.transferred.items()))
    with FakeGitHub(corpus) as gh:
        answer = client.get(
            f"{gh.api_url}/repos/{repo.full_name}/issues/{moved}", follow_redirects=False
        )
        assert answer.status_code == 301
        target = corpus.repos[target_name]
        assert (
            answer.headers["location"]
            == f"{gh.api_url}/repositories/{target.repo_id}/issues/{target_number}"
        )
        followed = client.get(
            f"{gh.api_url}/repos/{repo.full_name}/issues/{moved}", follow_redirects=True
        )
        assert followed.json()["number"] == target_number
        assert (
            client.get(
                f"{gh.api_url}/repos/{repo.full_name}/issues/{min(repo.deleted)}"
            ).status_code
            == 404
        )
        assert (
            client.get(f"{gh.api_url}/repos/{repo.full_name}/issues/{min(repo.gone)}").status_code
            == 410
        )
        assert client.get(f"{gh.api_url}/repos/nobody/nothing").status_code == 404
        renamed = next(r for r in corpus.repos.values() if r.renamed_from)
        old = client.get(
            f"{gh.api_url}/repos/{renamed.renamed_from[0]}/issues?state=all", follow_redirects=False
        )
        assert old.status_code == 301
        assert old.headers["location"].endswith(f"/repositories/{renamed.repo_id}/issues?state=all")


def test_per_issue_comments_and_timeline(corpus: Corpus, client: httpx.Client) -> None:
    repo = next(iter(corpus.repos.values()))
    number = next(n for n in repo.duplicate_of if len(repo.comments_of(n)) >= 1)
    with FakeGitHub(corpus) as gh:
        comments, _ = follow(
            client, f"{gh.api_url}/repos/{repo.full_name}/issues/{number}/comments?per_page=2"
        )
        assert comments == sorted(repo.comments_of(number), key=lambda c: c["id"])
        timeline, _ = follow(
            client, f"{gh.api_url}/repos/{repo.full_name}/issues/{number}/timeline?per_page=100"
        )
        kinds = [e["event"] for e in timeline]
        assert "marked_as_duplicate" in kinds and kinds.count("commented") == len(comments)
        assert all("canonical" not in e for e in timeline)  # REST does not name it


def test_enterprise_prefix(corpus: Corpus, client: httpx.Client) -> None:
    name = next(iter(corpus.repos))
    with FakeGitHub(corpus, FakeSettings(enterprise=True)) as gh:
        assert gh.api_url.endswith("/api/v3")
        answer = client.get(f"{gh.api_url}/repos/{name}/issues?state=all&per_page=100")
        assert answer.links["next"]["url"].startswith(gh.api_url + "/repositories/")
        assert client.get(f"{gh.root_url}/repos/{name}").status_code == 404


def test_faults_are_seeded_and_of_every_kind(corpus: Corpus) -> None:
    name = next(iter(corpus.repos))

    def run() -> list[str | None]:
        settings = FakeSettings(fault_rate=0.5, fault_seed=11, slow_seconds=0.01)
        outcomes: list[str | None] = []
        with FakeGitHub(corpus, settings) as gh, httpx.Client(headers=AUTH, timeout=5) as c:
            for _ in range(40):
                try:
                    answer = c.get(f"{gh.api_url}/repos/{name}")
                    answer.json()
                    outcomes.append(str(answer.status_code))
                except (httpx.TransportError, ValueError) as exc:
                    outcomes.append(type(exc).__name__)
            assert {r.fault for r in gh.log} >= {
                "502",
                "503",
                "drop",
                "truncate",
                "short_body",
                "slow",
            }
        return outcomes

    first = run()
    assert first == run()
    assert {"502", "503", "200", "RemoteProtocolError", "JSONDecodeError"} <= set(first)


def test_issue_events_per_issue_and_repository_wide(corpus: Corpus, client: httpx.Client) -> None:
    repo = next(iter(corpus.repos.values()))
    number = next(iter(repo.duplicate_of))
    with FakeGitHub(corpus) as gh:
        events, _ = follow(
            client, f"{gh.api_url}/repos/{repo.full_name}/issues/{number}/events?per_page=100"
        )
        assert "marked_as_duplicate" in [e["event"] for e in events]
        assert "commented" not in [e["event"] for e in events]
        everything, _ = follow(
            client, f"{gh.api_url}/repos/{repo.full_name}/issues/events?per_page=100"
        )
        ids = [e["id"] for e in everything]
        assert ids == sorted(ids, reverse=True)
        assert len(ids) == sum(len(evs) for evs in repo.timeline.values())
        marked = {e["issue"]["number"] for e in everything if e["event"] == "marked_as_duplicate"}
        assert set(repo.duplicate_of) <= marked


def test_concurrent_requests_never_overdraw_a_bucket(corpus: Corpus) -> None:
    name = next(iter(corpus.repos))
    with FakeGitHub(corpus, FakeSettings(rate_limit={"core": 20})) as gh:

        def worker() -> list[int]:
            with httpx.Client(headers=AUTH, timeout=10) as c:
                return [c.get(f"{gh.api_url}/repos/{name}").status_code for _ in range(5)]

        with ThreadPoolExecutor(8) as pool:
            statuses = [s for batch in pool.map(lambda _: worker(), range(8)) for s in batch]
        assert statuses.count(200) == 20 and statuses.count(403) == 20
        assert gh.stats()["counted"] == 20 and gh.stats()["violations"] == 20


def test_a_fault_inside_an_exhausted_window_is_still_a_violation(
    corpus: Corpus, client: httpx.Client
) -> None:
    name = next(iter(corpus.repos))
    with FakeGitHub(
        corpus,
        FakeSettings(
            rate_limit={"core": 1}, fault_rate=1.0, fault_kinds=("503", "truncate"), fault_seed=1
        ),
    ) as gh:
        while not any(r.counted for r in gh.log):
            client.get(f"{gh.api_url}/repos/{name}")
        while not any(r.fault == "503" and r.violation for r in gh.log):
            client.get(f"{gh.api_url}/repos/{name}")
        assert all(
            r.violation
            for r in gh.log
            if r.t >= [x for x in gh.log if x.counted][0].t and not r.counted
        )


def test_closing_the_server_cuts_keep_alive_connections(
    corpus: Corpus, client: httpx.Client
) -> None:
    name = next(iter(corpus.repos))
    gh = FakeGitHub(corpus)
    assert client.get(f"{gh.api_url}/repos/{name}").status_code == 200  # the connection stays open
    gh.close()
    with pytest.raises(httpx.TransportError):
        client.get(f"{gh.api_url}/repos/{name}")


def test_requests_in_flight_are_measured(corpus: Corpus) -> None:
    name = next(iter(corpus.repos))
    slow = FakeSettings(fault_rate=1.0, fault_kinds=("slow",), slow_seconds=0.4)
    with FakeGitHub(corpus, slow) as gh:

        def one(_: int) -> int:
            return httpx.get(f"{gh.api_url}/repos/{name}", headers=AUTH).status_code

        with ThreadPoolExecutor(3) as pool:
            assert list(pool.map(one, range(3))) == [200, 200, 200]
        assert gh.stats()["max_in_flight"] == 3


def test_a_body_fault_drawn_for_a_404_is_neither_served_nor_counted(
    corpus: Corpus, client: httpx.Client
) -> None:
    # a crawl asserts one retry per counted fault: a fault the server never served (the 404
    # went out whole) must not be in the count, or that assertion fails on arrival order
    name = next(iter(corpus.repos))
    every = FakeSettings(fault_rate=1.0, fault_kinds=("short_body",))
    with FakeGitHub(corpus, every) as gh:
        missing = client.get(f"{gh.api_url}/repos/{name}/issues/999999")
        assert missing.status_code == 404 and missing.json()["message"] == "Not Found"
        assert gh.stats()["faults"] == {}
        with pytest.raises(httpx.TransportError):
            client.get(f"{gh.api_url}/repos/{name}")
        assert gh.stats()["faults"] == {"short_body": 1}
