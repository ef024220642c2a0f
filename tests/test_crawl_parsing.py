"""Link headers, GraphQL batches and duplicate candidates: pure functions, table-driven."""

from __future__ import annotations

import pytest

from issues_sts.crawl import graphql as gql
from issues_sts.crawl.candidates import has_duplicate_wording, rank_candidates, referenced_numbers
from issues_sts.crawl.client import Scrubber, graphql_url
from issues_sts.crawl.pagination import (
    last_page,
    next_url,
    parse_link_header,
    same_origin,
    with_query,
)

GITHUB_LINK = (
    '<https://api.github.com/repos/openframeworks/openFrameworks/issues?page=4>; rel="next", '
    '<https://api.github.com/repos/openframeworks/openFrameworks/issues?page=14>; rel="last", '
    '<https://api.github.com/repos/openframeworks/openFrameworks/issues?page=1>; rel="first", '
    '<https://api.github.com/repos/openframeworks/openFrameworks/issues?page=2>; rel="prev"'
)
CURSOR_LINK = (
    "<https://api.github.com/repositories/724712/issues?state=all&per_page=100"
    "&after=Y3Vyc29yOnYyOpLPAAABjMHrJ_A%3D>; "
    'rel="next"'
)


@pytest.mark.parametrize(
    ("header", "nxt", "last"),
    [
        (
            GITHUB_LINK,
            "https://api.github.com/repos/openframeworks/openFrameworks/issues?page=4",
            14,
        ),
        (
            CURSOR_LINK,
            "https://api.github.com/repositories/724712/issues?state=all&per_page=100"
            "&after=Y3Vyc29yOnYyOpLPAAABjMHrJ_A%3D",
            None,
        ),
        ('<https://x/a?page=1>; rel="prev", <https://x/a?page=1>; rel="first"', None, None),
        (None, None, None),
        ("", None, None),
        ("garbage without brackets", None, None),
    ],
)
def test_link_header(header: str | None, nxt: str | None, last: int | None) -> None:
    assert next_url(header) == nxt
    assert last_page(header) == last


def test_parse_link_header_keeps_every_rel() -> None:
    assert set(parse_link_header(GITHUB_LINK)) == {"next", "last", "first", "prev"}


def test_with_query_and_origin() -> None:
    url = with_query(
        "http://h:1/repos/o/r/issues",
        state="all",
        since="2024-01-01T00:00:00Z",
        per_page=100,
        x=None,
    )
    assert url == "http://h:1/repos/o/r/issues?state=all&since=2024-01-01T00:00:00Z&per_page=100"
    assert same_origin("http://h:1/repositories/5/issues?page=2", "http://h:1/api/v3")
    assert not same_origin("https://evil.example/issues", "https://api.github.com")


@pytest.mark.parametrize(
    ("api", "expected"),
    [
        ("https://api.github.com", "https://api.github.com/graphql"),
        ("https://ghe.example.com/api/v3", "https://ghe.example.com/api/graphql"),
        ("https://ghe.example.com/api/v3/", "https://ghe.example.com/api/graphql"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080/graphql"),
    ],
)
def test_graphql_url(api: str, expected: str) -> None:
    assert graphql_url(api) == expected


def test_scrubber_removes_the_token() -> None:
    scrub = Scrubber(["ghp_secret", None])
    assert scrub("Authorization: Bearer ghp_secret failed") == "Authorization: Bearer *** failed"


def test_build_query_batches_issues_with_aliases() -> None:
    query, variables = gql.build_query("acme/widgets", [3, 17], after={17: "Y3Vy"})
    assert variables == {"owner": "acme", "name": "widgets"}
    assert "i3: issue(number: 3)" in query and "i17: issue(number: 17)" in query
    assert 'after: "Y3Vy"' in query and query.count("after:") == 1
    assert "stateReason(enableDuplicate: true)" in query
    assert "MARKED_AS_DUPLICATE_EVENT, UNMARKED_AS_DUPLICATE_EVENT" in query


def test_build_query_is_valid_against_githubs_schema(shared_dir) -> None:
    from graphql import build_schema, parse, validate

    sdl = (shared_dir / "reference" / "github-graphql" / "schema.graphql").read_text(
        encoding="utf-8"
    )
    schema = build_schema(sdl, assume_valid_sdl=True)
    schema._validation_errors = []  # GitHub's SDL breaks a deprecation rule graphql-core enforces
    query, _ = gql.build_query("acme/widgets", [1, 2], after={2: "abc"})
    assert validate(schema, parse(query)) == []


def _event(kind: str, node_id: str, canonical: int | None) -> dict:
    ref = {
        "__typename": "Issue",
        "number": canonical,
        "repository": {"nameWithOwner": "acme/widgets"},
    }
    return {
        "__typename": kind,
        "id": node_id,
        "createdAt": "2025-01-01T00:00:00Z",
        "actor": {"login": "m"},
        "canonical": ref if canonical else None,
        "duplicate": None,
    }


def test_parse_batch() -> None:
    answer = {
        "data": {
            "repository": {
                "i3": {
                    "number": 3,
                    "stateReason": "DUPLICATE",
                    "timelineItems": {
                        "nodes": [
                            _event("MarkedAsDuplicateEvent", "MADE_1", 1),
                            _event("UnmarkedAsDuplicateEvent", "UADE_2", 1),
                        ],
                        "pageInfo": {"hasNextPage": True, "endCursor": "c1"},
                    },
                },
                "i4": None,
                "i5": {
                    "number": 5,
                    "stateReason": None,
                    "timelineItems": {"nodes": [], "pageInfo": {"hasNextPage": False}},
                },
            }
        },
        "errors": [
            {"type": "NOT_FOUND", "path": ["repository", "i4"], "message": "Could not resolve"}
        ],
    }
    batch = gql.parse_batch("acme/widgets", [3, 4, 5], answer)
    assert batch.missing == [4] and batch.more == {3: "c1"} and batch.events[5] == []
    first, second = batch.events[3]
    assert (first["event"], first["canonical_number"], first["event_key"]) == (
        "marked_as_duplicate",
        1,
        "MADE_1",
    )
    assert second["event"] == "unmarked_as_duplicate"
    assert gql.fatal_errors(answer) == []
    assert gql.fatal_errors({"data": None, "errors": [{"message": "Something went wrong"}]}) == [
        "Something went wrong"
    ]


def test_rest_event_row_uses_the_node_id_like_graphql() -> None:
    row = gql.rest_event_row(
        "acme/widgets",
        3,
        {
            "event": "marked_as_duplicate",
            "id": 9,
            "node_id": "MADE_1",
            "actor": {"login": "m"},
            "created_at": "2025-01-01T00:00:00Z",
        },
    )
    assert row is not None and row["event_key"] == "MADE_1" and row["canonical_number"] is None
    assert gql.rest_event_row("acme/widgets", 3, {"event": "commented", "id": 1}) is None


def test_only_duplicate_labels_keep_their_history() -> None:
    def labeled(name: str) -> dict:
        event = {"event": "labeled", "id": 1, "label": {"name": name}, "actor": {"login": "m"}}
        row = gql.rest_event_row("acme/widgets", 3, event)
        assert row is not None and row["label"] == name
        return row

    assert gql.worth_keeping(labeled("status:duplicate"))
    assert not gql.worth_keeping(labeled("bug"))
    closed = {"event": "closed", "id": 2, "state_reason": "duplicate", "actor": {"type": "Bot"}}
    row = gql.rest_event_row("acme/widgets", 3, closed)
    assert row is not None and gql.worth_keeping(row)
    assert (row["state_reason"], row["actor_type"]) == ("duplicate", "Bot")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Duplicate of #12", True),
        ("This is a dupe of #4", True),
        ("Closing in favour of #3.", True),
        ("Same as #9", True),
        ("Already reported in https://github.com/a/b/issues/1", True),
        ("Duplicates #7", True),
        ("duplicated", True),
        ("I can reproduce this on nightly", False),
        ("The dupfile tool", False),
        ("", False),
        (None, False),
    ],
)
def test_duplicate_wording(text: str | None, expected: bool) -> None:
    assert has_duplicate_wording(text) is expected


def test_referenced_numbers() -> None:
    text = (
        "Duplicate of #12, see https://github.com/acme/widgets/issues/40 and "
        "https://github.com/x/y/issues/5 and a#3"
    )
    assert referenced_numbers(text, "acme/widgets") == {12, 40}


def test_rank_candidates_strongest_first_and_bounded() -> None:
    rows = [
        (1, None, "t1", "[]"),
        (2, "duplicate", "t2", "[]"),
        (3, None, "t3", '["duplicate"]'),
        (4, None, "t4", "[]"),
    ]
    ranked = rank_candidates(rows, worded={1, 5}, limit=2)
    assert [c.number for c in ranked] == [2, 3]
    assert [c.number for c in rank_candidates(rows, worded={1}, limit=10)] == [2, 3, 1]


def test_a_full_batch_names_each_fields_once(shared_dir) -> None:
    """A hundred issues' threads and timelines in one query: the comment and event fields are
    named fragments spread by every alias, so the query is 22 KB instead of 79 KB with a copy per
    alias (which GitHub parses, and the crawl uploads, on every batch; 16 KB instead of 64 KB
    for fifty candidates' events), and GitHub's schema accepts it with and without timelines."""
    from graphql import build_schema, parse, validate

    from issues_sts.crawl.threads import Ask
    from issues_sts.crawl.threads import build_query as thread_query

    asks = [Ask(n, None, 100, events=n % 2 == 0) for n in range(1, 101)]
    query, _ = thread_query("acme/widgets", asks)
    assert len(query) < 30_000
    assert query.count("fullDatabaseId") == 1 and query.count("... on ClosedEvent") == 1
    events, _ = gql.build_query("acme/widgets", list(range(1, 51)))
    assert len(events) < 20_000 and events.count("... on MarkedAsDuplicateEvent") == 1
    sdl = (shared_dir / "reference" / "github-graphql" / "schema.graphql").read_text(
        encoding="utf-8"
    )
    schema = build_schema(sdl, assume_valid_sdl=True)
    schema._validation_errors = []
    comments_only, _ = thread_query("acme/widgets", [Ask(1, None, 5)])
    for text in (query, events, comments_only):
        assert validate(schema, parse(text)) == []
