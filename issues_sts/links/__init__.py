"""The link stage: duplicate evidence in crawled threads -> trustworthy duplicate links.

    from issues_sts.links import LinkConfig, build_links
    table = build_links(Store.open("data/store"), LinkConfig())
    table.write("data/dataset")          # links.parquet

What counts as evidence (the vocabulary, what to ignore in a comment, the claim reader, what
replies say) is `issues_sts.evidence`, below this stage. Layout: `model` (threads, links,
the configuration), `scoring` (confidence from signals), `extract` (one thread -> links, pure),
`resolve` (store facts: transfers, pull requests, missing targets), `renames` (renamed
repositories as store facts), `clusters` (union-find), `stage` (the runner), `archive`
(the rust and onnxruntime issue archives as stores), `evaluate` (precision/recall on the
annotated DEV/TEST halves of every annotation set).
"""

from __future__ import annotations

from issues_sts.links.extract import extract_thread, extract_thread_links
from issues_sts.links.model import DuplicateLink, LinkConfig, Signal, Thread
from issues_sts.links.stage import LinkTable, build_links

__all__ = [
    "DuplicateLink",
    "LinkConfig",
    "LinkTable",
    "Signal",
    "Thread",
    "build_links",
    "extract_thread",
    "extract_thread_links",
]
