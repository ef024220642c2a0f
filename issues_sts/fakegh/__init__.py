"""A fake GitHub: a real loopback HTTP server that serves a corpus the way GitHub does.

    corpus.py       RepoData / Corpus: raw REST objects per repository, plus ground truth
    settings.py     FakeSettings: limits, faults, caps (GitHub's defaults)
    server.py       FakeGitHub: the HTTP server, auth, rate limits, ETags, faults, request log
    rest.py         REST routes; listing.py: filters, order, pages and Link headers
    ratelimit.py    primary/secondary buckets on the server clock; faults.py: seeded faults
    graphql_api.py  POST /graphql over schema.graphql (+ optional check against GitHub's SDL)
    world*.py       the deterministic generator of realistic issue worlds
    rust.py         the rust-lang/rust archive loader
"""

from __future__ import annotations

from issues_sts.fakegh.corpus import Corpus, RepoData
from issues_sts.fakegh.server import FakeGitHub, RequestRecord
from issues_sts.fakegh.settings import FakeSettings
from issues_sts.fakegh.world import WorldConfig, generate_world, preset

__all__ = [
    "Corpus",
    "FakeGitHub",
    "FakeSettings",
    "RepoData",
    "RequestRecord",
    "WorldConfig",
    "generate_world",
    "preset",
]
