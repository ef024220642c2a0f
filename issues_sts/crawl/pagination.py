"""GitHub's `Link` header: how the crawler moves from one page to the next.

Next links are followed exactly as given: GitHub may point them at
`/repositories/{id}/...`, with `page=` numbers or `after=` cursors. We never build a deep
`page=N` ourselves (GitHub answers 422 past a cap on big lists). The repository-wide lists
sorted by `updated` ask their next page as a first page `since` the last one's newest item
instead (`chains.ListChain`: an item updated meanwhile would shift numbered pages).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

_LINK = re.compile(r"<([^>]*)>\s*((?:;\s*[^;,]+)*)")
_PARAM = re.compile(r';\s*([A-Za-z0-9_-]+)\s*=\s*"?([^";]*)"?')


def parse_link_header(value: str | None) -> dict[str, str]:
    """`rel -> url` for every link in a `Link` header (empty for None or garbage)."""
    links: dict[str, str] = {}
    if not value:
        return links
    for match in _LINK.finditer(value):
        url, params = match.group(1).strip(), match.group(2)
        for name, param in _PARAM.findall(params):
            if name.lower() == "rel":
                for rel in param.split():
                    links.setdefault(rel.lower(), url)
    return links


def next_url(value: str | None) -> str | None:
    """The rel="next" link, or None on the last page."""
    return parse_link_header(value).get("next")


def last_page(value: str | None) -> int | None:
    """The page number of rel="last" when GitHub gives one (display only: for an ETA)."""
    last = parse_link_header(value).get("last")
    if not last:
        return None
    pages = parse_qs(urlsplit(last).query).get("page")
    return int(pages[0]) if pages and pages[0].isdigit() else None


def with_query(url: str, **params: str | int | None) -> str:
    """`url` with `params` added (None values dropped); used for first pages only."""
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    for key, value in params.items():
        if value is not None:
            query[key] = [str(value)]
    flat = [(k, v) for k, values in query.items() for v in values]
    return urlunsplit(
        (parts.scheme, parts.netloc, parts.path, urlencode(flat, safe=":,"), parts.fragment)
    )


def same_origin(url: str, base: str) -> bool:
    """Whether `url` points at the API we were configured with (never send the token elsewhere)."""
    a, b = urlsplit(url), urlsplit(base)
    return (a.scheme, a.netloc) == (b.scheme, b.netloc)
