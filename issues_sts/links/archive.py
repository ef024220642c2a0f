"""The issue archives (../shared/data/rust-issue-archive, onnxruntime-issue-archive) as crawl
stores.

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
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from issues_sts.errors import StoreError
from issues_sts.links.renames import record_renames
from issues_sts.links.vocabulary import is_duplicate_label
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
        store.write_page(RUST_REPO, issues=batch)
    comments = (
        _slim_comment(c)
        for item in archive_lines(archive / "comments.jsonl.gz")
        for c in item.get("comments") or []
    )
    for batch in _batches(comments):
        store.write_page(RUST_REPO, comments=batch)
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


def _event_row(
    thread: dict[str, Any],
    key: str,
    name: str,
    actor: str | None,
    item: dict[str, Any],
    raw: dict[str, Any],
) -> dict[str, Any]:
    return {
        "repo": ONNX_REPO,
        "number": int(thread["number"]),
        "event_key": key,
        "event": name,
        "actor": actor,
        "created_at": item.get("created_at"),
        "canonical_repo": None,
        "canonical_number": None,
        "source": "rest",
        "raw": json.dumps(raw, sort_keys=True),
    }


def _onnx_thread_facts(
    thread: dict[str, Any],
) -> tuple[str | None, list[str], list[dict[str, Any]]]:
    """From one thread's timeline and events: who closed it last, the duplicate labels it
    carried at the end (the repository relabelled in 2022, so older `duplicate` labels survive
    only as `labeled`/`unlabeled` events) and, as store rows, its (un)marked_as_duplicate
    events and the (un)labeled events of duplicate labels (when a label came matters)."""
    items = sorted(
        (thread.get("timeline") or []) + (thread.get("events") or []),
        key=lambda e: str(e.get("created_at") or ""),
    )
    closed_by: str | None = None
    labels: dict[str, bool] = {}
    events: dict[str, dict[str, Any]] = {}
    for item in items:
        name = item.get("event")
        actor = (item.get("actor") or {}).get("login")
        if name == "closed":
            closed_by = actor
        elif name in ("labeled", "unlabeled"):
            label = str((item.get("label") or {}).get("name") or "")
            if is_duplicate_label(label):
                labels[label] = name == "labeled"
                key = str(item.get("node_id") or item.get("id"))
                events[key] = _event_row(thread, key, str(name), actor, item, {"label": label})
        elif name in ("marked_as_duplicate", "unmarked_as_duplicate"):
            key = str(item.get("node_id") or item.get("id"))
            events[key] = _event_row(thread, key, str(name), actor, item, {})
    return closed_by, [name for name, on in labels.items() if on], list(events.values())


def load_onnx_archive(archive: Path | str, store_dir: Path | str) -> Store:
    """A store holding the onnxruntime archive, as a crawl with timelines would have left it:
    `closed_by` from the last `closed` event (list answers lack it), duplicate labels from the
    label history, REST duplicate events without a canonical. Cached like the rust store."""
    archive, store_dir = Path(archive), Path(store_dir)
    for name in _ONNX_FILES:
        if not (archive / name).is_file():
            raise StoreError(
                f"{archive} is not the onnxruntime issue archive ({name} missing)",
                hint="pass --archive ../shared/data/onnxruntime-issue-archive",
            )
    fingerprint = "v2|" + "|".join(
        f"{n}:{(archive / n).stat().st_size}" for n in _ONNX_FILES
    )  # v2: label events
    store = Store.open(store_dir, create=True)
    if store.meta("onnx_archive") == fingerprint:
        return store
    facts: dict[int, tuple[str | None, list[str], list[dict[str, Any]]]] = {}
    for batch in _batches(archive_lines(archive / "threads.jsonl.gz")):
        comments = [_slim_comment(c) for t in batch for c in t.get("comments") or []]
        events = []
        for thread in batch:
            facts[int(thread["number"])] = _onnx_thread_facts(thread)
            events += facts[int(thread["number"])][2]
        store.write_page(ONNX_REPO, comments=comments, events=events)
    issues = []
    for raw in archive_lines(archive / "issues.jsonl.gz"):
        slim = _slim_issue(raw)
        closed_by, dup_labels, _ = facts.get(int(raw["number"]), (None, [], []))
        if slim["closed_by"] is None and closed_by and slim["state"] == "closed":
            slim["closed_by"] = {"login": closed_by}
        names = {lab["name"] for lab in slim["labels"]}
        slim["labels"] += [{"name": name} for name in dup_labels if name not in names]
        issues.append(slim)
    for batch in _batches(iter(issues)):
        store.write_page(ONNX_REPO, issues=batch)
    store.upsert_repo(ONNX_REPO, current_name=ONNX_REPO, status="ok")
    store.set_meta("onnx_archive", fingerprint)
    return store
