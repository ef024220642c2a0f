"""GraphQL object values over the corpus: graphql-core's default resolver reads their
attributes and calls their methods (named like the schema's fields) with the field arguments."""

from __future__ import annotations

import base64
from typing import Any

from graphql import GraphQLError

from issues_sts.sandbox.corpus import Corpus, Json, RepoData

MAX_PAGE = 100
EVENT_TYPES = {
    "marked_as_duplicate": ("MarkedAsDuplicateEvent", "MARKED_AS_DUPLICATE_EVENT"),
    "unmarked_as_duplicate": ("UnmarkedAsDuplicateEvent", "UNMARKED_AS_DUPLICATE_EVENT"),
    "closed": ("ClosedEvent", "CLOSED_EVENT"),
    "reopened": ("ReopenedEvent", "REOPENED_EVENT"),
    "labeled": ("LabeledEvent", "LABELED_EVENT"),
    "unlabeled": ("UnlabeledEvent", "UNLABELED_EVENT"),
}
# GraphQL's Int is 32-bit: GitHub answers `databaseId` of newer objects with null and an error,
# and carries their ids in `fullDatabaseId` (a BigInt, sent as a string).
INT_MAX = 2**31 - 1


class NotFound(GraphQLError):
    """GitHub's `{"type": "NOT_FOUND", ...}` error; the field resolves to null."""

    error_type = "NOT_FOUND"


class TooMany(GraphQLError):
    error_type = "EXCESSIVE_PAGINATION"


def cursor(offset: int) -> str:
    return base64.b64encode(f"cursor:v2:{offset}".encode()).decode()


def offset_of(after: str | None) -> int:
    if not after:
        return 0
    try:
        return int(base64.b64decode(after).decode().rsplit(":", 1)[1]) + 1
    except (ValueError, IndexError) as exc:
        raise GraphQLError(f"`{after}` does not appear to be a valid cursor.") from exc


def connection(items: list[Any], first: int | None, after: str | None, field: str) -> Json:
    if first is None:
        raise GraphQLError(
            f"You must provide a `first` or `last` value to properly paginate the `{field}` "
            "connection."
        )
    if first > MAX_PAGE or first < 0:
        raise TooMany(
            f"Requesting {first} records on the `{field}` connection exceeds the `first` limit of "
            f"{MAX_PAGE} records."
        )
    start = offset_of(after)
    chosen = items[start : start + first]
    end = start + len(chosen) - 1
    return {
        "nodes": chosen,
        "totalCount": len(items),
        "filteredCount": len(items),
        "pageInfo": {
            "hasNextPage": start + first < len(items),
            "hasPreviousPage": start > 0,
            "startCursor": cursor(start) if chosen else None,
            "endCursor": cursor(end) if chosen else None,
        },
    }


def user(raw: Json | None) -> Json | None:
    """An `Actor`. A GitHub App is a `Bot` whose GraphQL login lacks the `[bot]` that REST
    shows ("dependabot" there, "dependabot[bot]" here): a crawler must ask `__typename`."""
    if not raw:
        return None
    login = str(raw.get("login", "ghost"))
    bot = raw.get("type") == "Bot" or login.endswith("[bot]")
    name = login.removesuffix("[bot]") if bot else login
    return {
        "typename": "Bot" if bot else "User",
        "id": raw.get("node_id") or f"U_{login}",
        "login": name,
        "url": raw.get("html_url") or f"https://github.com/{'apps/' if bot else ''}{name}",
    }


def database_id(value: Any) -> int | None:
    """What GitHub's 32-bit `databaseId` carries: the id itself, or a value graphql-core refuses
    (an error and null, as GitHub answers for ids above 2^31)."""
    return None if value is None else int(value)


def full_database_id(value: Any) -> str | None:
    return None if value is None else str(int(value))


class RepoNode:
    typename = "Repository"

    def __init__(self, corpus: Corpus, repo: RepoData) -> None:
        self.corpus, self.repo = corpus, repo
        self.id = f"R_fake{repo.repo_id}"
        self.databaseId = repo.repo_id
        self.name = repo.name
        self.nameWithOwner = repo.full_name
        self.url = f"https://github.com/{repo.full_name}"

    def _item(self, number: int, want: str) -> Any:
        repo = self.repo
        item = repo.issue(number)
        if (
            item is None
            or number in repo.deleted
            or number in repo.gone
            or number in repo.transferred
        ):
            noun = {
                "Issue": "an Issue",
                "PullRequest": "a PullRequest",
                "any": "an issue or pull request",
            }[want]
            raise NotFound(f"Could not resolve to {noun} with the number of {number}.")
        node = item_node(self.corpus, repo, item)
        if want != "any" and node.typename != want:
            noun = "an Issue" if want == "Issue" else "a PullRequest"
            raise NotFound(f"Could not resolve to {noun} with the number of {number}.")
        return node

    def issue(self, info: Any, number: int) -> Any:
        return self._item(number, "Issue")

    def pullRequest(self, info: Any, number: int) -> Any:
        return self._item(number, "PullRequest")

    def issueOrPullRequest(self, info: Any, number: int) -> Any:
        return self._item(number, "any")

    def issues(
        self,
        info: Any,
        first: int | None = None,
        after: str | None = None,
        states: list[str] | None = None,
        orderBy: Json | None = None,
        filterBy: Json | None = None,
    ) -> Json:
        items = [i for i in self.repo.issues if "pull_request" not in i]
        wanted = states or (filterBy or {}).get("states")
        if wanted:
            items = [i for i in items if i["state"].upper() in wanted]
        since = (filterBy or {}).get("since")
        if since:
            items = [i for i in items if i["updated_at"] >= str(since)]
        order = orderBy or {"field": "CREATED_AT", "direction": "ASC"}
        key = {"CREATED_AT": "created_at", "UPDATED_AT": "updated_at", "COMMENTS": "comments"}[
            order["field"]
        ]
        items = sorted(
            items, key=lambda i: (i[key], i["number"]), reverse=order["direction"] == "DESC"
        )
        page = connection(items, first, after, "issues")
        page["nodes"] = [IssueNode(self.corpus, self.repo, i) for i in page["nodes"]]
        return page

    def pullRequests(self, info: Any, first: int | None = None, after: str | None = None) -> Json:
        items = [i for i in self.repo.issues if "pull_request" in i]
        page = connection(items, first if first is not None else 0, after, "pullRequests")
        page["nodes"] = [PullRequestNode(self.corpus, self.repo, i) for i in page["nodes"]]
        return page


def comment_node(comment: Json) -> Json:
    return {
        "typename": "IssueComment",
        "_kind": "ISSUE_COMMENT",
        "id": comment.get("node_id"),
        "databaseId": database_id(comment.get("id")),
        "fullDatabaseId": full_database_id(comment.get("id")),
        "body": comment.get("body") or "",
        "author": user(comment.get("user")),
        "authorAssociation": str(comment.get("author_association") or "NONE").upper(),
        "createdAt": comment.get("created_at"),
        "updatedAt": comment.get("updated_at") or comment.get("created_at"),
        "url": comment.get("html_url"),
    }


def item_node(corpus: Corpus, repo: RepoData, item: Json) -> Any:
    return (
        PullRequestNode(corpus, repo, item)
        if "pull_request" in item
        else IssueNode(corpus, repo, item)
    )


class _ItemBase:
    typename = ""

    def __init__(self, corpus: Corpus, repo: RepoData, item: Json) -> None:
        self.corpus, self.repo_data, self.item = corpus, repo, item
        self.id = item.get("node_id") or f"I_{repo.repo_id}_{item['number']}"
        self.databaseId = database_id(item.get("id"))
        self.fullDatabaseId = full_database_id(item.get("id"))
        self.number = item["number"]
        self.title = item.get("title") or ""
        self.url = (
            item.get("html_url") or f"https://github.com/{repo.full_name}/issues/{self.number}"
        )
        self.createdAt = item.get("created_at")
        self.author = user(item.get("user"))

    def repository(self, info: Any) -> RepoNode:
        return RepoNode(self.corpus, self.repo_data)

    def _event(self, event: Json) -> Json:
        typename, kind = EVENT_TYPES[event["event"]]
        node: Json = {
            "typename": typename,
            "_kind": kind,
            "id": event.get("node_id"),
            "actor": user(event.get("actor")),
            "createdAt": event.get("created_at"),
        }
        if kind in ("CLOSED_EVENT", "REOPENED_EVENT"):
            reason = event.get("state_reason")
            # ClosedEvent.stateReason takes no `enableDuplicate`: a duplicate close reads
            # NOT_PLANNED here (only Issue.stateReason(enableDuplicate: true) says DUPLICATE)
            if reason == "duplicate":
                reason = "not_planned"
            node["stateReason"] = str(reason).upper() if reason else None
        elif kind in ("LABELED_EVENT", "UNLABELED_EVENT"):
            label = event.get("label") or {}
            node["label"] = {
                "id": f"LA_{label.get('name')}",
                "name": label.get("name", ""),
                "color": label.get("color", "ededed"),
            }
        else:
            target = self.repo_data.event_canonical.get(str(event.get("node_id")))
            node["canonical"] = resolve_ref(self.corpus, target)
            node["duplicate"] = self
            node["isCrossRepository"] = bool(
                target and target[0].lower() != self.repo_data.full_name.lower()
            )
        return node


class PullRequestNode(_ItemBase):
    typename = "PullRequest"

    def __init__(self, corpus: Corpus, repo: RepoData, item: Json) -> None:
        super().__init__(corpus, repo, item)
        self.merged = bool((item.get("pull_request") or {}).get("merged_at"))
        self.state = "MERGED" if self.merged else str(item.get("state", "open")).upper()


class IssueNode(_ItemBase):
    typename = "Issue"

    def __init__(self, corpus: Corpus, repo: RepoData, item: Json) -> None:
        super().__init__(corpus, repo, item)
        self.body = item.get("body") or ""
        self.state = str(item.get("state", "open")).upper()
        self.updatedAt = item.get("updated_at")
        self.closedAt = item.get("closed_at")

    def stateReason(self, info: Any, enableDuplicate: bool = False) -> str | None:
        reason = self.item.get("state_reason")
        if not reason:
            return None
        if reason == "duplicate" and not enableDuplicate:
            return "NOT_PLANNED"  # what GitHub shows clients that did not opt in
        return str(reason).upper()

    def timelineItems(
        self,
        info: Any,
        first: int | None = None,
        after: str | None = None,
        itemTypes: list[str] | None = None,
        since: str | None = None,
    ) -> Json:
        nodes = self._timeline()
        if itemTypes:
            nodes = [n for n in nodes if n["_kind"] in itemTypes]
        if since:
            nodes = [n for n in nodes if n["createdAt"] >= str(since)]
        return connection(nodes, first, after, "timelineItems")

    def comments(self, info: Any, first: int | None = None, after: str | None = None) -> Json:
        return connection(
            [comment_node(c) for c in self.repo_data.comments_of(self.number)],
            first,
            after,
            "comments",
        )

    def _timeline(self) -> list[Json]:
        repo, number = self.repo_data, self.number
        nodes = [
            self._event(e) for e in repo.timeline.get(number, []) if e.get("event") in EVENT_TYPES
        ]
        nodes.extend(comment_node(c) for c in repo.comments_of(number))
        # a duplicate mark shows on the canonical's timeline too, naming the other issue
        for source, event in self.corpus.marks_naming(repo.full_name, number):
            item = source.issue(int(event["_number"]))
            if item is not None:
                nodes.append(item_node(self.corpus, source, item)._event(event))
        return sorted(nodes, key=lambda n: str(n["createdAt"]))


def resolve_ref(corpus: Corpus, ref: tuple[str, int] | None) -> Any:
    """The issue or PR a (repo, number) names; null when it was deleted, like GitHub."""
    if ref is None:
        return None
    repo = corpus.find(ref[0])
    if repo is None:
        owner_repo = RepoData(full_name=ref[0], repo_id=0)
        return IssueNode(corpus, owner_repo, {"number": ref[1], "state": "open"})
    item = repo.issue(ref[1])
    if item is None or ref[1] in repo.deleted or ref[1] in repo.gone:
        return None
    return item_node(corpus, repo, item)
