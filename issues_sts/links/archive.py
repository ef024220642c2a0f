"""The issue archives (../shared/data/rust-issue-archive, onnxruntime-issue-archive) as crawl
stores.

The archive holds raw REST issue objects (`main.jsonl.gz`) and their comments
(`comments.jsonl.gz`) for rust-lang/rust #1..~#30700. Loading it as the crawl stores them
(`crawl.rows`, `Store.write_page`) gives the link stage exactly what a crawl would have
given it, so the evaluator measures the real stage, not a copy of it. Only the fields the
stages read are kept (the rest of each object is large and unused). The store is cached: a
second load with the same archive files reuses it.
"""

from __future__ import annotations

import gzip
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from issues_sts.crawl.rows import comment_rows, issue_rows
from issues_sts.errors import StoreError
from issues_sts.evidence.vocabulary import is_duplicate_label
from issues_sts.links.renames import record_renames
from issues_sts.store import Store

RUST_REPO = "rust-lang/rust"
# The repository's earlier homes; old comments link to them (GitHub redirects).
RUST_REPO_ALIASES: tuple[tuple[str, str], ...] = (
    ("mozilla/rust", RUST_REPO),
    ("graydon/rust", RUST_REPO),
)
_ISSUE_FIELDS = (
    "number",
    "id",
    "node_id",
    "state",
    "state_reason",
    "title",
    "body",
    "author_association",
    "comments",
    "created_at",
    "updated_at",
    "closed_at",
    "html_url",
    "pull_request",
)
_COMMENT_FIELDS = (
    "id",
    "issue_url",
    "author_association",
    "body",
    "created_at",
    "updated_at",
    "html_url",
)
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
    out["labels"] = [
        {"name": lab.get("name")} for lab in raw.get("labels") or [] if isinstance(lab, dict)
    ]
    if out["pull_request"] is None and (raw.get("_meta") or {}).get("type") == "pr":
        out["pull_request"] = {"html_url": raw.get("html_url")}
    return out


def _slim_comment(raw: dict[str, Any]) -> dict[str, Any]:
    out = {k: raw.get(k) for k in _COMMENT_FIELDS}
    out["user"] = _user(raw.get("user"))
    return out


# The first "number" of a line: the row's own (comments, xrefs) or the issue's (it precedes
# the milestone's in GitHub's field order).
ROW_NUMBER = re.compile(rb'"number":\s*(\d+)')


def archive_lines(path: Path, keep: set[int] | None = None) -> Iterator[dict[str, Any]]:
    """The parsed lines of one of an archive's `*.jsonl.gz` files; the one reader of the
    archives (the link evaluation's store here, the fake GitHub's rust world in the sandbox).
    With `keep`, lines whose number is not kept are skipped unparsed (parsing dominates)."""
    loads: Any = json.loads
    try:
        import orjson

        loads = orjson.loads
    except ImportError:  # pragma: no cover - orjson is optional, json is only slower
        pass
    with gzip.open(path, "rb") as handle:
        for line in handle:
            if not line.strip():
                continue
            if keep is not None:
                found = ROW_NUMBER.search(line)
                if found and int(found.group(1)) not in keep:
                    continue
            yield loads(line)


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
    parts = [
        f"{name}:{(archive / name).stat().st_size}"
        for name in ("main.jsonl.gz", "comments.jsonl.gz")
    ]
    return "|".join(parts)


def check_archive(archive: Path) -> None:
    for name in ("main.jsonl.gz", "comments.jsonl.gz"):
        if not (archive / name).is_file():
            raise StoreError(
                f"{archive} is not the rust issue archive ({name} missing)",
                hint="pass --archive ../shared/data/rust-issue-archive",
            )


def load_rust_archive(archive: Path | str, store_dir: Path | str) -> Store:
    """A store holding the whole archive (built once, then reused while the archive is
    unchanged)."""
    archive, store_dir = Path(archive), Path(store_dir)
    check_archive(archive)
    store = Store.open(store_dir, create=True)
    if store.meta("rust_archive") == _fingerprint(archive):
        record_renames(store, RUST_REPO_ALIASES)  # caches made before renames were store facts
        return store
    for batch in _batches(_slim_issue(raw) for raw in archive_lines(archive / "main.jsonl.gz")):
        store.write_page(RUST_REPO, issues=issue_rows(RUST_REPO, batch))
    comments = (
        _slim_comment(c)
        for item in archive_lines(archive / "comments.jsonl.gz")
        for c in item.get("comments") or []
    )
    for batch in _batches(comments):
        store.write_page(RUST_REPO, comments=comment_rows(RUST_REPO, batch))
    store.upsert_repo(RUST_REPO, current_name=RUST_REPO, status="ok")
    record_renames(store, RUST_REPO_ALIASES)
    store.set_meta("rust_archive", _fingerprint(archive))
    return store


# -- microsoft/onnxruntime (2018-2023): issues.jsonl.gz + threads.jsonl.gz ------------------
ONNX_REPO = "microsoft/onnxruntime"
_ONNX_FILES = ("issues.jsonl.gz", "threads.jsonl.gz")


def default_onnx_archive_path() -> Path:
    """`<repo>/../shared/data/onnxruntime-issue-archive` (or under $ISSUES_STS_SHARED)."""
    return default_archive_path().parent / "onnxruntime-issue-archive"


def _event_row(thread: dict[str, Any], key: str, item: dict[str, Any]) -> dict[str, Any]:
    """The `events` row a crawl's REST timeline gives for this item (`crawl.graphql`'s)."""
    found = item.get("actor")
    actor: dict[str, Any] = found if isinstance(found, dict) else {}
    label = (item.get("label") or {}).get("name")
    return {
        "repo": ONNX_REPO,
        "number": int(thread["number"]),
        "event_key": key,
        "event": item.get("event"),
        "actor": actor.get("login"),
        "actor_type": actor.get("type"),
        "created_at": item.get("created_at"),
        "canonical_repo": None,
        "canonical_number": None,
        "label": label,
        "state_reason": item.get("state_reason"),
        "source": "rest",
        "raw": json.dumps({"label": label} if label else {}, sort_keys=True),
    }


_ONNX_EVENTS = ("closed", "reopened", "marked_as_duplicate", "unmarked_as_duplicate")


def _onnx_thread_facts(thread: dict[str, Any]) -> tuple[str | None, list[dict[str, Any]]]:
    """From one thread's timeline and events: who closed it last and, as store rows, what a
    crawl with timelines keeps (the duplicate events, closes and reopens, and the history of
    duplicate labels: the repository relabelled in 2022, so older `duplicate` labels survive
    only as `labeled`/`unlabeled` events; the link stage reads that history)."""
    items = sorted(
        (thread.get("timeline") or []) + (thread.get("events") or []),
        key=lambda e: str(e.get("created_at") or ""),
    )
    closed_by: str | None = None
    events: dict[str, dict[str, Any]] = {}
    for item in items:
        name = item.get("event")
        key = str(item.get("node_id") or item.get("id"))
        if name == "closed":
            closed_by = (item.get("actor") or {}).get("login")
        label = str((item.get("label") or {}).get("name") or "")
        if name in _ONNX_EVENTS or (name in ("labeled", "unlabeled") and is_duplicate_label(label)):
            events[key] = _event_row(thread, key, item)
    return closed_by, list(events.values())


def load_onnx_archive(archive: Path | str, store_dir: Path | str) -> Store:
    """A store holding the onnxruntime archive, as a crawl with timelines would have left it:
    `closed_by` from the last `closed` event (list answers lack it), closes, reopens and the
    duplicate labels' history, REST duplicate events without a canonical. Cached like the rust
    store."""
    archive, store_dir = Path(archive), Path(store_dir)
    for name in _ONNX_FILES:
        if not (archive / name).is_file():
            raise StoreError(
                f"{archive} is not the onnxruntime issue archive ({name} missing)",
                hint="pass --archive ../shared/data/onnxruntime-issue-archive",
            )
    fingerprint = "v3|" + "|".join(
        f"{n}:{(archive / n).stat().st_size}" for n in _ONNX_FILES
    )  # v2: label events; v3: closes and reopens, labels' history read by the link stage
    store = Store.open(store_dir, create=True)
    if store.meta("onnx_archive") == fingerprint:
        return store
    facts: dict[int, tuple[str | None, list[dict[str, Any]]]] = {}
    for batch in _batches(archive_lines(archive / "threads.jsonl.gz")):
        comments = [_slim_comment(c) for t in batch for c in t.get("comments") or []]
        events = []
        for thread in batch:
            facts[int(thread["number"])] = _onnx_thread_facts(thread)
            events += facts[int(thread["number"])][1]
        store.write_page(ONNX_REPO, comments=comment_rows(ONNX_REPO, comments), events=events)
    issues = []
    for raw in archive_lines(archive / "issues.jsonl.gz"):
        slim = _slim_issue(raw)
        closed_by, _ = facts.get(int(raw["number"]), (None, []))
        if slim["closed_by"] is None and closed_by and slim["state"] == "closed":
            slim["closed_by"] = {"login": closed_by}
        issues.append(slim)
    for batch in _batches(iter(issues)):
        store.write_page(ONNX_REPO, issues=issue_rows(ONNX_REPO, batch))
    store.upsert_repo(ONNX_REPO, current_name=ONNX_REPO, status="ok")
    store.set_meta("onnx_archive", fingerprint)
    return store
