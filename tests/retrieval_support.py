"""A small real build for the retrieval tests: a generated world (cross-repository
duplicates, transfers, deletions, issues spread over years) written into a real store."""

from __future__ import annotations

from pathlib import Path

from issues_sts.dataset.build import run_build
from issues_sts.dataset.config import BuildConfig
from issues_sts.sandbox.worlds.generator import WorldConfig, generate_world
from issues_sts.sandbox.worlds.paper import write_repo_data
from issues_sts.store import Store


def world_build(root: Path, *, repos: int = 3, issues_per_repo: int = 300) -> Path:
    """Write the world's store under `root`, build it into `root/build` and return that."""
    world = generate_world(
        WorldConfig(seed=4, repos=repos, issues_per_repo=issues_per_repo, cross_repo_rate=0.2)
    )
    with Store.open(root / "store", create=True) as store:
        for name, data in world.repos.items():
            store.upsert_repo(name, status="ok", current_name=name)
            write_repo_data(store, name, data)
            for number, (to_repo, to_number) in data.transferred.items():
                store.add_redirect(name, number, to_repo, to_number)
            for number in data.deleted:
                store.mark_tombstone(name, number, "deleted")
    run_build(BuildConfig(store=root / "store", out=root / "build", seed=3))
    return root / "build"
