"""The crawl stage: GitHub issues, comments and duplicate evidence into the crawl store.

from issues_sts.crawl import CrawlConfig, run_crawl
summary = run_crawl(CrawlConfig(repos=("owner/name",), token=..., store=Path("data/store")))
"""

from __future__ import annotations

from issues_sts.crawl.config import CrawlConfig, CrawlSummary, RepoSummary
from issues_sts.crawl.pacing import PacingConfig
from issues_sts.crawl.plan import plan_crawl
from issues_sts.crawl.runner import run_crawl

__all__ = ["CrawlConfig", "CrawlSummary", "PacingConfig", "RepoSummary", "plan_crawl", "run_crawl"]
