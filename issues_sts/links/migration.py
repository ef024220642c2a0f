"""Old tracker numbers in threads migrated to GitHub, mapped through the migration headers.

A migrated issue's copied words (its body, the comments the migration copied over) number
tickets the old tracker's way: "duplicate of #18" is ticket 18, which became another GitHub
issue (`evidence/migration.py` reads the headers). Two steps:

1. per thread (`copied_view`, pure): in the copied posts of a thread whose header names its
   old ticket, every "#N" (and "ticket N", a trac URL) is written as a reference to a repository
   no GitHub account can own, `old-ticket.<owner>/<name>#N`; every rule then reads it as an
   ordinary reference whose number is the old one. Posts written on GitHub since (their author is
   not the migration's account and they carry no copied-comment header) are read as today;
2. across the store (`map_old_tickets`, when the link stage finishes, so that every part's
   links are known): the old number goes through the repository's own map, built from the
   headers of all its issues (old ticket -> GitHub number). A number no header maps is excluded
   (`unmapped_old_ticket`, counted `dropped:unmapped_old_ticket`), never read as GitHub's.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

import polars as pl

from issues_sts.evidence import migration as headers
from issues_sts.links.model import DuplicateLink, Post, Signal, Thread
from issues_sts.store import Store

# GitHub account names hold letters, digits and hyphens only: no real repository has this owner
OLD_OWNER = "old-ticket."
_SHORT = re.compile(r"(?<![\w&#/])#(\d+)\b")
# words every header form contains one of: the store's bodies are screened with them first
_HEADER_WORDS = "(?i)" + "|".join(headers.HEADER_WORDS)


def old_repo(repo: str, project: str | None = None) -> str:
    """The pseudo-repository of `repo`'s old tickets; a JIRA project's keys ("WID-18") are their
    own ("old-ticket.owner/name:WID"; no repository name holds a colon)."""
    return OLD_OWNER + repo + (f":{project}" if project else "")


def _old_of(repo: str) -> tuple[str, str | None]:
    """(home repository, JIRA project or None) of an old-ticket pseudo-repository."""
    home, _, project = repo[len(OLD_OWNER) :].partition(":")
    return home, project or None


def _copied(post: Post, thread: Thread) -> bool:
    if post.kind == "body":
        return True
    return (bool(post.author) and post.author == thread.author) or headers.comment_was_migrated(
        post.body
    )


def copied_view(thread: Thread, counters: Counter[str]) -> Thread:
    """`thread` with its copied posts' old numbers written as old-ticket references (the
    thread itself when it is not a migrated one whose tickets were numbered the old way)."""
    body = thread.posts[0].body if thread.posts and thread.posts[0].kind == "body" else None
    if headers.old_number(body, thread.title) is None:
        return thread
    counters["migrated_threads_read"] += 1
    target = old_repo(thread.repo) + "#"
    posts = tuple(
        replace(
            post, body=_SHORT.sub(lambda m: target + m.group(1), headers.old_numbers(post.body))
        )
        if _copied(post, thread)
        else post
        for post in thread.posts
    )
    return replace(thread, posts=posts)


def ticket_map(
    store: Store, repo: str, counters: Counter[str], project: str | None = None
) -> dict[int, int]:
    """Old ticket number -> GitHub number, from the migration headers of `repo`'s issues (for a
    JIRA `project`, the headers naming that project's keys). An old number two issues claim is
    left out (counted): neither can be trusted."""
    issues = store.issues_frame(repo=repo, columns=("repo", "number", "title", "body"))
    issues = issues.filter(pl.col("body").str.contains(_HEADER_WORDS).fill_null(False))
    found: dict[int, set[int]] = {}
    for number, title, body in issues.select("number", "title", "body").iter_rows():
        key = headers.mapped_key(body, title)
        if key is not None and key[0] == project:
            found.setdefault(key[1], set()).add(number)
    counters["old_tickets_ambiguous"] += sum(len(v) > 1 for v in found.values())
    return {old: next(iter(new)) for old, new in found.items() if len(new) == 1}


def map_old_tickets(
    store: Store, links: list[DuplicateLink], counters: Counter[str]
) -> list[DuplicateLink]:
    """Every old-ticket target mapped to its GitHub issue; unmapped ones excluded and counted."""
    olds = {_old_of(lk.target_repo) for lk in links if lk.target_repo.startswith(OLD_OWNER)}
    maps = {
        (home, project): ticket_map(store, home, counters, project)
        for home, project in sorted(olds, key=lambda old: (old[0], old[1] or ""))
    }
    out: list[DuplicateLink] = []
    for link in links:
        if not link.target_repo.startswith(OLD_OWNER):
            out.append(link)
            continue
        home, project = _old_of(link.target_repo)
        number = maps[home, project].get(link.target_number)
        if number is None:
            counters["dropped:unmapped_old_ticket"] += 1
            out.append(replace(link, excluded_reason=link.excluded_reason or "unmapped_old_ticket"))
            continue
        if (home.lower(), number) == (link.repo.lower(), link.number):
            counters["dropped:self_link"] += 1
            continue
        counters["mapped_old_ticket"] += 1
        signals = (*link.signals, Signal.OLD_TICKET.value)
        out.append(replace(link, target_repo=home, target_number=number, signals=signals))
    return out
