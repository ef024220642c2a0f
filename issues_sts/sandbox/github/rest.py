"""The REST endpoints: route a request to the corpus and answer like GitHub.

Rate limits, faults, auth and ETags are the server's business (`server.py`); this module only
knows what each URL means.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable

from issues_sts.sandbox.corpus import Corpus, Json, RepoData
from issues_sts.sandbox.github.http_types import Request, Response, error
from issues_sts.sandbox.github.listing import (
    InvalidQuery,
    PageCapExceeded,
    paginate,
    select_comments,
    select_issues,
)
from issues_sts.sandbox.github.settings import FakeSettings

PAGE_CAP_MESSAGE = (
    "In order to keep the API fast for everyone, pagination is limited for this resource. "
    "Check the rel=last link relation in the Link response header to see how far back you can jump."
)
REDIRECT_DOCS = (
    "https://docs.github.com/rest/guides/best-practices-for-using-the-rest-api#follow-redirects"
)

_REPO_PATH = re.compile(
    r"^/(?:repos/(?P<owner>[^/]+)/(?P<name>[^/]+)|repositories/(?P<id>\d+))(?P<rest>/.*)?$"
)
_ISSUE_REST = re.compile(r"^/issues/(?P<number>\d+)(?P<sub>/comments|/timeline|/events)?$")
# Timeline entries that are not issue events (the events API leaves them out).
TIMELINE_ONLY = frozenset({"commented", "cross-referenced", "committed", "reviewed"})


class RestApi:
    def __init__(self, corpus: Corpus, settings: FakeSettings, api_root: Callable[[], str]) -> None:
        self.corpus = corpus
        self.settings = settings
        self._api_root = api_root
        self._listings: OrderedDict[tuple[object, ...], list[Json]] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def api_root(self) -> str:
        return self._api_root()

    def handle(self, request: Request) -> Response:
        if request.method not in ("GET", "HEAD"):
            return error(404, "Not Found")
        match = _REPO_PATH.match(request.path)
        if not match:
            return error(404, "Not Found")
        repo, moved = self._resolve_repo(match)
        if moved is not None:
            return self._redirect(f"/repositories/{moved.repo_id}{match['rest'] or ''}", request)
        if repo is None:
            return error(
                404, "Not Found", "https://docs.github.com/rest/repos/repos#get-a-repository"
            )
        try:
            return self._route(repo, match["rest"] or "", request)
        except InvalidQuery as exc:
            return error(
                422, "Validation Failed", errors=[{"message": str(exc), "code": "invalid"}]
            )
        except PageCapExceeded:
            return error(422, PAGE_CAP_MESSAGE, "https://docs.github.com/v3/#pagination")

    def _resolve_repo(self, match: re.Match[str]) -> tuple[RepoData | None, RepoData | None]:
        """(repo, None) when found, (None, new_repo) when renamed, (None, None) when unknown."""
        if match["id"]:
            return self.corpus.by_id(int(match["id"])), None
        full_name = f"{match['owner']}/{match['name']}"
        repo = self.corpus.find(full_name)
        if repo is not None:
            return repo, None
        return None, self.corpus.renamed(full_name)

    def _route(self, repo: RepoData, rest: str, request: Request) -> Response:
        if rest in ("", "/"):
            return Response(200, repo.repo_object(self.api_root))
        if rest == "/issues":
            items = self._listing(
                repo, "issues", request, lambda: select_issues(repo.issues, request.query)
            )
            return self._page(items, f"/repositories/{repo.repo_id}/issues", request)
        if rest == "/issues/comments":
            items = self._listing(
                repo,
                "comments",
                request,
                lambda: select_comments(repo.comments, request.query, repo_wide=True),
            )
            base = f"/repositories/{repo.repo_id}/issues/comments"
            return self._page(items, base, request, item_cap=self.settings.comments_cap)
        if rest == "/issues/events":
            items = self._listing(repo, "events", request, lambda: repo_events(repo))
            return self._page(items, f"/repositories/{repo.repo_id}/issues/events", request)
        match = _ISSUE_REST.match(rest)
        if not match:
            return error(404, "Not Found")
        return self._issue(repo, int(match["number"]), match["sub"] or "", request)

    def _issue(self, repo: RepoData, number: int, sub: str, request: Request) -> Response:
        if number in repo.transferred:
            target_name, target_number = repo.transferred[number]
            target = self.corpus.find(target_name)
            target_path = f"/repositories/{target.repo_id}" if target else f"/repos/{target_name}"
            return self._redirect(f"{target_path}/issues/{target_number}{sub}", request)
        if number in repo.gone:
            return error(
                410,
                "This issue was deleted",
                "https://docs.github.com/rest/issues/issues#get-an-issue",
            )
        item = repo.issue(number)
        if item is None or number in repo.deleted:
            return error(
                404, "Not Found", "https://docs.github.com/rest/issues/issues#get-an-issue"
            )
        base = f"/repositories/{repo.repo_id}/issues/{number}{sub}"
        if sub == "/comments":
            if not self.settings.issue_comments:
                return error(404, "Not Found")
            items = select_comments(repo.comments_of(number), request.query, repo_wide=False)
            return self._page(items, base, request)
        if sub == "/timeline":
            return self._page(timeline_of(repo, number), base, request)
        if sub == "/events":
            events = [
                e for e in repo.timeline.get(number, []) if e.get("event") not in TIMELINE_ONLY
            ]
            return self._page(events, base, request)
        return Response(200, item)

    def _listing(
        self, repo: RepoData, kind: str, request: Request, select: Callable[[], list[Json]]
    ) -> list[Json]:
        """Filtered, sorted big listings, cached per (filters, corpus version): every page of a
        30k-item list would otherwise sort it again."""
        filters = tuple(
            sorted((k, v) for k, v in request.query if k not in ("page", "per_page", "after"))
        )
        key = (repo.full_name, repo.version, kind, filters)
        with self._lock:
            cached = self._listings.get(key)
            if cached is not None:
                self._listings.move_to_end(key)
                return cached
        items = select()
        with self._lock:
            self._listings[key] = items
            while len(self._listings) > 32:
                self._listings.popitem(last=False)
        return items

    def _page(
        self, items: list[Json], base: str, request: Request, item_cap: int | None = None
    ) -> Response:
        page = paginate(
            items,
            request.query,
            self.api_root + base,
            per_page_default=self.settings.per_page_default,
            per_page_max=self.settings.per_page_max,
            page_cap=self.settings.page_cap,
            item_cap=item_cap,
            cursor=self.settings.cursor_pagination,
        )
        headers = {"link": page.link} if page.link else {}
        return Response(200, page.items, headers)

    def _redirect(self, path: str, request: Request) -> Response:
        query = request.raw_target.partition("?")[2]
        location = self.api_root + path + (f"?{query}" if query else "")
        response = error(301, "Moved Permanently", REDIRECT_DOCS, url=location)
        response.headers["location"] = location
        return response


def timeline_of(repo: RepoData, number: int) -> list[Json]:
    """Stored events plus a `commented` event per comment, oldest first, like GitHub's timeline."""
    events = list(repo.timeline.get(number, []))
    for comment in repo.comments_of(number):
        events.append({**comment, "event": "commented", "actor": comment.get("user")})
    return sorted(events, key=lambda e: str(e.get("created_at", "")))


def repo_events(repo: RepoData) -> list[Json]:
    """GET /repos/{o}/{r}/issues/events: every issue event, newest first, with its issue."""
    events = []
    for number, timeline in repo.timeline.items():
        item = repo.issue(number)
        for event in timeline:
            if event.get("event") not in TIMELINE_ONLY and event.get("id") is not None:
                events.append({**event, "issue": item})
    return sorted(events, key=lambda e: e["id"], reverse=True)
