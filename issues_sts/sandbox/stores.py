"""Hand-made and generated inputs for the build: small stores for tests, big ones for the
benchmark, and `FixedLinks`, a link table given explicitly.

`FixedLinks` has the shape of `issues_sts.links.LinkTable` (links, clusters, counters,
write) for inputs whose duplicate links are known in advance: unit tests of the build, and
the benchmark, which measures the build stage alone. Real builds use the link stage.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from issues_sts.crawl.rows import comment_rows, issue_rows
from issues_sts.links.stage import LINK_SCHEMA
from issues_sts.store import Store, utcnow

# The link stage's columns a fixed row gives (types from the stage's own schema).
_FIXED_COLUMNS = (
    "repo",
    "number",
    "target_repo",
    "target_number",
    "signal",
    "confidence",
    "usable",
    "excluded_reason",
)
FIXED_LINK_SCHEMA: dict[str, Any] = {name: LINK_SCHEMA[name] for name in _FIXED_COLUMNS}


def raw_issue(
    repo: str, number: int, title: str, body: str = "", *, pull_request: bool = False
) -> dict[str, Any]:
    """A REST issue object with the fields the store reads."""
    raw: dict[str, Any] = {
        "number": number,
        "id": hash((repo, number)) & 0x7FFFFFFF,
        "node_id": f"I_{repo}_{number}",
        "title": title,
        "body": body,
        "state": "open",
        "state_reason": None,
        "user": {"login": "someone"},
        "author_association": "NONE",
        "labels": [],
        "comments": 0,
        "created_at": "2023-01-01T00:00:00Z",
        "updated_at": "2023-01-02T00:00:00Z",
        "html_url": f"https://github.com/{repo}/{'pull' if pull_request else 'issues'}/{number}",
    }
    if pull_request:
        raw["pull_request"] = {"url": f"https://api.github.com/repos/{repo}/pulls/{number}"}
    return raw


def raw_comment(repo: str, number: int, comment_id: int, body: str) -> dict[str, Any]:
    return {
        "id": comment_id,
        "body": body,
        "user": {"login": "maintainer"},
        "author_association": "MEMBER",
        "issue_url": f"https://api.github.com/repos/{repo}/issues/{number}",
        "created_at": "2023-01-03T00:00:00Z",
        "updated_at": "2023-01-03T00:00:00Z",
        "html_url": f"https://github.com/{repo}/issues/{number}#issuecomment-{comment_id}",
    }


@dataclass
class FixedLinks:
    """A LinkTable-shaped object from explicit (repo, number) -> (target_repo, target_number)
    rows."""

    links: pl.DataFrame
    clusters: pl.DataFrame = field(init=False)
    counters: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.links, self.clusters = _with_clusters(self.links)
        self.counters = {**self.counters, "links_total": self.links.height}

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[Any, ...]]) -> FixedLinks:
        """Rows of (repo, number, target_repo, target_number[, signal, confidence, usable,
        reason])."""
        defaults = ("duplicate_keyword", 1.0, True, None)
        full = [tuple(r) + defaults[len(r) - 4 :] for r in rows]
        return cls(pl.DataFrame(full, schema=FIXED_LINK_SCHEMA, orient="row"))

    def write(self, out_dir: Path) -> Path:
        path = Path(out_dir) / "links.parquet"
        self.links.sort("repo", "number", "target_repo", "target_number").write_parquet(
            path, statistics=False
        )
        return path


def _with_clusters(links: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Root of each usable link: follow targets until an issue that points nowhere."""
    usable = links.filter(pl.col("usable"))
    target = {
        (r, n): (tr, tn)
        for r, n, tr, tn in usable.select(
            "repo", "number", "target_repo", "target_number"
        ).iter_rows()
    }
    ids: dict[tuple[str, int], int] = {}

    def root(key: tuple[str, int]) -> tuple[str, int]:
        seen = {key}
        while key in target and target[key] not in seen:
            key = target[key]
            seen.add(key)
        return key

    members = []
    for key in sorted(set(target) | set(target.values())):
        r = root(key)
        members.append((key[0], key[1], ids.setdefault(r, len(ids)), r[0], r[1]))
    clusters = pl.DataFrame(
        members,
        schema={
            "repo": pl.Utf8,
            "number": pl.Int64,
            "cluster_id": pl.Int64,
            "root_repo": pl.Utf8,
            "root_number": pl.Int64,
        },
        orient="row",
    )
    with_root = links.join(clusters, on=["repo", "number"], how="left")
    with_root = with_root.with_columns(
        pl.when(pl.col("usable")).then(pl.col(c)).otherwise(None).alias(c)
        for c in ("cluster_id", "root_repo", "root_number")
    )
    return with_root, clusters


def write_store(
    root: Path,
    issues: dict[str, list[dict[str, Any]]],
    comments: dict[str, list[dict[str, Any]]] | None = None,
) -> Store:
    """A real crawl store with the given raw issues (and comments) per repository."""
    store = Store.open(root, create=True)
    for repo, items in issues.items():
        store.upsert_repo(repo)
        store.write_page(
            repo,
            issues=issue_rows(repo, items),
            comments=comment_rows(repo, (comments or {}).get(repo, [])),
        )
        store.upsert_repo(repo, status="ok", last_sync=utcnow())  # as a finished crawl leaves it
    return store


_WORDS = (
    "error",
    "panic",
    "crash",
    "build",
    "compile",
    "install",
    "version",
    "linux",
    "windows",
    "macos",
    "module",
    "import",
    "config",
    "network",
    "timeout",
    "memory",
    "thread",
    "async",
    "parser",
    "render",
)


@dataclass(frozen=True)
class GeneratedRepo:
    repo: str
    issues: list[dict[str, Any]]
    comments: list[dict[str, Any]]
    links: list[tuple[str, int, str, int]]


def generated_repos(
    n_issues: int, n_repos: int, dup_share: float, seed: int, mean_log_words: float = 4.8
) -> Iterator[GeneratedRepo]:
    """`n_issues` synthetic issues over `n_repos` repositories, one repository at a time.

    A `dup_share` of issues is closed by a maintainer comment "Duplicate of #k" (k an earlier
    issue of the same repository), so the real link stage finds them; texts have a log-normal
    length (median about e^mean_log_words words, long tail) and end with a code block.
    """
    rng = np.random.default_rng(seed)
    per_repo = np.bincount(rng.integers(0, n_repos, n_issues), minlength=n_repos)
    vocab = np.array([f"{w}{i}" for i in range(400) for w in _WORDS[:5]] + list(_WORDS))
    comment_id = 0
    for r, count in enumerate(per_repo.tolist()):
        repo = f"org{r}/project{r}"
        lengths = np.clip(rng.lognormal(mean_log_words, 1.0, count), 25, 8000).astype(int)
        issues, comments, links = [], [], []
        for number in range(1, count + 1):
            words = vocab[rng.integers(0, len(vocab), lengths[number - 1])]
            body = " ".join(words[:-20]) + "\n```\n" + " ".join(words[-20:]) + "\n```"
            issues.append(raw_issue(repo, number, f"{words[0]} {words[1]} fails", body))
            if number > 1 and rng.random() < dup_share:
                target = int(rng.integers(1, number))
                comment_id += 1
                comments.append(raw_comment(repo, number, comment_id, f"Duplicate of #{target}"))
                links.append((repo, number, repo, target))
        yield GeneratedRepo(repo, issues, comments, links)


def generated_issues(
    n_issues: int, n_repos: int, dup_share: float, seed: int
) -> tuple[dict[str, list[dict[str, Any]]], FixedLinks]:
    """All of `generated_repos` in memory, with the planted links as a `FixedLinks` table."""
    issues: dict[str, list[dict[str, Any]]] = {}
    links: list[tuple[Any, ...]] = []
    for generated in generated_repos(n_issues, n_repos, dup_share, seed):
        issues[generated.repo] = generated.issues
        links += generated.links
    return issues, FixedLinks.from_rows(links)


def write_generated_store(
    root: Path, n_issues: int, n_repos: int, dup_share: float, seed: int, page: int = 2000
) -> FixedLinks:
    """Stream `generated_repos` into a real store, page by page; returns the planted links."""
    store = Store.open(root, create=True)
    links: list[tuple[Any, ...]] = []
    try:
        for generated in generated_repos(n_issues, n_repos, dup_share, seed):
            store.upsert_repo(generated.repo)
            for start in range(0, len(generated.issues), page):
                batch = generated.issues[start : start + page]
                store.write_page(generated.repo, issues=issue_rows(generated.repo, batch))
            store.write_page(
                generated.repo, comments=comment_rows(generated.repo, generated.comments)
            )
            store.upsert_repo(generated.repo, status="ok", last_sync=utcnow())
            links += generated.links
    finally:
        store.close()
    return FixedLinks.from_rows(links)
