"""issues-sts: the GitHub Issues Similarity dataset pipeline (crawl, links, build, push)."""

from __future__ import annotations

import logging

# Library code logs; only the CLI's --log decides where it goes (never Python's stderr
# fallback, which would print a second copy of every one-line error).
logging.getLogger("issues_sts").addHandler(logging.NullHandler())

__version__ = "0.1.0"
