"""The streamed build (one repository at a time, texts read back only for pairs) gives the
same dataset, byte for byte, as the build that reads the whole store into memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from issues_sts.dataset.build import run_build
from issues_sts.dataset.config import BuildConfig
from issues_sts.sandbox.worlds.generator import WorldConfig, generate_world
from issues_sts.sandbox.worlds.paper import PaperConfig, write_paper_store, write_repo_data
from issues_sts.store import Store


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def _both(
    store: Path, tmp_path: Path, **overrides: object
) -> tuple[dict[str, bytes], dict[str, bytes]]:
    outs = []
    out = tmp_path / "out"  # one path: the card and build_config.json name it
    for streamed in (False, True):
        cfg = BuildConfig(store=store, out=out, seed=5, **overrides)  # type: ignore[arg-type]
        run_build(cfg, streamed=streamed)
        outs.append(_files(out))
        out.rename(tmp_path / f"out-{streamed}")
    return outs[0], outs[1]


@pytest.fixture(scope="module")
def small_world_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated world with cross-repository duplicates, transfers, deletions and renames."""
    root = tmp_path_factory.mktemp("stream") / "store"
    corpus = generate_world(WorldConfig(seed=4, repos=4, issues_per_repo=400, cross_repo_rate=0.2))
    with Store.open(root, create=True) as store:
        for name, data in corpus.repos.items():
            store.upsert_repo(name, status="ok", current_name=name)
            write_repo_data(store, name, data)
            for number, (to_repo, to_number) in data.transferred.items():
                store.add_redirect(name, number, to_repo, to_number)
            for number in data.deleted:
                store.mark_tombstone(name, number, "deleted")
    return root


def test_streamed_build_equals_the_in_memory_build(
    small_world_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import issues_sts.store.frames

    # repositories cut into several parts
    monkeypatch.setattr(issues_sts.store.frames, "PART_ISSUES", 150)
    with Store.open(small_world_store) as store:
        assert len(store.parts()) > len(store.repo_names())
    whole, streamed = _both(small_world_store, tmp_path)
    assert whole.keys() == streamed.keys() and "data/train-00000-of-00001.parquet" in str(
        sorted(whole)
    )
    assert [name for name in whole if whole[name] != streamed[name]] == []


def test_streamed_build_equals_the_in_memory_build_on_the_paper_world(tmp_path: Path) -> None:
    store = tmp_path / "paper"
    write_paper_store(
        store,
        PaperConfig(seed=1, scale=0.02, repos=("psf/requests", "pallets/flask", "celery/celery")),
    )
    whole, streamed = _both(store, tmp_path, text_recipe="raw")
    assert [name for name in whole if whole[name] != streamed[name]] == []


def test_threads_read_in_a_process_pool_give_the_same_links(
    small_world_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from issues_sts.links import build_links, stage

    with Store.open(small_world_store) as store:
        monkeypatch.setattr(stage, "_PARALLEL_MIN", 10**9)
        alone = build_links(store)
        monkeypatch.setattr(stage, "_PARALLEL_MIN", 10)
        pooled = build_links(store)
    assert alone.counters["threads_read"] > 10
    assert alone.links.equals(pooled.links) and alone.counters == pooled.counters


def test_parts_read_on_every_core_give_the_same_build(
    small_world_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big store's parts go to worker processes (links and scan); results come back in the
    parts' order, so the build is the same bytes as the in-memory one."""
    import issues_sts.store.frames
    from issues_sts import partwork

    monkeypatch.setattr(issues_sts.store.frames, "PART_ISSUES", 150)
    out = tmp_path / "out"
    run_build(BuildConfig(store=small_world_store, out=out, seed=5), streamed=False)
    whole = _files(out)
    out.rename(tmp_path / "whole")
    monkeypatch.setattr(partwork, "PARALLEL_MIN_ISSUES", 0)
    monkeypatch.setattr(partwork, "cores", lambda: 2)  # a pool even on a one-core runner
    with Store.open(small_world_store) as store:
        assert partwork.workers_for(store.parts()) == 2
    run_build(BuildConfig(store=small_world_store, out=out, seed=5), streamed=True)
    assert [name for name, data in _files(out).items() if whole.get(name) != data] == []
