"""`crawl --plan`: what a crawl will cost, before spending anything, and how long it will take.

Per repository one cheap question (GraphQL: the `totalCount`s of issues and pull requests and
the comment counts of the 100 newest issues, one point; REST without GraphQL: the number of
the last page of a one-item issue list, one request) gives its size. The projection applies
what the crawler does (`runner`) to that size:

* REST: `GET /repos/{r}` plus one issue-list page per 100 issues and PRs (and, without GraphQL,
  one repo-wide comment page per 100 comments, PRs' comments included);
* GraphQL: one point per thread batch (up to 100 issues, about 2,000 timeline items): an open
  issue with comments asks its comments, a closed one its timeline in the same connection (its
  comments and the events that bear on duplicates: closes, reopens, label history, duplicate
  marks), so the event collection costs points only for closed issues without comments that
  point at an issue, and response time for the events themselves; one point per 50 open
  duplicate candidates; PRs and their comments cost nothing;
* time: the largest of what each limit allows at GitHub's documented values (5,000 requests
  and 5,000 points an hour; 90 s of response time a minute, 60 s of it GraphQL), with a
  response time of `latency_base + latency_per_kb x size` (the stated latency assumption).

Pure functions; the questions themselves are asked by `ask_counts`, and `plan_crawl` asks them
of every repository and saves the plan next to the store.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx

from issues_sts.crawl.client import GitHubClient, GraphQLUnavailable, open_client
from issues_sts.crawl.config import CrawlConfig
from issues_sts.crawl.pagination import last_page
from issues_sts.crawl.resolve import resolve_repo
from issues_sts.errors import StoreError, os_errors
from issues_sts.store import Store

PLAN_FILE = "crawl-plan.json"
COUNTS_QUERY = (
    "query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { "
    "issues(first: 1) { totalCount } pullRequests(first: 1) { totalCount } "
    "closed: issues(first: 1, states: [CLOSED]) { totalCount } "
    "recent: issues(first: 100, orderBy: {field: CREATED_AT, direction: DESC}) "
    "{ nodes { comments(first: 1) { totalCount } } } } }"
)


@dataclass(frozen=True)
class Assumptions:
    """GitHub's documented limits for one token, and the latency and sizes assumed."""

    rest_per_hour: int = 5000
    points_per_hour: int = 5000
    cpu_per_minute: float = 90.0
    graphql_cpu_per_minute: float = 60.0
    latency_base: float = 0.25  # seconds per answer
    latency_per_kb: float = 0.0025  # seconds per KiB of answer (~1 s for 100 issues of 2.6 KiB)
    issue_kb: float = 2.6  # one REST issue object (paper world: modern long texts)
    comment_kb: float = 0.8  # one comment as GraphQL returns it
    comments_per_item: float = 5.0  # when no sample says otherwise (REST-only plans)
    candidate_share: float = 0.05  # issues with duplicate evidence whose timeline is asked
    thread_batch_comments: int = 2000  # node budget of one thread batch
    # The event collection (closed issues' timelines), from the real archives: 67 % (onnxruntime)
    # and 75 % (neovim) of issues are closed; a closed issue's timeline serves ~4 items that
    # bear on duplicates (closes, reopens, every label added or removed, marks), most dropped;
    # ~5 % of closed issues have no comment but point at an issue (asked for their close alone);
    # ~2 % of issues are closed duplicates (REST-only: their timelines).
    closed_share: float = 0.7  # when the count does not say
    events_per_closed: float = 4.0
    event_kb: float = 0.25
    closed_without_comments: float = 0.05
    closed_duplicate_share: float = 0.02


@dataclass
class RepoCounts:
    repo: str
    items: int  # issues + pull requests
    issues: int | None  # None: unknown (REST-only count)
    comments_per_issue: float | None = None  # mean over the newest issues (sample)
    with_comments: float | None = None  # share of those with at least one comment
    closed: int | None = None  # closed issues (GraphQL count)


@dataclass
class RepoPlan:
    repo: str
    items: int
    issues: int
    comments: int  # the comments the crawl will fetch
    rest_requests: int
    graphql_points: int
    response_seconds: float
    graphql_response_seconds: float

    def hours(self, a: Assumptions) -> float:
        return hours(
            self.rest_requests,
            self.graphql_points,
            self.response_seconds,
            self.graphql_response_seconds,
            a,
        )


def hours(
    rest: float, points: float, seconds: float, graphql_seconds: float, a: Assumptions
) -> float:
    """The least time one token needs: the tightest of the four limits."""
    return max(
        rest / a.rest_per_hour,
        points / a.points_per_hour,
        seconds / (a.cpu_per_minute / 60) / 3600,
        graphql_seconds / (a.graphql_cpu_per_minute / 60) / 3600,
    )


def plan_repo(c: RepoCounts, *, graphql: bool, a: Assumptions = Assumptions()) -> RepoPlan:
    """What crawling one repository of these counts will spend."""
    issues = c.issues if c.issues is not None else c.items
    per_issue = c.comments_per_issue if c.comments_per_issue is not None else a.comments_per_item
    list_pages = math.ceil(c.items / 100)
    page_seconds = a.latency_base + a.latency_per_kb * min(100, c.items) * a.issue_kb
    closed = c.closed if c.closed is not None else round(issues * a.closed_share)
    if graphql:
        comments = round(issues * per_issue)
        threads = round(issues * (c.with_comments if c.with_comments is not None else 0.8))
        threads += round(closed * a.closed_without_comments)  # asked for their close alone
        events = round(closed * a.events_per_closed)
        nodes = comments + events
        batches = max(math.ceil(threads / 100), math.ceil(nodes / a.thread_batch_comments))
        candidates = math.ceil(issues * a.candidate_share / 50)
        points = batches + candidates
        graphql_seconds = (
            points * a.latency_base
            + (comments * a.comment_kb + events * a.event_kb) * a.latency_per_kb
        )
        rest = 1 + list_pages
        seconds = rest * page_seconds + graphql_seconds
    else:
        comments = round(c.items * per_issue)
        comment_pages = math.ceil(comments / 100)
        # keyword closes open again, and closed issues GitHub calls duplicates
        timelines = math.ceil(issues * (a.candidate_share / 4 + a.closed_duplicate_share))
        rest = 1 + list_pages + comment_pages + timelines
        points, graphql_seconds = 0, 0.0
        seconds = (
            list_pages * page_seconds
            + comment_pages * (a.latency_base + 100 * a.comment_kb * a.latency_per_kb)
            + (1 + timelines) * a.latency_base
        )
    return RepoPlan(c.repo, c.items, issues, comments, rest, points, seconds, graphql_seconds)


@dataclass
class Plan:
    repos: list[RepoPlan]
    graphql: bool
    assumptions: Assumptions = field(default_factory=Assumptions)
    asked_requests: int = 0  # what asking for the counts cost
    asked_points: int = 0
    compared: str | None = None  # the comparison line, once a complete crawl followed

    def total(self) -> RepoPlan:
        t = RepoPlan("total", 0, 0, 0, 0, 0, 0.0, 0.0)
        for p in self.repos:
            t.items, t.issues, t.comments = (
                t.items + p.items,
                t.issues + p.issues,
                t.comments + p.comments,
            )
            t.rest_requests += p.rest_requests
            t.graphql_points += p.graphql_points
            t.response_seconds += p.response_seconds
            t.graphql_response_seconds += p.graphql_response_seconds
        return t

    def anonymous_requests(self) -> int:
        """The REST requests of the same crawl without a token (no GraphQL: comments and
        timelines over REST), at GitHub's 60 an hour."""
        if not self.graphql:
            return self.total().rest_requests
        total = 0
        for p in self.repos:
            per_item = p.comments / p.items if p.items else 0.0  # REST lists PRs' comments too
            counts = RepoCounts(p.repo, p.items, p.issues, per_item)
            total += plan_repo(counts, graphql=False, a=self.assumptions).rest_requests
        return total

    def save(self, store: Path) -> None:
        data = {
            "graphql": self.graphql,
            "assumptions": asdict(self.assumptions),
            "repos": [asdict(p) for p in self.repos],
            "compared": self.compared,
        }
        (store / PLAN_FILE).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, store: Path) -> Plan | None:
        path = store / PLAN_FILE
        if not path.is_file():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(
                [RepoPlan(**p) for p in data["repos"]],
                bool(data["graphql"]),
                Assumptions(**data["assumptions"]),
                compared=data.get("compared"),
            )
        except (ValueError, KeyError, TypeError):
            return None  # a plan from another version: no comparison rather than a wrong one


def ask_counts(client: GitHubClient, repo: str, *, graphql: bool) -> tuple[RepoCounts, bool]:
    """The size of `repo` (owner/name as GitHub knows it now), and whether GraphQL answered."""
    if graphql:
        owner, name = repo.split("/", 1)
        try:
            answer = client.graphql(COUNTS_QUERY, {"owner": owner, "name": name})
        except GraphQLUnavailable:
            answer = {}
        node = (answer.get("data") or {}).get("repository") if isinstance(answer, dict) else None
        if isinstance(node, dict):
            issues = int((node.get("issues") or {}).get("totalCount") or 0)
            prs = int((node.get("pullRequests") or {}).get("totalCount") or 0)
            sample = [
                int(((n or {}).get("comments") or {}).get("totalCount") or 0)
                for n in (node.get("recent") or {}).get("nodes") or []
            ]
            mean = sum(sample) / len(sample) if sample else None
            share = sum(1 for s in sample if s > 0) / len(sample) if sample else None
            closed = (node.get("closed") or {}).get("totalCount")
            counts = RepoCounts(repo, issues + prs, issues, mean, share)
            counts.closed = int(closed) if closed is not None else None
            return counts, True
    page = client.get(f"repos/{repo}/issues?state=all&per_page=1", expect=(404,))
    last = last_page(page.link)
    items = last if last is not None else len(page.data) if isinstance(page.data, list) else 0
    return RepoCounts(repo, items, None), False


def plan_crawl(
    cfg: CrawlConfig, *, http: httpx.Client | None = None, assumptions: Assumptions = Assumptions()
) -> Plan:
    """Ask each repository for its size (one point or one request each, plus `GET /repos`
    to follow renames), project the crawl, save the plan next to the store and return it."""
    graphql = cfg.graphql and cfg.token is not None
    plans = []
    with open_client(cfg, http=http) as client:
        for repo in cfg.repos:
            found = resolve_repo(client, repo, cfg.api_url, cfg.repos_named_in)
            counts, graphql = ask_counts(
                client, str(found.get("full_name") or repo), graphql=graphql
            )
            counts.repo = repo
            plans.append(plan_repo(counts, graphql=graphql, a=assumptions))
    plan = Plan(
        plans,
        graphql,
        assumptions,
        asked_requests=client.stats.counted - client.stats.graphql,
        asked_points=client.stats.graphql,
    )
    Store.open(cfg.store, create=True).close()
    with os_errors(StoreError, f"the crawl plan cannot be saved in {cfg.store}"):
        plan.save(cfg.store)
    return plan


def plan_table_rows(plan: Plan) -> list[tuple[str, ...]]:
    """Rows of the printed plan: per repository and a total line."""
    a = plan.assumptions
    rows: list[tuple[str, ...]] = []
    for p in [*plan.repos, plan.total()]:
        rows.append(
            (
                p.repo,
                f"{p.items:,}",
                f"{p.issues:,}",
                f"{p.comments:,}",
                f"{p.rest_requests:,}",
                f"{p.graphql_points:,}",
                f"{p.hours(a):.2f}",
            )
        )
    return rows


def compare(plan: Plan, requests: int, points: int, seconds: float) -> str:
    """One line: the projection against what the crawl spent."""
    t = plan.total()
    return (
        f"planned {t.rest_requests:,} REST requests, {t.graphql_points:,} GraphQL points, "
        f"{t.hours(plan.assumptions):.2f} h; spent {requests:,} requests, {points:,} points, "
        f"{seconds / 3600:.2f} h"
    )


def counts_payload(plan: Plan) -> dict[str, Any]:
    return {
        "graphql": plan.graphql,
        "repos": [asdict(p) | {"hours": p.hours(plan.assumptions)} for p in plan.repos],
    }
