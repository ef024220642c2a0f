"""Whether a crawl store holds every repository it was asked for, crawled to the end.

A dataset built from a store whose crawl stopped half-way looks like a smaller dataset, not
like a broken one: `build` refuses it (IncompleteStore, exit 3) unless `--allow-incomplete`,
and then the card and `stats.json` name what is missing. Any status but `ok` is incomplete
(pending, missing, and whatever else the crawler records: a crawl that lost data, say), and
so is a repository the crawl was asked for that the store never started.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from issues_sts.errors import IncompleteStore, StoreError
from issues_sts.links import RENAMED
from issues_sts.store import Store

NEVER_STARTED = "never started"
_SHOWN = 5  # repositories named in the error line; the rest are counted


@dataclass(frozen=True)
class MissingRepo:
    repo: str
    status: str  # the store's status, or NEVER_STARTED


def incomplete_repos(store: Store, *, strict: bool = True) -> list[MissingRepo]:
    """Every repository of `store` not crawled to the end, by name. Not `strict`: a damaged
    crawl-config.json leaves out the repositories never started instead of failing."""
    states = store.repo_states()
    known = {repo.lower() for repo in states}
    # a rename's row (`--alias`, remembered by the link stage) names an old name, not a crawl
    missing = [
        MissingRepo(repo, status)
        for repo, status in states.items()
        if status not in ("ok", RENAMED)
    ]
    try:
        asked = store.asked_repos()
    except StoreError:
        if strict:
            raise
        asked = ()
    missing += [MissingRepo(repo, NEVER_STARTED) for repo in asked if repo.lower() not in known]
    return sorted(missing, key=lambda m: m.repo.lower())


def check_complete(store: Store, *, allow_incomplete: bool) -> list[MissingRepo]:
    """What is missing; IncompleteStore when something is and the user did not allow it."""
    missing = incomplete_repos(store, strict=not allow_incomplete)
    if missing and not allow_incomplete:
        raise IncompleteStore(f"the crawl store {store.root} is incomplete: {describe(missing)}")
    return missing


def describe(missing: list[MissingRepo]) -> str:
    """`2 of the repositories are not complete: a/b (pending), c/d (never started)`."""
    shown = ", ".join(f"{m.repo} ({m.status})" for m in missing[:_SHOWN])
    more = f" and {len(missing) - _SHOWN} more" if len(missing) > _SHOWN else ""
    return f"{len(missing)} repositories not crawled to the end: {shown}{more}"


def as_json(missing: list[MissingRepo]) -> list[dict[str, str]]:
    return [asdict(m) for m in missing]
