"""POST /graphql on the fake GitHub: the crawler's duplicate query, errors, limits, real-schema
check."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from graphql import parse, validate

import issues_sts.sandbox.github
from issues_sts.sandbox.corpus import Corpus
from issues_sts.sandbox.github.graphql_api import load_schema
from issues_sts.sandbox.github.server import FakeGitHub
from issues_sts.sandbox.github.settings import FakeSettings
from issues_sts.sandbox.worlds.generator import WorldConfig, generate_world

AUTH = {"Authorization": "bearer test-token"}
ITEM = """
  number
  stateReason(enableDuplicate: true)
  timelineItems(itemTypes: [MARKED_AS_DUPLICATE_EVENT, UNMARKED_AS_DUPLICATE_EVENT],
                first: $first, after: $after) {
    nodes {
      __typename
      ... on MarkedAsDuplicateEvent {
        id createdAt isCrossRepository actor { login }
        canonical {
          __typename
          ... on Issue { number repository { nameWithOwner } }
          ... on PullRequest { number repository { nameWithOwner } }
        }
        duplicate { ... on Issue { number } }
      }
      ... on UnmarkedAsDuplicateEvent {
        id createdAt canonical { ... on Issue { number repository { nameWithOwner } } }
        duplicate { ... on Issue { number } }
      }
    }
    pageInfo { hasNextPage endCursor }
  }
"""


def batch_query(numbers: list[int]) -> str:
    fields = " ".join(f"issue_{n}: issue(number: {n}) {{ {ITEM} }}" for n in numbers)
    return (
        "query($owner: String!, $name: String!, $first: Int!, $after: String) { "
        f"repository(owner: $owner, name: $name) {{ nameWithOwner {fields} }} "
        "rateLimit { cost limit remaining used resetAt } }"
    )


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return generate_world(WorldConfig(seed=5, repos=3, issues_per_repo=300, cross_repo_rate=0.2))


def ask(gh: FakeGitHub, query: str, **variables: object) -> httpx.Response:
    return httpx.post(gh.graphql_url, json={"query": query, "variables": variables}, headers=AUTH)


def canonicals(answer: dict, numbers: list[int]) -> dict[int, tuple[str, int] | None]:
    """What a crawler concludes: the canonical of each issue's latest (un)marked event about
    itself (a mark of another issue as a duplicate of this one shows on its timeline too)."""
    found: dict[int, tuple[str, int] | None] = {}
    for n in numbers:
        nodes = answer["data"]["repository"][f"issue_{n}"]["timelineItems"]["nodes"]
        own = [m for m in nodes if (m.get("duplicate") or {}).get("number", n) == n]
        last = own[-1] if own else None
        if last and last["__typename"] == "MarkedAsDuplicateEvent" and last["canonical"]:
            found[n] = (
                last["canonical"]["repository"]["nameWithOwner"],
                last["canonical"]["number"],
            )
        else:
            found[n] = None
    return found


def test_batched_duplicate_query_names_every_canonical(corpus: Corpus) -> None:
    with FakeGitHub(corpus) as gh:
        for repo in corpus.repos.values():
            numbers = sorted(repo.duplicate_of)[:40]
            answer = ask(
                gh, batch_query(numbers), owner=repo.owner, name=repo.name, first=50, after=None
            )
            assert answer.status_code == 200 and answer.headers["x-ratelimit-resource"] == "graphql"
            body = answer.json()
            assert "errors" not in body
            expected = {}
            for n in numbers:
                target_repo, target = repo.duplicate_of[n]
                present = corpus.find(target_repo) and corpus.find(target_repo).issue(target)
                expected[n] = (target_repo, target) if present else None
            assert canonicals(body, numbers) == expected
            assert body["data"]["rateLimit"]["cost"] == 1
        assert any(r.cost for r in gh.log)


def test_state_reason_needs_enable_duplicate(corpus: Corpus) -> None:
    repo = next(iter(corpus.repos.values()))
    number = next(i["number"] for i in repo.issues if i["state_reason"] == "duplicate")
    query = (
        "query($o: String!, $n: String!) { repository(owner: $o, name: $n) { "
        f"a: issue(number: {number}) {{ stateReason }} "
        f"b: issue(number: {number}) {{ stateReason(enableDuplicate: true) }} }} }}"
    )
    with FakeGitHub(corpus) as gh:
        data = ask(gh, query, o=repo.owner, n=repo.name).json()["data"]["repository"]
    assert data == {"a": {"stateReason": "NOT_PLANNED"}, "b": {"stateReason": "DUPLICATE"}}


def test_not_found_errors_look_like_githubs(corpus: Corpus) -> None:
    repo = next(iter(corpus.repos.values()))
    pr = next(i["number"] for i in repo.issues if "pull_request" in i)
    with FakeGitHub(corpus) as gh:
        body = ask(
            gh, batch_query([999_999, pr]), owner=repo.owner, name=repo.name, first=10, after=None
        ).json()
        assert body["data"]["repository"]["issue_999999"] is None
        assert [e["type"] for e in body["errors"]] == ["NOT_FOUND", "NOT_FOUND"]
        assert body["errors"][0]["path"] == ["repository", "issue_999999"]
        missing = ask(gh, '{ repository(owner: "no", name: "where") { nameWithOwner } }').json()
        assert missing["data"]["repository"] is None and missing["errors"][0]["type"] == "NOT_FOUND"


def test_timeline_pagination_and_page_limit(corpus: Corpus) -> None:
    repo = next(r for r in corpus.repos.values() if any(len(e) > 3 for e in r.timeline.values()))
    number = next(
        n
        for n, e in repo.timeline.items()
        if len(e) > 3 and repo.issue(n) and "pull_request" not in repo.issue(n)
    )
    query = (
        "query($o: String!, $n: String!, $after: String) { repository(owner: $o, name: $n) { "
        f"issue(number: {number}) {{ timelineItems(first: 1, after: $after) {{ nodes {{ __typename "
        "} pageInfo { hasNextPage endCursor } totalCount } } } }"
    )
    seen, after = 0, None
    with FakeGitHub(corpus) as gh:
        while True:
            page = ask(gh, query, o=repo.owner, n=repo.name, after=after).json()["data"][
                "repository"
            ]["issue"]["timelineItems"]
            seen += len(page["nodes"])
            if not page["pageInfo"]["hasNextPage"]:
                break
            after = page["pageInfo"]["endCursor"]
        assert seen == page["totalCount"] > 3
        too_many = ask(
            gh, batch_query([number]), owner=repo.owner, name=repo.name, first=101, after=None
        ).json()
        assert too_many["errors"][0]["type"] == "EXCESSIVE_PAGINATION"


def test_invalid_query_disabled_endpoint_and_enterprise_path(corpus: Corpus) -> None:
    with FakeGitHub(corpus) as gh:
        body = ask(gh, '{ repository(owner: "a", name: "b") { noSuchField } }').json()
        assert "noSuchField" in body["errors"][0]["message"] and "data" not in body
        anonymous = httpx.post(gh.graphql_url, json={"query": "{ rateLimit { cost } }"})
        assert anonymous.status_code == 401 and "authenticated" in anonymous.json()["message"]
    with FakeGitHub(corpus, FakeSettings(graphql=False)) as gh:
        assert ask(gh, "{ rateLimit { cost } }").status_code == 404
    with FakeGitHub(corpus, FakeSettings(enterprise=True)) as gh:
        assert gh.graphql_url.endswith("/api/graphql")
        assert ask(gh, "{ rateLimit { cost } }").json() == {"data": {"rateLimit": {"cost": 1}}}


def test_graphql_bucket_is_separate_and_exhausts_with_rate_limited(corpus: Corpus) -> None:
    repo = next(iter(corpus.repos.values()))
    with FakeGitHub(corpus, FakeSettings(rate_limit={"graphql": 2, "core": 100})) as gh:
        answers = [ask(gh, "{ rateLimit { remaining } }") for _ in range(3)]
        assert [
            a.json().get("data", {}).get("rateLimit", {}).get("remaining") for a in answers[:2]
        ] == [1, 0]
        assert answers[2].json()["errors"][0]["type"] == "RATE_LIMITED"
        assert answers[2].headers["x-ratelimit-remaining"] == "0"
        rest = httpx.get(f"{gh.api_url}/repos/{repo.full_name}", headers=AUTH)
        assert (
            rest.headers["x-ratelimit-resource"] == "core"
            and rest.headers["x-ratelimit-remaining"] == "99"
        )
        assert gh.stats()["violations"] == 1


def test_schema_check_refuses_queries_the_reference_schema_rejects(
    corpus: Corpus, tmp_path
) -> None:
    # A reference SDL without `stateReason`: valid on the fake's own schema, refused by the check.
    own = (Path(issues_sts.sandbox.github.__file__).parent / "schema.graphql").read_text()
    reference = tmp_path / "reference.graphql"
    reference.write_text(
        own.replace("  stateReason(enableDuplicate: Boolean = false): IssueStateReason\n", "")
    )
    repo = next(iter(corpus.repos.values()))
    query = batch_query(sorted(repo.duplicate_of)[:2])
    with FakeGitHub(
        corpus, FakeSettings(graphql_schema_check=True, schema_path=str(reference))
    ) as gh:
        refused = ask(gh, query, owner=repo.owner, name=repo.name, first=5, after=None).json()
        assert "data" not in refused and "stateReason" in refused["errors"][0]["message"]
    with FakeGitHub(
        corpus, FakeSettings(graphql_schema_check=False, schema_path=str(reference))
    ) as gh:
        assert (
            "errors"
            not in ask(gh, query, owner=repo.owner, name=repo.name, first=5, after=None).json()
        )


@pytest.mark.shared
def test_the_duplicate_query_is_valid_on_githubs_real_schema(
    corpus: Corpus, shared_dir: Path
) -> None:
    schema_path = shared_dir / "reference" / "github-graphql" / "schema.graphql"
    if not schema_path.is_file():
        pytest.skip(f"GitHub's GraphQL schema is absent ({schema_path})")
    real = load_schema(str(schema_path), True)
    assert validate(real, parse(batch_query([1, 2]))) == []
    repo = next(iter(corpus.repos.values()))
    with FakeGitHub(
        corpus, FakeSettings(graphql_schema_check=True, schema_path=str(schema_path))
    ) as gh:
        answer = ask(
            gh,
            batch_query(sorted(repo.duplicate_of)[:3]),
            owner=repo.owner,
            name=repo.name,
            first=20,
            after=None,
        )
        assert "errors" not in answer.json()
        # A field GitHub serves but the fake does not: GitHub's schema accepts it, ours refuses.
        unserved = ask(gh, '{ repository(owner: "a", name: "b") { stargazerCount } }').json()
        assert "stargazerCount" in unserved["errors"][0]["message"]


@pytest.mark.shared
def test_the_fakes_schema_is_a_subset_of_githubs(shared_dir: Path) -> None:
    """Every type, field and argument the fake serves exists on GitHub with the same type."""
    schema_path = shared_dir / "reference" / "github-graphql" / "schema.graphql"
    if not schema_path.is_file():
        pytest.skip(f"GitHub's GraphQL schema is absent ({schema_path})")
    real = load_schema(str(schema_path), True)
    own = load_schema(
        str(Path(issues_sts.sandbox.github.__file__).parent / "schema.graphql"), False
    )
    for name, own_type in own.type_map.items():
        if name.startswith("__"):
            continue
        assert name in real.type_map, name
        real_type = real.type_map[name]
        for field_name, field in getattr(own_type, "fields", {}).items():
            real_field = real_type.fields[field_name]  # type: ignore[union-attr]
            assert str(real_field.type) == str(field.type), f"{name}.{field_name}"
            for arg_name, arg in getattr(field, "args", {}).items():
                assert str(real_field.args[arg_name].type) == str(arg.type), (
                    f"{name}.{field_name}({arg_name})"
                )
        for value in getattr(own_type, "values", {}):
            assert value in real_type.values, f"{name}.{value}"  # type: ignore[union-attr]
        if hasattr(own_type, "types"):
            assert {t.name for t in own_type.types} <= {t.name for t in real_type.types}, name  # type: ignore[union-attr]


def test_the_crawlers_thread_and_count_queries_are_valid_on_githubs_real_schema(
    shared_dir: Path,
) -> None:
    from issues_sts.crawl.plan import COUNTS_QUERY
    from issues_sts.crawl.threads import Ask, build_query

    schema_path = shared_dir / "reference" / "github-graphql" / "schema.graphql"
    if not schema_path.is_file():
        pytest.skip(f"GitHub's GraphQL schema is absent ({schema_path})")
    real = load_schema(str(schema_path), True)
    threads, _ = build_query("a/b", [Ask(1, None, 7), Ask(2, None, 100, "Y3Vyc29yOnYyOjk5")])
    assert validate(real, parse(threads)) == []
    assert validate(real, parse(COUNTS_QUERY)) == []


def test_query_cost_and_resource_limits(corpus: Corpus) -> None:
    """GitHub's formula: one request per parent of each connection, / 100, at least 1; a query
    asking for more nodes than the resource limit is refused and still costs a point."""
    from issues_sts.crawl.threads import Ask, build_query

    repo = next(iter(corpus.repos.values()))
    numbers = [i["number"] for i in repo.issues if "pull_request" not in i][:120]
    with FakeGitHub(corpus, FakeSettings(resource_node_limit=1000)) as gh:
        light, variables = build_query(repo.full_name, [Ask(n, None, 5) for n in numbers])
        answer = httpx.post(
            gh.graphql_url, json={"query": light, "variables": variables}, headers=AUTH
        )
        assert answer.status_code == 200 and answer.json()["data"]["repository"]
        heavy, variables = build_query(repo.full_name, [Ask(n, None, 100) for n in numbers[:20]])
        refused = httpx.post(
            gh.graphql_url, json={"query": heavy, "variables": variables}, headers=AUTH
        ).json()
        assert (
            refused["data"] is None and refused["errors"][0]["type"] == "RESOURCE_LIMITS_EXCEEDED"
        )
        assert [r.cost for r in gh.log] == [1, 1]  # 120 aliases: round(1.2) = 1 point; refused: 1
