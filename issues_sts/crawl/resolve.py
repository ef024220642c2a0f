"""Where a repository lives now: `GET /repos/{o}/{r}`, following a rename.

The crawl's first step per repository (`ResolveChain`, with If-None-Match) and `crawl --plan`'s
(`resolve_repo`) ask the same question the same way.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from issues_sts.crawl.apiroot import ApiRoot
from issues_sts.crawl.client import GitHubClient, Page
from issues_sts.errors import RepoNotFound
from issues_sts.store import Checkpoint, Store

log = logging.getLogger("issues_sts.crawl")

OLD_NAME = "old-name:"  # the checkpoint of one possible old name asked about (`OldNameChain`)


def get_following(client: GitHubClient, path: str, etag: str | None = None) -> tuple[Page, int]:
    """GET a repository, following up to 3 redirects (a renamed or moved repository answers
    301 with where it lives now); the answer and how many hops it took."""
    page = client.get(path, etag=etag, expect=(404,))
    hops = 0
    while page.status in (301, 302, 307, 308) and page.location and hops < 3:
        page, hops = client.get(page.location, expect=(404,)), hops + 1
    return page, hops


def not_found(repo: str, status: int, named_in: str) -> RepoNotFound:
    """The error of a repository that does not answer 200 (nor 304)."""
    return RepoNotFound(
        f"{repo} does not exist or is not visible to this token",
        status=status,
        hint=f"check the owner/name {named_in}; private repositories need a token with access",
    )


def resolve_repo(client: GitHubClient, repo: str, api_url: str, named_in: str) -> dict[str, Any]:
    """The repository object of `repo` (renames followed); RepoNotFound when it is gone, once
    the API root itself is known to answer (every repository "missing": the URL may be the
    problem)."""
    page, _ = get_following(client, f"repos/{repo}")
    if page.status != 200 or not isinstance(page.data, dict):
        ApiRoot(api_url).check(client)
        raise not_found(repo, page.status, named_in)
    return page.data


class ResolveChain:
    """`GET /repos/{o}/{r}` (with If-None-Match), following a rename: where the repository
    lives now; RepoNotFound (raised on commit) when it is gone."""

    def __init__(
        self, store: Store, repo: str, api: ApiRoot | None = None, named_in: str = "repos.yaml"
    ) -> None:
        self.store = store
        self.repo = repo
        self.api = api
        self.named_in = named_in
        self.current: str | None = None
        self.not_modified = False  # the repository answered 304: a free request
        self.cp = store.checkpoint(repo, "repo")
        self.known = store.repo_row(repo) or {}

    def next_step(self) -> Callable[[GitHubClient], tuple[Page, int]] | None:
        if self.current is not None:
            return None
        etag = self.cp.etag if self.cp.done and self.known.get("current_name") else None
        return lambda client: self._resolve(client, etag)

    def _resolve(self, client: GitHubClient, etag: str | None) -> tuple[Page, int]:
        page, hops = get_following(client, f"repos/{self.repo}", etag)
        if page.status not in (200, 304) and self.api is not None:
            self.api.check(client)  # every repository "missing": the URL may be the problem
        return page, hops

    def commit(self, result: tuple[Page, int]) -> None:
        page, hops = result
        if page.status == 304:
            self.current = str(self.known["current_name"])
            self.not_modified = True
            return
        if page.status != 200 or not isinstance(page.data, dict):
            self.store.upsert_repo(self.repo, status="missing")
            raise not_found(self.repo, page.status, self.named_in)
        self.current = str(page.data.get("full_name") or self.repo)
        self.store.upsert_repo(self.repo, repo_id=page.data.get("id"), current_name=self.current)
        self.store.put_checkpoint(
            Checkpoint(self.repo, "repo", etag=page.etag if hops == 0 else None, done=True)
        )


class OldNameChain:
    """`GET /repos/{o}/{r}` for a name the duplicate wording links to: GitHub
    redirects a repository's old name to where it lives now, so an answer that lands on this
    repository makes the name one of its old ones, stored as a rename (`Store.renamed_repos`,
    read by the link stage). Anything else (another repository, a fork, 404) stores nothing
    but the answer's checkpoint, so the name is not asked again."""

    def __init__(self, store: Store, repo: str, old: str, current: str) -> None:
        self.store = store
        self.repo = repo
        self.old = old
        self.current = current
        self.finished = False

    def next_step(self) -> Callable[[GitHubClient], tuple[Page, int]] | None:
        if self.finished:
            return None
        return lambda client: get_following(client, f"repos/{self.old}")

    def commit(self, result: tuple[Page, int]) -> None:
        self.finished = True
        page, hops = result
        lands = (
            str(page.data.get("full_name") or "")
            if page.status == 200 and isinstance(page.data, dict)
            else ""
        )
        asked = Checkpoint(
            self.repo, f"{OLD_NAME}{self.old.lower()}", since=lands or str(page.status), done=True
        )
        renamed = bool(hops) and lands.lower() == self.current.lower()
        if renamed:
            log.info("%s: %s is its old name (GitHub redirects it there)", self.repo, self.old)
        self.store.record_old_name(asked, (self.old, lands) if renamed else None)
