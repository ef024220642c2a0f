"""The crawl store: one SQLite database (WAL mode) per crawl directory.

The crawler is the only writer; the link and dataset stages read through the
`*_frame()` methods, which return polars DataFrames with stable column names.
Every page the crawler fetches is written together with its checkpoint in one
transaction (`write_page`), so a crawl killed at any instant resumes exactly after
the last committed page: nothing lost, nothing stored twice (rows are upserts keyed
by GitHub's ids).

The package owns every SQL statement of the project and imports no stage:
- `schema`: the tables, their migration, opening a database;
- `codec`: how a REST object is stored in a `raw` column;
- `checkpoints`: where each resource of a crawl stands;
- `frames`: the tables read as polars frames (the Arrow reader);
- `status`: the per-repository counts of `issues-sts status`;
- `store`: the `Store`, which writes pages and answers the crawler's bookkeeping.
"""

from __future__ import annotations

from issues_sts.store.checkpoints import Checkpoint
from issues_sts.store.codec import pack_raw, unpack_raw
from issues_sts.store.frames import PART_ISSUES, Part
from issues_sts.store.schema import CRAWL_CONFIG, DB_NAME, RENAMED, SCHEMA_VERSION, utcnow
from issues_sts.store.status import DuplicateScreen
from issues_sts.store.store import Gap, Row, Store

__all__ = [
    "CRAWL_CONFIG",
    "DB_NAME",
    "PART_ISSUES",
    "RENAMED",
    "SCHEMA_VERSION",
    "Checkpoint",
    "DuplicateScreen",
    "Gap",
    "Part",
    "Row",
    "Store",
    "pack_raw",
    "unpack_raw",
    "utcnow",
]
