"""POST /graphql: parse, (optionally) validate against GitHub's real schema, execute over the
corpus.

The fake's own schema is `schema.graphql` (a subset written for this project). With
`graphql_schema_check`, every query is first validated against GitHub's published SDL when it
is available (../shared/reference/github-graphql/schema.graphql), so a query the fake accepts
is also one GitHub would accept.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    GraphQLError,
    GraphQLSchema,
    build_schema,
    execute_sync,
    parse,
    validate,
)
from graphql.language import OperationDefinitionNode, SelectionSetNode
from graphql.utilities import value_from_ast_untyped

from issues_sts.sandbox.corpus import Corpus
from issues_sts.sandbox.github.graphql_nodes import RepoNode
from issues_sts.sandbox.github.http_types import Request, Response
from issues_sts.sandbox.github.settings import FakeSettings

OWN_SCHEMA = Path(__file__).with_name("schema.graphql")
REAL_SCHEMA_IN_SHARED = Path("reference") / "github-graphql" / "schema.graphql"


@functools.lru_cache(maxsize=4)
def load_schema(path: str, trusted: bool) -> GraphQLSchema:
    """Build a schema once per process; GitHub's SDL is trusted (assume_valid_sdl) and large."""
    schema = build_schema(
        Path(path).read_text(encoding="utf-8"), assume_valid_sdl=trusted, assume_valid=trusted
    )
    for named in schema.type_map.values():
        if hasattr(named, "resolve_type"):
            named.resolve_type = _type_of  # type: ignore[union-attr]
    return schema


def _type_of(value: Any, info: Any, abstract: Any) -> str:
    return str(value["typename"] if isinstance(value, dict) else value.typename)


def real_schema_path(settings: FakeSettings) -> Path | None:
    """`settings.schema_path`, else GitHub's SDL in ../shared (or $ISSUES_STS_SHARED), if
    present."""
    if settings.schema_path:
        path = Path(settings.schema_path)
    else:
        shared = (
            os.environ.get("ISSUES_STS_SHARED")
            or Path(__file__).resolve().parents[2].parent / "shared"
        )
        path = Path(shared) / REAL_SCHEMA_IN_SHARED
    return path if path.is_file() else None


class GraphqlApi:
    def __init__(self, corpus: Corpus, settings: FakeSettings) -> None:
        self.corpus = corpus
        self.settings = settings
        self.schema = load_schema(str(OWN_SCHEMA), False)
        real = real_schema_path(settings) if settings.graphql_schema_check else None
        self.real_schema = load_schema(str(real), True) if real else None

    def handle(self, request: Request, rate: Callable[[int], dict[str, str]]) -> Response:
        """Answer one POST; `rate(cost)` gives the x-ratelimit-* headers as of after this query."""
        try:
            payload = json.loads(request.body or b"{}")
            query, variables = payload["query"], payload.get("variables") or {}
            document = parse(query)
        except (ValueError, KeyError, TypeError) as exc:
            return _errors([{"message": f"Problems parsing JSON: {exc}"}], status=400)
        except GraphQLError as exc:
            return _errors([_format(exc)])
        problems = validate(self.real_schema, document) if self.real_schema else []
        problems = problems or validate(self.schema, document)
        if problems:
            return _errors([_format(p) for p in problems])
        requests, nodes = query_size(document, variables)
        cost = max(1, round(requests / 100))
        limit = self.settings.resource_node_limit
        if limit is not None and nodes > limit:
            # GitHub (since 2025-09): too heavy a query is refused, and still costs a point
            message = (
                f"This query requests up to {nodes} nodes, which exceeds the resources this "
                "request may use. Ask for fewer items per page."
            )
            return Response(
                200,
                {
                    "data": None,
                    "errors": [{"type": "RESOURCE_LIMITS_EXCEEDED", "message": message}],
                },
                bucket="graphql",
                cost=1,
            )
        headers = rate(cost)
        root = {"repository": self._repository, "rateLimit": _rate_limit(headers, cost)}
        result = execute_sync(self.schema, document, root_value=root, variable_values=variables)
        if not self.settings.graphql_full_ids:
            _blank(result.data, "fullDatabaseId")
        body: dict[str, Any] = {"data": result.data}
        if result.errors:
            body["errors"] = [_format(e) for e in result.errors]
        return Response(200, body, bucket="graphql", cost=cost)

    def _repository(self, info: Any, owner: str, name: str, followRenames: bool = True) -> Any:
        full = f"{owner}/{name}"
        repo = self.corpus.find(full) or (self.corpus.renamed(full) if followRenames else None)
        if repo is None:
            from issues_sts.sandbox.github.graphql_nodes import NotFound

            raise NotFound(f"Could not resolve to a Repository with the name '{full}'.")
        return RepoNode(self.corpus, repo)


def _blank(value: Any, key: str) -> None:
    """Set every `key` in a nested answer to null."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k == key:
                value[k] = None
            else:
                _blank(v, key)
    elif isinstance(value, list):
        for v in value:
            _blank(v, key)


def _rate_limit(headers: dict[str, str], cost: int) -> Callable[..., dict[str, Any]]:
    def resolve(info: Any, dryRun: bool = False) -> dict[str, Any]:
        import time

        reset = int(headers["x-ratelimit-reset"])
        return {
            "cost": cost,
            "limit": int(headers["x-ratelimit-limit"]),
            "nodeCount": 0,
            "remaining": int(headers["x-ratelimit-remaining"]),
            "used": int(headers["x-ratelimit-used"]),
            "resetAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(reset)),
        }

    return resolve


def _errors(errors: list[dict[str, Any]], status: int = 200) -> Response:
    return Response(status, {"errors": errors}, bucket="graphql", cost=0)


def _format(error: GraphQLError) -> dict[str, Any]:
    formatted: dict[str, Any] = {}
    original = error.original_error if isinstance(error.original_error, GraphQLError) else error
    kind = getattr(original, "error_type", None)
    if kind:
        formatted["type"] = kind
    formatted.update({k: v for k, v in error.formatted.items() if k != "extensions"})
    return formatted


def query_cost(document: DocumentNode, variables: dict[str, Any]) -> int:
    """GitHub's rule: requests needed to fill every connection (parents x first), / 100, min 1."""
    return max(1, round(query_size(document, variables)[0] / 100))


def query_size(document: DocumentNode, variables: dict[str, Any]) -> tuple[int, int]:
    """(requests, nodes): the requests GitHub needs to fill every connection (one per parent)
    and the nodes the query may return (the sum over connections of parents x first)."""
    requests = nodes = 0

    def walk(selection: SelectionSetNode | None, parents: int) -> None:
        nonlocal requests, nodes
        for node in selection.selections if selection else ():
            if isinstance(node, FieldNode):
                size = _first_arg(node, variables)
                if size is not None:
                    requests += parents
                    nodes += parents * max(size, 1)
                    walk(node.selection_set, parents * max(size, 1))
                else:
                    walk(node.selection_set, parents)
            else:
                walk(getattr(node, "selection_set", None), parents)

    for definition in document.definitions:
        if isinstance(definition, OperationDefinitionNode):
            walk(definition.selection_set, 1)
    return requests, nodes


def _first_arg(node: FieldNode, variables: dict[str, Any]) -> int | None:
    for argument in node.arguments or ():
        if argument.name.value in ("first", "last"):
            value = value_from_ast_untyped(argument.value, variables)  # type: ignore[arg-type]
            return int(value) if isinstance(value, int) else None
    return None
