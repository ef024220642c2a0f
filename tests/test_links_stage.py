"""The link stage on a real (small) crawl store: store facts, clusters, counters, bytes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

from issues_sts.crawl.rows import comment_rows, issue_rows
from issues_sts.links import LinkConfig, build_links
from issues_sts.links.clusters import clusters
from issues_sts.store import Store

REPO = "acme/widgets"


def issue(
    number: int,
    *,
    pr: bool = False,
    state: str = "closed",
    closed_by: str | None = "maint",
    closed_at: str = "2015-03-02T10:05:00Z",
    labels: tuple[str, ...] = (),
    state_reason: str | None = None,
    repo: str = REPO,
) -> dict[str, Any]:
    raw: dict[str, Any] = {
        "number": number,
        "id": 1000 + number,
        "title": f"Issue {number}",
        "body": "It crashes on start.",
        "user": {"login": "reporter"},
        "author_association": "NONE",
        "state": state,
        "state_reason": state_reason,
        "labels": [{"name": name} for name in labels],
        "comments": 1,
        "created_at": "2015-03-01T10:00:00Z",
        "updated_at": "2015-03-02T10:05:00Z",
        "closed_at": closed_at if state == "closed" else None,
        "closed_by": {"login": closed_by} if closed_by else None,
        "html_url": f"https://github.com/{repo}/{'pull' if pr else 'issues'}/{number}",
    }
    if pr:
        raw["pull_request"] = {"html_url": raw["html_url"]}
    return raw


def comment(
    number: int,
    body: str,
    *,
    cid: int,
    login: str = "maint",
    assoc: str = "MEMBER",
    created: str = "2015-03-02T10:00:00Z",
    repo: str = REPO,
) -> dict[str, Any]:
    return {
        "id": cid,
        "issue_url": f"https://api.github.com/repos/{repo}/issues/{number}",
        "user": {"login": login},
        "author_association": assoc,
        "body": body,
        "created_at": created,
        "updated_at": created,
        "html_url": f"https://github.com/{repo}/issues/{number}#issuecomment-{cid}",
    }


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    st = Store.open(tmp_path / "store", create=True)
    issues = [issue(n) for n in (1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 20, 21)] + [
        issue(30, pr=True),
        issue(31, pr=True),
    ]
    comments = [
        comment(2, "Duplicate of #1", cid=1),  # chain: 3 -> 2 -> 1
        comment(3, "Closing as a dupe of #2", cid=2),
        comment(5, "dup of #4", cid=3),  # cycle: 4 <-> 5
        comment(4, "dup of #5", cid=4),
        comment(6, "Closing as a duplicate of #30", cid=5),  # target is a PR
        comment(31, "Closing in favor of #1", cid=6),  # source is a PR
        comment(7, "Duplicate of #99", cid=7),  # missing in a crawled repo
        comment(8, "Duplicate of other/tool#5", cid=8),  # repo not crawled
        comment(9, "Duplicate of #40", cid=9),  # #40 was transferred to #12
        comment(11, "Duplicate of #41", cid=10),  # #41 moved to #11 itself
        comment(13, "Duplicate of #50", cid=11),  # #50 deleted
        comment(20, "dupe of #21\n\n> dupe of #1", cid=12),
        comment(21, "Closing, superseded by #13.", cid=13),  # a cue word the pre-filter must keep
    ]
    st.write_page(REPO, issues=issue_rows(REPO, issues), comments=comment_rows(REPO, comments))
    st.add_redirect(REPO, 40, REPO, 12)
    st.add_redirect(REPO, 41, REPO, 11)
    st.mark_tombstone(REPO, 50, "deleted")
    return st


def _row(table_links: pl.DataFrame, number: int) -> dict[str, Any]:
    rows = table_links.filter(pl.col("number") == number).to_dicts()
    assert len(rows) == 1, rows
    return rows[0]


def test_store_facts_exclude_and_count(store: Store) -> None:
    table = build_links(store, LinkConfig())
    links = table.links
    assert _row(links, 6)["excluded_reason"] == "target_is_pull_request"
    assert _row(links, 31)["excluded_reason"] == "source_is_pull_request"
    assert _row(links, 7)["excluded_reason"] == "target_missing"
    assert _row(links, 8)["excluded_reason"] == "target_missing"
    assert _row(links, 13)["excluded_reason"] == "target_missing"
    moved = _row(links, 9)
    assert (moved["target_number"], moved["stated_target_number"], moved["usable"]) == (
        12,
        40,
        True,
    )
    assert links.filter(pl.col("number") == 11).is_empty()  # self-link after the transfer
    counters = table.counters
    assert counters["target_missing:repo_not_crawled"] == 1
    assert counters["target_missing:deleted_or_unseen"] == 2
    assert counters["dropped:self_link_after_redirect"] == 1
    assert counters["target_redirected"] == 2
    assert counters["excluded:target_is_pull_request"] == 1
    assert counters["excluded:source_is_pull_request"] == 1
    assert counters["dropped:in_code_quote_or_comment"] == 1
    assert counters["usable_links"] == int(links["usable"].sum())


def test_contract_columns(store: Store) -> None:
    links = build_links(store).links
    for col in (
        "repo",
        "number",
        "target_repo",
        "target_number",
        "signal",
        "signals",
        "confidence",
        "evidence_url",
        "author",
        "author_association",
        "created_at",
        "usable",
        "excluded_reason",
        "cluster_id",
        "root_repo",
        "root_number",
    ):
        assert col in links.columns
    assert links["confidence"].is_between(0, 1).all()
    assert _row(links, 2)["evidence_url"].endswith("#issuecomment-1")
    assert _row(links, 21)["target_number"] == 13


def test_clusters_resolve_chains_and_cycles(store: Store) -> None:
    table = build_links(store)
    cl = {(r["number"]): (r["cluster_id"], r["root_number"]) for r in table.clusters.to_dicts()}
    assert cl[1][1] == cl[2][1] == cl[3][1] == 1  # chain rooted at the sink
    assert cl[4][1] == cl[5][1] == 4  # cycle rooted at the oldest
    assert cl[1][0] == cl[3][0] != cl[4][0]
    assert _row(table.links, 3)["root_number"] == 1


@pytest.mark.parametrize(
    ("edges", "roots"),
    [
        ([(("r", 2), ("r", 1)), (("r", 3), ("r", 2))], {1: 1, 2: 1, 3: 1}),
        ([(("r", 1), ("r", 2)), (("r", 2), ("r", 1))], {1: 1, 2: 1}),
        (
            [(("r", 5), ("r", 9)), (("r", 5), ("r", 7))],
            {5: 7, 7: 7, 9: 7},
        ),  # two canonicals: the oldest
        ([(("r", 3), ("r", 1)), (("r", 4), ("r", 2))], {3: 1, 1: 1, 4: 2, 2: 2}),
    ],
)
def test_cluster_roots(
    edges: list[tuple[tuple[str, int], tuple[str, int]]], roots: dict[int, int]
) -> None:
    got = clusters(edges)
    assert {node[1]: root[1] for node, (_, root) in got.items()} == roots
    assert clusters(list(reversed(edges))) == got  # order-independent ids


def test_write_is_deterministic(store: Store, tmp_path: Path) -> None:
    a = build_links(store).write(tmp_path / "a")
    b = build_links(store).write(tmp_path / "b")
    assert a.name == "links.parquet"
    assert a.read_bytes() == b.read_bytes()
    assert pl.read_parquet(a).height == build_links(store).links.height


def test_empty_store_gives_empty_table(tmp_path: Path) -> None:
    table = build_links(Store.open(tmp_path / "empty", create=True))
    assert table.links.is_empty() and table.clusters.is_empty()
    assert "usable" in table.links.columns


def test_a_closed_issue_whose_title_alone_names_its_original_is_read(tmp_path: Path) -> None:
    # no comment, no label, an empty body: only the title says it (conv-19's QGIS close)
    st = Store.open(tmp_path / "store", create=True)
    titled = issue(2) | {"title": f"Duplicate of https://github.com/{REPO}/issues/1", "body": ""}
    still_open = issue(3, state="open") | {"title": "Duplicate of #1", "body": ""}
    st.write_page(REPO, issues=issue_rows(REPO, [issue(1), titled, still_open]), comments=[])
    table = build_links(st)
    assert _row(table.links, 2)["target_number"] == 1
    assert table.links.filter(pl.col("number") == 3).is_empty()
    assert table.counters["evidence:title_statement"] == 1
