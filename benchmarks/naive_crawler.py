"""The baseline: how a straightforward crawler gets the same data.

It lists issues page by page, then asks `/issues/{n}/comments` for every issue, and only
reacts to the rate limit once GitHub refuses it (sleeping until `x-ratelimit-reset`). It
stores what it gets in the same store, so its cost is comparable with `issues-sts crawl`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from issues_sts.crawl.pagination import next_url
from issues_sts.crawl.rows import comment_rows, issue_rows
from issues_sts.store import Store


@dataclass
class NaiveResult:
    requests: int = 0
    refused: int = 0
    items: int = 0
    comments: int = 0
    seconds: float = 0.0
    finished: bool = True
    planned: int = 0  # requests the whole crawl takes: list pages + every issue's comment pages


def _get(http: httpx.Client, url: str, result: NaiveResult) -> httpx.Response:
    """GET with the usual reactive handling: on a refusal, sleep until the reset and retry."""
    while True:
        response = http.get(url)
        result.requests += 1
        if response.status_code in (403, 429):
            result.refused += 1
            reset = float(response.headers.get("x-ratelimit-reset", time.time() + 1))
            wait = float(response.headers.get("retry-after", max(0.0, reset - time.time())))
            time.sleep(max(wait, 0.01))
            continue
        response.raise_for_status()
        return response


def naive_crawl(
    api_url: str, token: str, repo: str, store_dir: Path, *, deadline: float | None = None
) -> NaiveResult:
    """Crawl `repo` the naive way; stop early (finished=False) once `deadline` (epoch) passes."""
    result, started = NaiveResult(), time.time()
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json"}
    with (
        httpx.Client(headers=headers, timeout=60) as http,
        Store.open(store_dir, create=True) as store,
    ):
        store.upsert_repo(repo)
        url: str | None = f"{api_url}/repos/{repo}/issues?state=all&per_page=100"
        numbers: list[int] = []
        while url:
            response = _get(http, url, result)
            items = response.json()
            store.write_page(repo, issues=issue_rows(repo, items))
            numbers += [item["number"] for item in items]
            result.items += len(items)
            result.planned += 1 + sum(max(1, math.ceil(i.get("comments", 0) / 100)) for i in items)
            url = next_url(response.headers.get("link"))
        for number in numbers:
            if deadline is not None and time.time() > deadline:
                result.finished = False
                break
            url = f"{api_url}/repos/{repo}/issues/{number}/comments?per_page=100"
            while url:
                response = _get(http, url, result)
                comments = response.json()
                store.write_page(repo, comments=comment_rows(repo, comments))
                result.comments += len(comments)
                url = next_url(response.headers.get("link"))
    result.seconds = time.time() - started
    return result
