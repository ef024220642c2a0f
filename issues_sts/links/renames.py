"""Renamed repositories as store facts: old `owner/name` -> where the repository lives now.

Old comments link to a repository's earlier names (`mozilla/rust` for `rust-lang/rust`);
GitHub redirects them, so a link stage that compared names literally would call those
targets missing. The store's `repos` table is where renames live: the crawler records the
`current_name` GitHub reports for each requested repository and the names the duplicate
wording links to that GitHub redirects to it (`crawl.resolve.OldNameChain`), an archive loader
records its repository's known old names (`record_renames`), and `issues-sts build --alias
old=new` / `issues-sts links extract --alias old=new` add more for one run (`parse_aliases`).
"""

from __future__ import annotations

from issues_sts.errors import ConfigError
from issues_sts.store import RENAMED, Store

Aliases = tuple[tuple[str, str], ...]


def aliases_from_store(store: Store) -> Aliases:
    """Every `repos.repo` whose `current_name` differs (case-insensitively), sorted."""
    return store.renamed_repos()


def record_renames(store: Store, renames: Aliases) -> None:
    """Store `old -> new` renames as facts (`repos.current_name`, status "renamed")."""
    for old, new in renames:
        store.upsert_repo(old, current_name=new, status=RENAMED)


def merge_aliases(given: Aliases, known: Aliases) -> Aliases:
    """The configured renames plus the store's; the configured one wins for the same old name."""
    seen = {old.lower() for old, _ in given}
    return given + tuple((old, new) for old, new in known if old.lower() not in seen)


def parse_aliases(values: list[str] | tuple[str, ...]) -> Aliases:
    """`["old-owner/old=owner/name", ...]` -> pairs; a malformed one is a one-line ConfigError."""
    pairs = []
    for value in values:
        old, sep, new = (part.strip() for part in value.partition("="))
        if (
            not sep
            or old.count("/") != 1
            or new.count("/") != 1
            or "" in (*old.split("/"), *new.split("/"))
        ):
            raise ConfigError(
                f"bad --alias {value!r}", hint="write it as old-owner/old-name=owner/name"
            )
        pairs.append((old, new))
    return tuple(pairs)
