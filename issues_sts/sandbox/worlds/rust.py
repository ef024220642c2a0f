"""Load the rust-lang/rust issue archive (../shared/data/rust-issue-archive) into a `Corpus`.

Files: `main.jsonl.gz` (raw REST issue objects with an archive-only `_meta`),
`comments.jsonl.gz` (`{"number", "comments": [...]}`), `xrefs.jsonl.gz` (cross-references
filtered from the timeline) and `missing_404.txt` (numbers that answer 404: deleted).
"""

from __future__ import annotations

import gc
import gzip
from pathlib import Path

from issues_sts.annotations.archives import ROW_NUMBER, RUST_REPO, archive_lines
from issues_sts.errors import ConfigError
from issues_sts.sandbox.corpus import Corpus, Json, RepoData

RUST_REPO_ID = 724712


def _lowest_numbers(path: Path, limit: int) -> set[int]:
    with gzip.open(path, "rb") as handle:
        numbers = sorted(int(m.group(1)) for line in handle if (m := ROW_NUMBER.search(line)))
    return set(numbers[:limit])


def rust_corpus(path: str | Path, limit: int | None = None) -> Corpus:
    """The archive as one repository the fake GitHub serves, raw objects whole (the store's
    loader is `annotations.archives.load_archive`); `limit` keeps only the first N items (by
    number)."""
    # Millions of fresh dicts would trigger the cyclic GC over and over; none of them are cyclic.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _load(Path(path), limit)
    finally:
        if enabled:
            gc.enable()


def _load(root: Path, limit: int | None) -> Corpus:
    if not (root / "main.jsonl.gz").is_file():
        raise ConfigError(
            f"{root} is not the rust issue archive (main.jsonl.gz is missing)",
            hint="point --rust-archive at ../shared/data/rust-issue-archive",
        )
    repo = RepoData(full_name=RUST_REPO, repo_id=RUST_REPO_ID, created_at="2010-06-16T20:39:03Z")
    wanted = _lowest_numbers(root / "main.jsonl.gz", limit) if limit is not None else None
    for item in archive_lines(root / "main.jsonl.gz", wanted):
        item.pop("_meta", None)
        repo.issues.append(item)
    repo.issues.sort(key=lambda i: i["number"])
    kept = {i["number"] for i in repo.issues}
    for row in archive_lines(root / "comments.jsonl.gz", kept if limit is not None else None):
        if row["number"] in kept:
            repo.comments.extend(row["comments"])
    repo.comments.sort(key=lambda c: c["id"])
    if (root / "xrefs.jsonl.gz").is_file():
        for row in archive_lines(root / "xrefs.jsonl.gz", kept if limit is not None else None):
            if row["number"] in kept and row.get("xrefs"):
                repo.timeline[row["number"]] = [_xref_event(x) for x in row["xrefs"]]
    repo.deleted |= _missing(root / "missing_404.txt", limit_number=max(kept, default=0))
    repo.reindex()
    return Corpus({RUST_REPO: repo})


def _xref_event(xref: Json) -> Json:
    source_kind = "pull_request" if xref.get("type") == "pr" else "issue"
    return {
        "event": xref.get("event", "cross-referenced"),
        "actor": {"login": xref.get("actor") or "ghost"},
        "created_at": xref.get("date"),
        "updated_at": xref.get("date"),
        "source": {"type": "issue", "issue": {"number": xref.get("from"), "kind": source_kind}},
    }


def _missing(path: Path, limit_number: int) -> set[int]:
    if not path.is_file():
        return set()
    numbers = set()
    for line in path.read_text().split():
        digits = line.split(".", 1)[0]
        if digits.isdigit() and int(digits) <= limit_number:
            numbers.add(int(digits))
    return numbers
