"""One pass over a store's parts (`issues_sts.passes`): each part read once with the columns
all its consumers ask for, results in the parts' order, the same in worker processes, and the
one pool policy."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from issues_sts import passes
from issues_sts.passes import PartFrames, run_pass
from issues_sts.sandbox.worlds.generator import WorldConfig, generate_world
from issues_sts.sandbox.worlds.paper import write_repo_data
from issues_sts.store import Part, Store


@dataclass(frozen=True)
class Seen:
    """A consumer that reports what it was handed (module level: it travels to workers)."""

    issue_columns: tuple[str, ...] | None
    comment_columns: tuple[str, ...]

    def per_part(self, frames: PartFrames) -> dict[str, Any]:
        return {
            "part": frames.part,
            "numbers": frames.issues["number"].to_list(),
            "issue_columns": frames.issues.columns,
            "comment_columns": frames.comments.columns,
            "comments": frames.comments.height,
            "pid": os.getpid(),
        }

    def finish(self, store: Store, results: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return results


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("passes") / "store"
    corpus = generate_world(WorldConfig(seed=2, repos=2, issues_per_repo=60))
    with Store.open(root, create=True) as store:
        for name, data in corpus.repos.items():
            store.upsert_repo(name, status="ok", current_name=name)
            write_repo_data(store, name, data)
    return root


def _cut(monkeypatch: pytest.MonkeyPatch, issues: int) -> None:
    import issues_sts.store.frames

    monkeypatch.setattr(issues_sts.store.frames, "PART_ISSUES", issues)


def test_each_part_is_read_once_with_the_columns_of_every_consumer(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _cut(monkeypatch, 25)
    texts = Seen(("repo", "number", "title"), ("repo", "number", "body"))
    links = Seen(("repo", "number", "labels"), ("id", "repo", "number", "body"))
    with Store.open(store_dir) as store:
        parts = store.parts()
        first, second = run_pass(store, [texts, links])
        numbers = store.issues_frame(columns=("number",))["number"].to_list()
    assert first == second  # the same frames for both
    assert [r["part"] for r in first] == parts and len(parts) > 4
    assert [n for r in first for n in r["numbers"]] == numbers  # every issue, once, in order
    assert first[0]["issue_columns"] == ["repo", "number", "title", "labels"]
    assert first[0]["comment_columns"] == ["repo", "number", "body", "id"]
    assert sum(r["comments"] for r in first) > 0


def test_every_column_when_a_consumer_asks_for_all_and_no_comments_when_none_does(
    store_dir: Path,
) -> None:
    with Store.open(store_dir) as store:
        (results,) = run_pass(store, [Seen(None, ())])
        (few,) = run_pass(store, [Seen(("number",), ())])
    assert {"title", "body", "labels", "closed_by"} <= set(results[0]["issue_columns"])
    assert results[0]["comment_columns"] == [] and results[0]["comments"] == 0
    assert few[0]["issue_columns"] == ["number"]


def test_parts_in_worker_processes_come_back_in_order(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _cut(monkeypatch, 10)
    consumer = Seen(("repo", "number"), ("repo", "number", "body"))
    with Store.open(store_dir) as store:
        (here,) = run_pass(store, [consumer], workers=0)
        (pooled,) = run_pass(store, [consumer], workers=2)
    strip = [{k: v for k, v in r.items() if k != "pid"} for r in here]
    assert [{k: v for k, v in r.items() if k != "pid"} for r in pooled] == strip
    assert {r["pid"] for r in here} == {os.getpid()}
    assert os.getpid() not in {r["pid"] for r in pooled}


def _parts(issues: int, n: int) -> list[Part]:
    return [("o/r", i * issues + 1, (i + 1) * issues) for i in range(n)]


@pytest.mark.parametrize(
    ("parts", "cores", "workers"),
    [
        (_parts(20_000, 3), 2, 2),  # a big store: a worker per core
        (_parts(20_000, 3), 8, 3),  # no more workers than parts
        (_parts(20_000, 8), 8, passes.MAX_WORKERS),  # at most MAX_WORKERS
        (_parts(20_000, 3), 1, 0),  # one core: no pool
        (_parts(15_000, 2), 4, 0),  # the rust archive's size: the pool's start would not pay
        (_parts(70_000, 1), 4, 0),  # one part: nothing to share
    ],
)
def test_the_one_pool_policy(
    parts: list[Part], cores: int, workers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(passes, "cores", lambda: cores)
    assert passes.workers_for(parts) == workers
