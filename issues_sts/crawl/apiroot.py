"""Whether `--api-url` is a GitHub REST API root at all. A wrong one (an `/api/v3` path on
github.com, a server that is not GitHub) answers 404 for every repository, which would read
as "that repository does not exist" once per repository; one free request tells the two
apart: `GET /rate_limit` (it counts against no limit) answers every GitHub API root, and a
GitHub Enterprise Server without rate limits says so in its 404."""

from __future__ import annotations

import threading
from typing import Any

from issues_sts.crawl.client import GitHubClient
from issues_sts.errors import ConfigError, GitHubError

GITHUB_ROOTS = "https://api.github.com for github.com, https://HOST/api/v3 for GitHub Enterprise"


def says_github(status: int, data: Any) -> bool:
    """Whether a `GET /rate_limit` answer comes from a GitHub REST API root."""
    if not isinstance(data, dict):
        return False
    if status == 200:
        return "resources" in data or "rate" in data
    return "rate limit" in str(data.get("message", "")).lower()  # GHES: "not enabled"


class ApiRoot:
    """Asked once per crawl, when a repository is not found: a ConfigError (exit 2) naming
    --api-url when the URL is the problem; silent when GitHub answers (the repository is
    really missing) or when the probe itself fails (nothing to say about the URL then)."""

    def __init__(self, api_url: str) -> None:
        self.api_url = api_url
        self._checked = False
        self._lock = threading.Lock()

    def check(self, client: GitHubClient) -> None:
        with self._lock:
            if self._checked:
                return
            self._checked = True
        try:
            page = client.get("rate_limit", expect=(400, 403, 404, 405, 410, 422))
        except GitHubError:
            return
        if not says_github(page.status, page.data):
            raise ConfigError(
                f"--api-url {self.api_url} is not a GitHub REST API root: GET "
                f"{self.api_url}/rate_limit answered {page.status}, not GitHub's rate limits",
                hint=f"use {GITHUB_ROOTS}",
            )
