"""Moved to `issues_sts.evidence` (issue 24). Kept only for `store.py`'s `repo_counts`, which
imports these two names from here; delete this module once the store takes its predicates
from its caller (issue 24, item 2: the store/ package)."""

from __future__ import annotations

from issues_sts.evidence import labels_say_duplicate, says_duplicate

__all__ = ["labels_say_duplicate", "says_duplicate"]
