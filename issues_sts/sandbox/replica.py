"""Real threads at a larger size: renumbered copies of the real issue archives in one store.

    write_replica_store(Path("data/bench/replica-10"), copies=10)

Copy 0 of an archive is its repository as the archive holds it (`rust-lang/rust`); copy k is
the same rows as `rust-lang/rust-copyk`, with every issue and comment id raised by
k x `ID_STRIDE` and the web URLs renamed. Texts are not touched: a `#N` in copy k names copy
k's own issue N, and a full URL still names copy 0's, exactly as in the archive. The
archives are loaded once into their cached stores (the ones `issues-sts links extract
--archive` and `links evaluate` use) and copied from there in SQLite.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from issues_sts.annotations.archives import ARCHIVES as ALL_ARCHIVES
from issues_sts.annotations.archives import load_archive
from issues_sts.errors import StoreError
from issues_sts.links.renames import record_renames
from issues_sts.store import Store

ID_STRIDE = 10**11  # above any GitHub id of today (about 5 x 10^9 in 2026)
# the archives a replica copies: those loaded without a crawl
ARCHIVES = {name: spec for name, spec in ALL_ARCHIVES.items() if spec.write is not None}


@dataclass(frozen=True)
class ReplicaSummary:
    copies: int
    archives: tuple[str, ...]
    items: int


def copy_name(repo: str, k: int) -> str:
    return repo if k == 0 else f"{repo}-copy{k}"


def write_replica_store(
    root: Path | str,
    copies: int,
    archives: tuple[str, ...] = ("rust",),
    *,
    cache: Path | str = Path("data/cache"),
) -> ReplicaSummary:
    """`copies` copies of each archive in `archives` (names of `ARCHIVES`) in a new store at
    `root`; the archives' own stores are cached under `cache`."""
    if copies < 1:
        raise ValueError("copies must be at least 1")
    unknown = set(archives) - set(ARCHIVES)
    if unknown:
        raise ValueError(f"unknown archive: {', '.join(sorted(unknown))}")
    items = 0
    with Store.open(root, create=True) as store:
        if store.has_issues():
            raise StoreError(f"{root} already holds issues", hint="give an empty folder")
        for name in archives:
            archive = ARCHIVES[name]
            source = load_archive(name, cache=Path(cache) / f"{name}-archive-store")
            source_root = source.root
            source.close()
            for k in range(copies):
                items += store.copy_repository(
                    source_root, archive.repo, copy_name(archive.repo, k), k * ID_STRIDE
                )
            record_renames(store, archive.aliases)
    return ReplicaSummary(copies, tuple(archives), items)
