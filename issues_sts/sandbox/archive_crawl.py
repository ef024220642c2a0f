"""An issue archive crawled as github.com serves it: the measurement of today's threads.

`crawl_archive_store(archive, cache)` serves a thread archive (`worlds.archive`) through the
fake GitHub (REST and GraphQL, every query checked against GitHub's published schema when
../shared holds it, 64-bit ids, list pages without `closed_by`) and crawls it with GraphQL into
a store, the way a user's crawl of those repositories would. `links evaluate` scores the
modern annotation rounds on that store, so a crawler that loses comments or events loses
recall there too. The store is cached: a second call with the same archive and the same
crawler code reuses it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from issues_sts.annotations.archives import RENAMES_FILE
from issues_sts.crawl import CrawlConfig, run_crawl
from issues_sts.errors import StoreError
from issues_sts.sandbox.github.server import FakeGitHub
from issues_sts.sandbox.github.settings import FakeSettings
from issues_sts.sandbox.worlds.archive import FILES, load_thread_archive
from issues_sts.store import Store

_TOKEN = "archive-crawl-token"
_META = "archive_crawl"
_PACKAGE = Path(__file__).resolve().parents[1]
# the code whose change makes a cached crawl stale
_CODE = ("crawl", "sandbox/github", "sandbox/worlds/archive.py", "store")


def _fingerprint(archive: Path) -> str:
    digest = hashlib.sha1()
    for name in FILES:
        digest.update(f"{name}:{(archive / name).stat().st_size}|".encode())
    renames = archive / RENAMES_FILE
    digest.update(renames.read_bytes() if renames.is_file() else b"no renames")
    for part in _CODE:
        path = _PACKAGE / part
        for source in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            digest.update(source.read_bytes())
        digest.update(b"schema" if (path / "schema.graphql").is_file() else b"")
    return digest.hexdigest()


def crawl_archive_store(archive: Path | str, cache: Path | str) -> Store:
    """The archive as a GraphQL crawl of the fake GitHub left it (cached in `cache`)."""
    archive, cache = Path(archive), Path(cache)
    for name in FILES:
        if not (archive / name).is_file():
            raise StoreError(
                f"{archive} is not an issue archive ({name} missing)",
                hint="pass --archive ../shared/data/neovim-issue-archive",
            )
    fingerprint = _fingerprint(archive)
    if (cache / "crawl.sqlite").is_file():
        store = Store.open(cache)
        if store.meta(_META) == fingerprint:
            return store
        store.close()
        for leftover in cache.glob("crawl.sqlite*"):
            leftover.unlink()
    corpus = load_thread_archive(archive)
    settings = FakeSettings(tokens=frozenset({_TOKEN}), graphql_schema_check=True)
    with FakeGitHub(corpus, settings) as github:
        summary = run_crawl(
            CrawlConfig(
                repos=tuple(corpus.repos),
                token=_TOKEN,  # type: ignore[arg-type]
                api_url=github.api_url,
                store=cache,
            )
        )
    if not summary.ok:
        raise StoreError(
            f"the crawl of {archive} did not complete ({summary.stopped or 'a repository failed'})",
            hint="run it again; a crawl resumes",
        )
    store = Store.open(cache)
    store.set_meta(_META, fingerprint)
    return store
