"""The rust issue archive (../shared/data/rust-issue-archive) as a crawl store.

The archive holds raw REST issue objects (`main.jsonl.gz`) and their comments
(`comments.jsonl.gz`) for rust-lang/rust #1..~#30700. Loading it through
`Store.write_page` gives the link stage exactly what a crawl would have given it, so the
evaluator measures the real stage, not a copy of it. Only the fields the stages read are
kept (the rest of each object is large and unused). The store is cached: a second load
with the same archive files reuses it.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from issues_sts.errors import StoreError
from issues_sts.links.renames import record_renames
from issues_sts.store import Store

RUST_REPO = "rust-lang/rust"
# The repository's earlier homes; old comments link to them (GitHub redirects).
RUST_REPO_ALIASES: tuple[tuple[str, str], ...] = (("mozilla/rust", RUST_REPO), ("graydon/rust", RUST_REPO))
_ISSUE_FIELDS = ("number", "id", "node_id", "state", "state_reason", "title", "body", "author_association",
                 "comments", "created_at", "updated_at", "closed_at", "html_url", "pull_request")
_COMMENT_FIELDS = ("id", "issue_url", "author_association", "body", "created_at", "updated_at", "html_url")
_BATCH = 2000


def default_archive_path() -> Path:
    """`<repo>/../shared/data/rust-issue-archive` (or under $ISSUES_STS_SHARED)."""
    root = Path(__file__).resolve().parents[2]
    shared = Path(os.environ.get("ISSUES_STS_SHARED", root.parent / "shared"))
    return shared / "data" / "rust-issue-archive"


def _user(obj: Any) -> dict[str, Any] | None:
    return {"login": obj["login"]} if isinstance(obj, dict) and obj.get("login") else None


def _slim_issue(raw: dict[str, Any]) -> dict[str, Any]:
    out = {k: raw.get(k) for k in _ISSUE_FIELDS}
    out["user"], out["closed_by"] = _user(raw.get("user")), _user(raw.get("closed_by"))
    out["labels"] = [{"name": lab.get("name")} for lab in raw.get("labels") or [] if isinstance(lab, dict)]
    if out["pull_request"] is None and (raw.get("_meta") or {}).get("type") == "pr":
        out["pull_request"] = {"html_url": raw.get("html_url")}
    return out


def _slim_comment(raw: dict[str, Any]) -> dict[str, Any]:
    out = {k: raw.get(k) for k in _COMMENT_FIELDS}
    out["user"] = _user(raw.get("user"))
    return out


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def _batches(items: Iterator[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    for item in items:
        batch.append(item)
        if len(batch) >= _BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def _fingerprint(archive: Path) -> str:
    parts = [f"{name}:{(archive / name).stat().st_size}" for name in ("main.jsonl.gz", "comments.jsonl.gz")]
    return "|".join(parts)


def check_archive(archive: Path) -> None:
    for name in ("main.jsonl.gz", "comments.jsonl.gz"):
        if not (archive / name).is_file():
            raise StoreError(f"{archive} is not the rust issue archive ({name} missing)",
                             hint="pass --archive ../shared/data/rust-issue-archive")


def load_rust_archive(archive: Path | str, store_dir: Path | str) -> Store:
    """A store holding the whole archive (built once, then reused while the archive is unchanged)."""
    archive, store_dir = Path(archive), Path(store_dir)
    check_archive(archive)
    store = Store.open(store_dir, create=True)
    mark = store.conn.execute("SELECT value FROM meta WHERE key='rust_archive'").fetchone()
    if mark is not None and mark[0] == _fingerprint(archive):
        record_renames(store, RUST_REPO_ALIASES)  # caches made before renames were store facts
        return store
    for batch in _batches(_slim_issue(raw) for raw in _jsonl(archive / "main.jsonl.gz")):
        store.write_page(RUST_REPO, issues=batch)
    comments = (_slim_comment(c) for item in _jsonl(archive / "comments.jsonl.gz") for c in item.get("comments") or [])
    for batch in _batches(comments):
        store.write_page(RUST_REPO, comments=batch)
    store.upsert_repo(RUST_REPO, current_name=RUST_REPO, status="ok")
    record_renames(store, RUST_REPO_ALIASES)
    store.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES('rust_archive', ?)", (_fingerprint(archive),))
    return store
