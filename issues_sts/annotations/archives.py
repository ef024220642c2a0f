"""The real issue archives (../shared/data/*-issue-archive) as crawl stores: what the link
stage is measured on.

`load_archive(name)` is the one loader. The rust archive holds raw REST issue objects
(`main.jsonl.gz`) and their comments (`comments.jsonl.gz`) for rust-lang/rust #1..~#30700;
the onnxruntime archive (2018-2023) its issues (`issues.jsonl.gz`) and each thread's comments,
timeline and events (`threads.jsonl.gz`). Loading them as the crawl stores them
(`crawl.rows`, `Store.write_page`) gives the link stage exactly what a crawl would have given
it, so the evaluator measures the real stage, not a copy of it. Only the fields the stages read
are kept (the rest of each object is large and unused). The store is cached: a second load
with the same archive files reuses it. The neovim archive has no loader here: it is measured
as a GraphQL crawl of the fake GitHub left it, and the sandbox's loader is passed in
(`loaders=`), so that nothing here imports the sandbox.
"""

from __future__ import annotations

import gzip
import json
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from issues_sts.crawl.rows import comment_rows, issue_rows
from issues_sts.errors import ConfigError, StoreError
from issues_sts.evidence.vocabulary import is_duplicate_label
from issues_sts.links.renames import record_renames
from issues_sts.store import Store

RUST_REPO = "rust-lang/rust"
# The repository's earlier homes; old comments link to them (GitHub redirects).
RUST_REPO_ALIASES: tuple[tuple[str, str], ...] = (
    ("mozilla/rust", RUST_REPO),
    ("graydon/rust", RUST_REPO),
)
ONNX_REPO = "microsoft/onnxruntime"
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

Loader = Callable[[Path, Path], Store]  # (archive folder, store cache) -> the store


def shared_data() -> Path:
    """`<repo>/../shared/data` (or `$ISSUES_STS_SHARED/data`)."""
    root = Path(__file__).resolve().parents[2]
    return Path(os.environ.get("ISSUES_STS_SHARED", root.parent / "shared")) / "data"


@dataclass(frozen=True)
class Archive:
    """One archive: its files, where its store is cached, how the store is written (`write`;
    None where it is loaded elsewhere) and the cache's fingerprint (`meta` key, `version`)."""

    name: str
    folder: str  # under ../shared/data
    cache: Path
    files: tuple[str, ...]
    repo: str = ""
    aliases: tuple[tuple[str, str], ...] = ()
    write: Callable[[Path, Store], None] | None = None
    meta: str = ""
    version: str = ""  # bumped when what the loader keeps changes, so old caches are rebuilt

    @property
    def path(self) -> Path:
        """The default folder, read at call time ($ISSUES_STS_SHARED is honoured)."""
        return shared_data() / self.folder

    def check(self, archive: Path) -> None:
        for name in self.files:
            if not (archive / name).is_file():
                raise StoreError(
                    f"{archive} is not the {self.name} issue archive ({name} missing)",
                    hint=f"pass --archive ../shared/data/{self.folder}",
                )

    def fingerprint(self, archive: Path) -> str:
        return self.version + "|".join(f"{n}:{(archive / n).stat().st_size}" for n in self.files)


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


def _write_rust(archive: Path, store: Store) -> None:
    for batch in _batches(_slim_issue(raw) for raw in archive_lines(archive / "main.jsonl.gz")):
        store.write_page(RUST_REPO, issues=issue_rows(RUST_REPO, batch))
    comments = (
        _slim_comment(c)
        for item in archive_lines(archive / "comments.jsonl.gz")
        for c in item.get("comments") or []
    )
    for batch in _batches(comments):
        store.write_page(RUST_REPO, comments=comment_rows(RUST_REPO, batch))


# -- microsoft/onnxruntime (2018-2023): issues.jsonl.gz + threads.jsonl.gz ------------------
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


def _write_onnx(archive: Path, store: Store) -> None:
    """The onnxruntime archive as a crawl with timelines would have left it: `closed_by` from
    the last `closed` event (list answers lack it), closes, reopens and the duplicate labels'
    history, REST duplicate events without a canonical."""
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


_THREAD_FILES = ("issues.jsonl.gz", "threads.jsonl.gz")
# optional beside them: each repository's old names, `{"owner/name": ["old/name", ...]}`, which
# the fake GitHub redirects to it (an excerpt round's `renames.txt`)
RENAMES_FILE = "renames.json"
ARCHIVES: dict[str, Archive] = {
    "rust": Archive(
        "rust",
        "rust-issue-archive",
        Path("data/cache/rust-archive-store"),
        ("main.jsonl.gz", "comments.jsonl.gz"),
        RUST_REPO,
        RUST_REPO_ALIASES,
        _write_rust,
        meta="rust_archive",
    ),
    "onnxruntime": Archive(
        "onnxruntime",
        "onnxruntime-issue-archive",
        Path("data/cache/onnx-archive-store"),
        _THREAD_FILES,
        ONNX_REPO,
        write=_write_onnx,
        meta="onnx_archive",
        version="v3|",  # v2: label events; v3: closes and reopens, labels' history
    ),
    "neovim": Archive(
        "neovim", "neovim-issue-archive", Path("data/cache/neovim-archive-store"), _THREAD_FILES
    ),
}


def load_archive(
    name: str,
    archive: Path | str | None = None,
    cache: Path | str | None = None,
    *,
    loaders: Mapping[str, Loader] | None = None,
) -> Store:
    """The store of archive `name` (`ARCHIVES`), from `archive` (default: its folder under
    ../shared) cached in `cache` (default: its `data/cache/` folder): built once, then reused
    while the archive's files are unchanged. `loaders` loads an archive another way (the
    neovim archive, crawled through the sandbox's fake GitHub)."""
    spec = ARCHIVES[name]
    folder, cache = Path(archive or spec.path), Path(cache or spec.cache)
    if name in (loaders or {}):
        return (loaders or {})[name](folder, cache)
    if spec.write is None:
        raise ConfigError(
            f"no way to load the {name} archive here", hint="run `issues-sts links evaluate`"
        )
    spec.check(folder)
    fingerprint = spec.fingerprint(folder)
    store = Store.open(cache, create=True)
    if store.meta(spec.meta) == fingerprint:
        record_renames(store, spec.aliases)  # caches made before renames were store facts
        return store
    spec.write(folder, store)
    store.upsert_repo(spec.repo, current_name=spec.repo, status="ok")
    record_renames(store, spec.aliases)
    store.set_meta(spec.meta, fingerprint)
    return store
