"""A repository's crawl mode, and converting its rows when a crawl comes in the other mode.

What a crawl stores depends on its mode: with a token it reads threads over GraphQL (never
pull requests' comments; events that name their canonical; closed issues' timelines), without
one it lists comments repo-wide over REST (pull requests' included) and asks REST timelines
(no canonical) of a few issues. A crawl resumed in the other mode would keep the first mode's
shapes beside its own. So the mode is stored with the repository, and a crawl in the other
mode first drops, in one transaction, every row and checkpoint that depends on it: the
comments, events and gaps, what the evidence named (tombstones, redirects and the issues they
led to outside the crawl), and the checkpoints of comments, threads, timelines and checks. The
issue list, the same in both modes, is kept with its checkpoint; the rest is read again in
the new mode, as a fresh crawl reads it.
"""

from __future__ import annotations

import sqlite3

MODES = ("graphql", "rest")
_PER_MODE_CHECKPOINTS = (
    "resource='comments' OR resource LIKE 'thread:%' OR resource LIKE 'timeline:%' "
    "OR resource LIKE 'verified:%'"
)


def stored_mode(conn: sqlite3.Connection, repo: str) -> str | None:
    """The mode `repo`'s rows were stored in; for a store written before the mode was kept,
    what its checkpoints say (a REST comment listing, or GraphQL threads); None when nothing
    that depends on a mode is stored."""
    row = conn.execute("SELECT mode FROM repos WHERE repo=?", (repo,)).fetchone()
    if row is not None and row[0] in MODES:
        return str(row[0])
    found = conn.execute(
        "SELECT MAX(resource='comments'), MAX(resource LIKE 'thread:%') FROM checkpoints "
        "WHERE repo=?",
        (repo,),
    ).fetchone()
    if found and found[0]:
        return "rest"
    if found and found[1]:
        return "graphql"
    return None


def switch_mode(conn: sqlite3.Connection, repo: str, mode: str) -> None:
    """Inside the caller's transaction: drop `repo`'s rows and checkpoints that depend on the
    mode, and record `mode` (see the module docstring)."""
    if mode not in MODES:
        raise ValueError(f"unknown crawl mode {mode!r}")
    for table in ("comments", "events", "gaps"):
        conn.execute(f"DELETE FROM {table} WHERE repo=?", (repo,))
    conn.execute(f"DELETE FROM checkpoints WHERE repo=? AND ({_PER_MODE_CHECKPOINTS})", (repo,))
    conn.execute(
        "DELETE FROM issues WHERE EXISTS (SELECT 1 FROM redirects r WHERE r.repo=? AND "
        "r.to_repo=issues.repo AND r.to_number=issues.number) AND lower(issues.repo) NOT IN "
        "(SELECT lower(repo) FROM repos UNION SELECT lower(current_name) FROM repos "
        "WHERE current_name IS NOT NULL)",
        (repo,),
    )
    conn.execute("DELETE FROM redirects WHERE repo=?", (repo,))
    conn.execute("DELETE FROM issues WHERE repo=? AND tombstone IS NOT NULL", (repo,))
    conn.execute("UPDATE repos SET mode=? WHERE repo=?", (mode, repo))


def record_mode(conn: sqlite3.Connection, repo: str, mode: str) -> None:
    conn.execute("UPDATE repos SET mode=? WHERE repo=?", (mode, repo))
