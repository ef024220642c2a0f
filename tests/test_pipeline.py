"""Crawl the fake GitHub, extract links, build, load: the stages together, against the
generator's ground truth."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

from issues_sts.crawl.config import CrawlConfig
from issues_sts.crawl.runner import run_crawl
from issues_sts.dataset.build import run_build
from issues_sts.dataset.config import BuildConfig
from issues_sts.links import build_links
from issues_sts.sandbox.github.server import FakeGitHub
from issues_sts.sandbox.github.settings import FakeSettings
from issues_sts.sandbox.worlds.generator import generate_world, preset
from issues_sts.store import Store

# Shaped like a real token (built at run time so no token-like literal is tracked in git).
TOKEN = "ghp_" + "pipelineTestToken" + "0" * 22


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, Path]:
    corpus = generate_world(preset("small", seed=11))
    store_dir = tmp_path_factory.mktemp("pipeline") / "store"
    with FakeGitHub(corpus, FakeSettings(tokens=frozenset({TOKEN}))) as github:
        cfg = CrawlConfig(
            repos=tuple(corpus.repos), token=TOKEN, api_url=github.api_url, store=store_dir
        )  # type: ignore[arg-type]
        summary = run_crawl(cfg)
    assert summary.ok
    return corpus, store_dir


def _old_tickets(issues: pl.DataFrame, target: tuple[str, int]) -> list[str]:
    at = (pl.col("repo") == target[0]) & (pl.col("number") == target[1])
    body = " ".join(issues.filter(at)["body"].fill_null("").to_list())
    return re.findall(r"^_Original ticket \S+/ticket/(\d+)", body)


def _findable(corpus: object, store: Store) -> dict[tuple[str, int], tuple[str, int]]:
    """Ground-truth duplicates whose thread names the target somewhere (event or text):
    label-only duplicates have no knowable target and are counted, not linked."""
    comments = store.comments_frame()
    issues = store.issues_frame()
    events = store.events_frame()
    truth: dict[tuple[str, int], tuple[str, int]] = {}
    for repo, data in corpus.repos.items():  # type: ignore[attr-defined]
        for number, target in data.truth_duplicates.items():
            this = (pl.col("repo") == repo) & (pl.col("number") == number)
            # the issue body is part of the thread ("I think #12 describes the same problem.")
            bodies = (
                comments.filter(this)["body"].to_list()
                + issues.filter(this)["body"].fill_null("").to_list()
            )
            # a mark naming the target (its own, or as its canonical's timeline showed it)
            marks = events.filter(
                pl.col("event").str.contains("marked_as_duplicate")
                & (pl.col("canonical_number") == target[1])
                & (
                    this
                    | (pl.col("duplicate_repo").str.to_lowercase() == repo.lower())
                    & (pl.col("duplicate_number") == number)
                )
            )
            has_event = marks.height > 0
            # a thread migrated from trac names its target by the old ticket the target's
            # migration header carries (issue 32)
            names = [str(target[1]), *_old_tickets(issues, target)]
            if has_event or any(re.search(rf"\b{n}\b", b) for n in names for b in bodies):
                truth[(repo, number)] = target
    return truth


def test_links_match_the_generated_ground_truth(crawled: tuple[object, Path]) -> None:
    corpus, store_dir = crawled
    with Store.open(store_dir) as store:
        table = build_links(store)
        truth = _findable(corpus, store)
    usable = table.links.filter(pl.col("usable"))
    found = {
        (r, n): (tr, tn)
        for r, n, tr, tn in usable.select(
            "repo", "number", "target_repo", "target_number"
        ).iter_rows()
    }
    correct = sum(1 for key, target in found.items() if truth.get(key) == target)
    assert len(truth) >= 20
    assert correct / len(found) >= 0.98, "precision"
    assert correct / len(truth) >= 0.90, "recall on duplicates with a knowable target"


def test_build_from_a_real_crawl_loads_with_datasets_and_never_leaks(
    crawled: tuple[object, Path], tmp_path: Path
) -> None:
    _, store_dir = crawled
    out = tmp_path / "dataset"
    summary = run_build(BuildConfig(store=store_dir, out=out, seed=3))
    import datasets

    default = datasets.load_dataset(str(out))
    positive = datasets.load_dataset(str(out), "positive")
    assert {s: default[s].num_rows for s in default} == summary.sizes["default"]
    assert set(positive["train"].column_names) == {"anchor", "positive"}
    pairs = pl.read_parquet(out / "pairs.parquet")
    ends = pl.concat(
        [
            pairs.select("split", repo="repo1", number="number1"),
            pairs.select("split", repo="repo2", number="number2"),
        ]
    )
    assert (
        ends.group_by("repo", "number").agg(pl.col("split").n_unique().alias("n"))["n"].max() == 1
    )
    every_file = [p for p in list(out.rglob("*")) + list(store_dir.rglob("*")) if p.is_file()]
    assert every_file and not any(TOKEN.encode() in p.read_bytes() for p in every_file)


@pytest.fixture(scope="module")
def modern(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, Path]:
    """A world with today's shapes in numbers: late-removed labels, closing bots, withdrawn
    duplicate closes, comment ids above 2^31."""
    from issues_sts.sandbox.worlds.generator import WorldConfig

    corpus = generate_world(
        # a seed with at least 3 of each rare shape (relabelled, bot_closed) among its duplicates
        WorldConfig(seed=5, repos=2, issues_per_repo=900, duplicate_rate=0.12, withdrawn_rate=0.04)
    )
    store_dir = tmp_path_factory.mktemp("modern") / "store"
    with FakeGitHub(corpus, FakeSettings(tokens=frozenset({TOKEN}))) as github:
        cfg = CrawlConfig(
            repos=tuple(corpus.repos), token=TOKEN, api_url=github.api_url, store=store_dir
        )  # type: ignore[arg-type]
        assert run_crawl(cfg).ok
    return corpus, store_dir


def test_todays_shapes_are_read_as_the_world_meant_them(modern: tuple[object, Path]) -> None:
    corpus, store_dir = modern
    with Store.open(store_dir) as store:
        usable = build_links(store).links.filter(pl.col("usable"))
        assert store.comments_frame()["id"].max() > 2**31  # type: ignore[operator]
    found = {
        (r, n): (tr, tn)
        for r, n, tr, tn in usable.select(
            "repo", "number", "target_repo", "target_number"
        ).iter_rows()
    }
    for shape in ("relabelled", "bot_closed"):
        wanted = {
            (name, n): t
            for name, data in corpus.repos.items()  # type: ignore[attr-defined]
            for n, t in data.truth_duplicates.items()
            if data.truth_evidence[n] == shape
        }
        assert len(wanted) >= 3, shape
        right = sum(found.get(k) == t for k, t in wanted.items())
        assert right / len(wanted) >= 0.9, f"{shape}: {right} of {len(wanted)}"
    withdrawn = {
        (name, n)
        for name, data in corpus.repos.items()  # type: ignore[attr-defined]
        for n, events in data.timeline.items()
        if any(e["event"] == "reopened" for e in events) and n not in data.truth_duplicates
    }
    assert len(withdrawn) >= 10
    assert not withdrawn & set(found), "a duplicate close taken back still makes a link"


def test_without_graphql_a_closing_bot_is_known_from_its_rest_timeline(tmp_path: Path) -> None:
    """REST lists name no closer; a closed issue GitHub calls a duplicate gets its REST timeline
    (cheap: a few in a hundred issues), so a triage bot's close is known there too."""
    from issues_sts.sandbox.worlds.generator import WorldConfig

    corpus = generate_world(
        WorldConfig(
            seed=7, repos=1, issues_per_repo=900, duplicate_rate=0.12, start="2023-01-01T00:00:00Z"
        )
    )
    with FakeGitHub(corpus, FakeSettings(tokens=frozenset({TOKEN}), graphql=False)) as github:
        cfg = CrawlConfig(
            repos=tuple(corpus.repos), token=TOKEN, api_url=github.api_url, store=tmp_path / "s"
        )  # type: ignore[arg-type]
        assert run_crawl(cfg).ok
    name, data = next(iter(corpus.repos.items()))
    # the bots' closes GitHub calls duplicates (`state_reason: duplicate`, or a duplicate
    # label), which is what earns a REST timeline; a bot that closed as "completed" without a
    # label is read from its words, not from the close
    bots = [
        n
        for n, how in data.truth_evidence.items()
        if how == "bot_closed"
        and (
            data.issue(n)["state_reason"] == "duplicate"  # type: ignore[index]
            or any("dup" in lab["name"] for lab in data.issue(n)["labels"])  # type: ignore[index]
        )
    ]
    assert len(bots) >= 3
    with Store.open(tmp_path / "s") as store:
        closes = store.events_frame().filter(pl.col("event") == "closed")
        by_bot = set(closes.filter(pl.col("actor_type") == "Bot")["number"].to_list())
        usable = build_links(store).links.filter(pl.col("usable"))
    assert set(bots) <= by_bot
    found = {n: t for n, t in usable.select("number", "target_number").iter_rows()}
    assert sum(found.get(n) == data.truth_duplicates[n][1] for n in bots) / len(bots) >= 0.9
