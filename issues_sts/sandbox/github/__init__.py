"""A fake GitHub: a real loopback HTTP server that serves a corpus the way GitHub does.

    settings.py     FakeSettings: limits, faults, caps (GitHub's defaults)
    server.py       FakeGitHub: the HTTP server, auth, rate limits, ETags, faults, request log
    rest.py         REST routes; listing.py: filters, order, pages and Link headers
    ratelimit.py    primary/secondary buckets on the server clock; faults.py: seeded faults
    graphql_api.py  POST /graphql over schema.graphql (+ optional check against GitHub's SDL)

What it serves comes from `issues_sts.sandbox.worlds` as a `issues_sts.sandbox.corpus.Corpus`.
"""

from __future__ import annotations

from issues_sts.sandbox.corpus import Corpus, RepoData
from issues_sts.sandbox.github.server import FakeGitHub, RequestRecord
from issues_sts.sandbox.github.settings import FakeSettings

__all__ = ["Corpus", "FakeGitHub", "FakeSettings", "RepoData", "RequestRecord"]
