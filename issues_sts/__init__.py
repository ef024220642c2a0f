"""issues-sts: the GitHub Issues Similarity dataset pipeline (crawl, links, build, push)."""

from __future__ import annotations

__version__ = "0.1.0"
