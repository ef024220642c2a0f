"""The link stage: duplicate evidence in crawled threads -> trustworthy duplicate links.

    from issues_sts.links import LinkConfig, build_links
    table = build_links(Store.open("data/store"), LinkConfig())
    table.write("data/dataset")          # links.parquet

What counts as evidence (the vocabulary, what to ignore in a comment, the claim reader, what
replies say) is `issues_sts.evidence`, below this stage. Layout: `model` (threads, links,
the configuration), `scoring` (confidence from signals), `extract` (one thread -> links, pure:
the phases of `read/`, in order), `read/` (the reading rules by phase: posts, replies, pointers,
settle, canonical), `conventions` and `migration` (the trackers' own conventions), `resolve`
(store facts: transfers, pull requests, missing targets), `renames` (renamed repositories as
store facts), `clusters` (union-find), `stage` (the runner and its consumer). The link stage is
measured from outside, by `issues_sts.annotations`.

A caller that reads the store's parts for its own work too (the build) runs the stage as a
consumer of the same pass (`issues_sts.passes`), so each part is read once for both:

    links = LinkConsumer.for_store(store, cfg)          # the store's renames added to cfg's
    table, other = run_pass(store, [links, other_consumer])

`build_links(store, cfg)` is that pass with the link stage alone. Callers outside the stage
import these names from `issues_sts.links`, never from its modules (`tests/test_layering.py`).
"""

from __future__ import annotations

from issues_sts.links.extract import extract_thread, extract_thread_links
from issues_sts.links.model import DuplicateLink, LinkConfig, Signal, Thread
from issues_sts.links.renames import RENAMED
from issues_sts.links.stage import LinkConsumer, LinkTable, build_links

__all__ = [
    "RENAMED",
    "DuplicateLink",
    "LinkConfig",
    "LinkConsumer",
    "LinkTable",
    "Signal",
    "Thread",
    "build_links",
    "extract_thread",
    "extract_thread_links",
]
