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

The per-part API, for a caller that reads the store's parts itself (the build reads each part
once for both the links and its own scan):

    cfg = link_config(store, cfg)                       # the store's renames added
    with ThreadReaders(cfg) as readers:
        for part in store.parts():
            issues = store.issues_frame(repo=part[0], span=part[1:])
            comments = store.comments_frame(repo=part[0], columns=THREAD_COMMENT_COLUMNS, ...)
            links, counters, _ = part_links(store, part, cfg, issues, comments, readers)
    table = finish_links(store, all_links, all_counters)  # facts, exclusions, clusters

`build_links(store, cfg)` is exactly that loop. Callers outside the stage import these names
from `issues_sts.links`, never from its modules (`tests/test_layering.py`).
"""

from __future__ import annotations

from issues_sts.links.extract import extract_thread, extract_thread_links
from issues_sts.links.model import DuplicateLink, LinkConfig, Signal, Thread
from issues_sts.links.renames import RENAMED, aliases_from_store, merge_aliases, parse_aliases
from issues_sts.links.stage import (
    THREAD_COMMENT_COLUMNS,
    LinkTable,
    PartLinks,
    ThreadReaders,
    build_links,
    finish_links,
    link_config,
    part_links,
)

__all__ = [
    "RENAMED",
    "THREAD_COMMENT_COLUMNS",
    "DuplicateLink",
    "LinkConfig",
    "LinkTable",
    "PartLinks",
    "Signal",
    "Thread",
    "ThreadReaders",
    "aliases_from_store",
    "build_links",
    "extract_thread",
    "extract_thread_links",
    "finish_links",
    "link_config",
    "merge_aliases",
    "parse_aliases",
    "part_links",
]
