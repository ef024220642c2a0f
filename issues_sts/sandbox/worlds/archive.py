"""Thread archives (`issues.jsonl.gz` + `threads.jsonl.gz`) as a world the fake GitHub serves.

Both real archives of today's GitHub in ../shared have this shape: the onnxruntime archive
(microsoft/onnxruntime, 2018-2023: REST issues and PRs, each issue's comments, timeline and
events) and the neovim archive (the neovim organisation's 16 repositories, 2014-2026: REST
issues with `closed_by`, each issue's comments, no timelines). Served by the fake GitHub, a
crawl meets them as github.com would hand them out: 64-bit ids (comments above 2^31 since
2024), GraphQL's 32-bit `databaseId` failing on them, bots, labels and `state_reason`.

An archive may list its repositories' old names (`renames.json`, `{"owner/name": [old, ...]}`):
the fake GitHub redirects each old name to the repository, as github.com does after a rename.

Where an archive has no timeline for a closed issue, its close is served as the one event the
issue object itself records: a `closed` event at `closed_at` by `closed_by`, with its
`state_reason`. Nothing else is invented: no label history, no duplicate events.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

from issues_sts.annotations.archives import RENAMES_FILE, archive_lines
from issues_sts.errors import ConfigError
from issues_sts.sandbox.corpus import Corpus, Json, RepoData

FILES = ("issues.jsonl.gz", "threads.jsonl.gz")
# The events a timeline keeps here: what bears on duplicates (the fake serves every kind it
# stores over REST; GraphQL serves the kinds its schema names).
KEPT_EVENTS = frozenset(
    {
        "closed",
        "reopened",
        "labeled",
        "unlabeled",
        "marked_as_duplicate",
        "unmarked_as_duplicate",
        "cross-referenced",
        "referenced",
    }
)


def repo_of(item: Json) -> str:
    """owner/name of an archived REST issue: its `repo` key, else its `repository_url`."""
    if item.get("repo"):
        return str(item["repo"])
    return str(item.get("repository_url", "")).split("/repos/", 1)[-1].strip("/")


def load_thread_archive(root: str | Path) -> Corpus:
    """Every repository of the archive at `root`, with its issues, comments and timelines."""
    root = Path(root)
    for name in FILES:
        if not (root / name).is_file():
            raise ConfigError(
                f"{root} is not an issue archive ({name} is missing)",
                hint="point at ../shared/data/neovim-issue-archive or onnxruntime-issue-archive",
            )
    corpus = Corpus()
    for item in archive_lines(root / "issues.jsonl.gz"):
        name = repo_of(item)
        owner = corpus.find(name) or corpus.add(
            RepoData(full_name=name, repo_id=zlib.crc32(name.encode()) & 0x7FFFFFFF)
        )
        item.pop("repo", None)
        owner.issues.append(item)
    only = next(iter(corpus.repos.values())) if len(corpus.repos) == 1 else None
    for thread in archive_lines(root / "threads.jsonl.gz"):
        repo: RepoData | None = corpus.find(str(thread["repo"])) if thread.get("repo") else only
        if repo is None:
            continue
        number = int(thread["number"])
        repo.comments.extend(thread.get("comments") or [])
        events = _events(thread)
        if events:
            repo.timeline[number] = events
    _add_renames(corpus, root / RENAMES_FILE)
    for repo in corpus.repos.values():
        repo.issues.sort(key=lambda i: i["number"])
        repo.comments.sort(key=lambda c: (c["created_at"], c["id"]))
        repo.created_at = min((i["created_at"] for i in repo.issues), default=repo.created_at)
        for item in repo.issues:
            events = repo.timeline.get(item["number"], [])
            closed = any(e.get("event") == "closed" for e in events)
            if item.get("state") == "closed" and "pull_request" not in item and not closed:
                repo.timeline.setdefault(item["number"], []).append(_recorded_close(item))
        repo.reindex()
    return corpus


def _add_renames(corpus: Corpus, path: Path) -> None:
    """Each repository's old names from `renames.json`, when the archive has one (a repository
    the archive does not hold is skipped: nothing of it is served to redirect to)."""
    if not path.is_file():
        return
    try:
        renames = json.loads(path.read_text(encoding="utf-8"))
        pairs = [(str(new), [str(o) for o in olds]) for new, olds in renames.items()]
    except (ValueError, AttributeError, TypeError):
        raise ConfigError(
            f"{path} is not a map of repositories to their old names",
            hint='write {"owner/name": ["old-owner/old-name", ...]}',
        ) from None
    for new, olds in pairs:
        repo = corpus.find(new)
        if repo is not None:
            repo.renamed_from.extend(o for o in olds if o not in repo.renamed_from)


def _events(thread: Json) -> list[Json]:
    """The thread's timeline and events merged (each event once), oldest first."""
    seen: dict[Any, Json] = {}
    for event in (thread.get("timeline") or []) + (thread.get("events") or []):
        if event.get("event") in KEPT_EVENTS and event.get("created_at"):
            key = event.get("node_id") or event.get("id") or id(event)
            seen.setdefault(key, event)
    return sorted(seen.values(), key=lambda e: str(e["created_at"]))


def _recorded_close(item: Json) -> Json:
    """The close that the issue object records (`closed_at`, `closed_by`, `state_reason`)."""
    key = f"{item.get('node_id') or item['number']}:closed"
    return {
        "id": None,
        "node_id": f"CE_{zlib.crc32(key.encode()):08X}{item['number']}",
        "event": "closed",
        "actor": item.get("closed_by"),
        "created_at": item.get("closed_at"),
        "state_reason": item.get("state_reason"),
        "commit_id": None,
    }
