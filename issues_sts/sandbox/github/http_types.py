"""Plain request/response values passed between the HTTP plumbing and the API logic."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

DOCS = "https://docs.github.com/rest"


def _std_dumps(payload: Any) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


def _dumps() -> Callable[[Any], bytes]:
    try:  # orjson serialises pages of big issues ~10x faster; the output is the same compact JSON
        import orjson
    except ImportError:  # pragma: no cover - optional speed-up
        return _std_dumps
    return lambda payload: orjson.dumps(payload)


dumps = _dumps()


@dataclass(frozen=True)
class Request:
    method: str
    path: str  # without the /api/v3 prefix, without the query
    query: list[tuple[str, str]]
    headers: dict[str, str]  # lower-cased names
    body: bytes = b""
    raw_target: str = ""  # path+query exactly as received (for the log)


@dataclass
class Response:
    status: int
    payload: Any = None  # JSON-serialisable, or None for no body
    headers: dict[str, str] = field(default_factory=dict)
    bucket: str | None = "core"
    cost: int = 1

    def body(self) -> bytes:
        """The serialised payload (computed once: the ETag and the write both need it)."""
        if self.payload is None:
            return b""
        cached = self.__dict__.get("_body")
        if cached is None or cached[0] is not self.payload:
            cached = self.__dict__["_body"] = (self.payload, dumps(self.payload))
        return cached[1]


def error(status: int, message: str, docs: str = DOCS, **extra: Any) -> Response:
    payload = {"message": message, "documentation_url": docs, "status": str(status), **extra}
    return Response(status, payload)
