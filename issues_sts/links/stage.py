"""The link stage's runner: crawl store -> threads -> links -> store facts -> clusters.

`build_links(store, cfg)` reads the store once, a part at a time (`LinkConsumer` in a pass of
`issues_sts.passes`, which the build shares with its own reading), builds a `Thread` per issue
that can carry evidence, calls the pure `extract_thread` on each, then applies what only the
store knows: transferred targets follow their redirect, pull requests and targets missing from
the store are excluded (kept and counted), and usable links are grouped into clusters."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, ClassVar

import polars as pl

from issues_sts.evidence.vocabulary import (
    BARE_POINTER_REGEX,
    CUE_REGEX,
    DUPLICATE_STATE_REASON,
    REOPEN_REGEX,
)
from issues_sts.links.clusters import clusters
from issues_sts.links.extract import extract_thread
from issues_sts.links.history import about, read_history
from issues_sts.links.migration import map_old_tickets
from issues_sts.links.model import DuplicateLink, Event, LinkConfig, Post, Thread
from issues_sts.links.renames import aliases_from_store, merge_aliases
from issues_sts.links.resolve import StoreIndex, apply_store_facts
from issues_sts.links.scoring import is_duplicate_label
from issues_sts.passes import PartFrames, run_pass
from issues_sts.store import Store

LINKS_FILE = "links.parquet"
COUNTERS_FILE = "link_counters.json"

LINK_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "repo": pl.Utf8,
    "number": pl.Int64,
    "target_repo": pl.Utf8,
    "target_number": pl.Int64,
    "target_kind": pl.Utf8,
    "signal": pl.Utf8,
    "signals": pl.List(pl.Utf8),
    "confidence": pl.Float64,
    "evidence_url": pl.Utf8,
    "evidence_urls": pl.List(pl.Utf8),
    "author": pl.Utf8,
    "author_association": pl.Utf8,
    "created_at": pl.Utf8,
    "hedged": pl.Boolean,
    "stated_target_repo": pl.Utf8,
    "stated_target_number": pl.Int64,
    "usable": pl.Boolean,
    "excluded_reason": pl.Utf8,
    "cluster_id": pl.Int64,
    "root_repo": pl.Utf8,
    "root_number": pl.Int64,
}
CLUSTER_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "repo": pl.Utf8,
    "number": pl.Int64,
    "cluster_id": pl.Int64,
    "root_repo": pl.Utf8,
    "root_number": pl.Int64,
}


@dataclass(frozen=True)
class LinkTable:
    """The stage's result: `links` (one row per candidate), `clusters`, `counters`."""

    links: pl.DataFrame
    clusters: pl.DataFrame
    counters: dict[str, int]

    def usable(self) -> pl.DataFrame:
        return self.links.filter(pl.col("usable"))

    def write(self, out_dir: Path | str) -> Path:
        """Write `out_dir/links.parquet` (rows sorted, so equal inputs give equal bytes)."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        path = out / LINKS_FILE
        self.links.write_parquet(path, compression="zstd", statistics=False)
        return path

    def write_counters(self, out_dir: Path | str) -> Path:
        path = Path(out_dir) / COUNTERS_FILE
        path.write_text(json.dumps(self.counters, indent=2, sort_keys=True) + "\n")
        return path


# -- reading the store -------------------------------------------------------------
POST_COLUMNS = (
    "repo",
    "number",
    "user_login",
    "author_association",
    "body",
    "created_at",
    "html_url",
)


# What a pass over the store reads of every comment for the link stage (`LinkConsumer`), instead
# of `POST_COLUMNS`: the posting details then come by id, for the threads read only.
DETAIL_COLUMNS = ("user_login", "author_association", "created_at", "html_url")
THREAD_COMMENT_COLUMNS = ("id", "repo", "number", "body")


def _posts_by_issue(
    store: Store,
    cued_bodies: pl.DataFrame,
    flagged: pl.DataFrame,
    repo: str | None = None,
    span: tuple[int, int] | None = None,
    comments: pl.DataFrame | None = None,
) -> dict[tuple[str, int], list[Post]]:
    """Every comment of the threads where a cue word appears (in a comment or the body), or
    that GitHub calls duplicates (`flagged`: a label, `state_reason`, an event): the replies
    without one ("No, different bug.", "Yes.", "Please see #N") still decide what it meant.
    With `repo` (and `span`), only that repository's comments (in that range) are read;
    `comments` (those, with `POST_COLUMNS`), when the caller has read them already;
    `cued_bodies`: (repo, number) of the issues whose body has a cue word."""
    if comments is None:
        comments = store.comments_frame(repo=repo, columns=POST_COLUMNS, span=span)
    # each comment screened once, vectorised: the reader skips the comments without a cue word
    comments = comments.with_columns(
        (pl.col("body").str.contains(CUE_REGEX) | pl.col("body").str.contains(BARE_POINTER_REGEX))
        .fill_null(False)
        .alias("_cued")
    )
    cued = pl.concat(
        [
            comments.filter(pl.col("_cued")).select("repo", "number"),
            cued_bodies.select("repo", "number"),
            flagged.select("repo", "number"),
        ]
    ).unique()
    frame = comments.join(cued, on=["repo", "number"], how="semi")
    if DETAIL_COLUMNS[0] not in frame.columns:  # read thin: the rest by id
        details = store.comment_details(frame["id"])
        frame = frame.join(details, on="id", how="left", maintain_order="left")
    posts: dict[tuple[str, int], list[Post]] = {}
    for repo_, number, login, assoc, body, created, url, may_cue in frame.select(
        "repo",
        "number",
        "user_login",
        "author_association",
        "body",
        "created_at",
        "html_url",
        "_cued",
    ).iter_rows():
        posts.setdefault((repo_, number), []).append(
            Post("comment", login, assoc, body or "", created or "", url or "", may_cue)
        )
    return posts


_TIMELINE_EVENTS = "duplicate|^labeled$|^unlabeled$|^closed$|^reopened$"
_MARKS = ("marked_as_duplicate", "unmarked_as_duplicate")


def _event(row: dict[str, Any]) -> Event:
    key = str(row["event_key"])
    return Event(
        row["event"],
        row["actor"],
        row["created_at"] or "",
        row["canonical_repo"],
        row["canonical_number"],
        row["source"],
        f"#event-{key}" if key.isdigit() else "",
        row.get("actor_type"),
        row.get("label"),
        row.get("state_reason"),
        row.get("duplicate_repo"),
        row.get("duplicate_number"),
    )


def repo_names(repo: str, cfg: LinkConfig) -> frozenset[str]:
    """The lower-case names a repository goes by (the store's, and its renames either way)."""
    names = {repo.lower()}
    for old, new in cfg.repo_aliases:
        if repo.lower() in (old.lower(), new.lower()):
            names |= {old.lower(), new.lower()}
    return frozenset(names)


def _events_by_issue(
    store: Store,
    cfg: LinkConfig,
    repo: str | None = None,
    span: tuple[int, int] | None = None,
) -> dict[tuple[str, int], list[Event]]:
    """Each issue's timeline events that bear on duplicates, read with their direction: a mark
    shown on its canonical's timeline belongs to the issue it marked (which may lie in another
    part: those are asked by number)."""
    frame = store.events_frame(repo=repo, span=span).filter(
        pl.col("event").str.to_lowercase().str.contains(_TIMELINE_EVENTS)
    )
    events: dict[tuple[str, int], dict[str, Event]] = {}
    names: dict[str, frozenset[str]] = {}

    def add(owner: str, number: int, row: dict[str, Any]) -> None:
        events.setdefault((owner, number), {}).setdefault(str(row["event_key"]), _event(row))

    for row in frame.iter_rows(named=True):
        own = names.setdefault(row["repo"], repo_names(row["repo"], cfg))
        if about(_event(row), own, row["number"]):
            add(row["repo"], row["number"], row)
    stored = [repo] if repo is not None else store.repo_names()
    for owner in stored:
        own = names.setdefault(owner, repo_names(owner, cfg))
        for row in store.marks_about(own, span).iter_rows(named=True):
            add(owner, row["duplicate_number"], row)  # its own copy, when stored, came first
    return {
        key: sorted(found.values(), key=lambda e: e.created_at) for key, found in events.items()
    }


def _dup_events(events: list[Event], says_label: Callable[[str], bool]) -> bool:
    """Events that make a thread worth reading on their own: marks, duplicate labels."""
    return any(e.event in _MARKS or (e.label and says_label(e.label)) for e in events)


def iter_threads(
    store: Store,
    cfg: LinkConfig,
    issues: pl.DataFrame,
    *,
    repo: str | None = None,
    span: tuple[int, int] | None = None,
    comments: pl.DataFrame | None = None,
) -> Iterator[Thread]:
    """Threads that can carry evidence: a cue word in the body or a comment, a duplicate
    event, label or state_reason. Their posts are only the ones that can carry a claim.
    With `repo` (and `span`), `issues` are that repository's (in that range of numbers) and
    only its comments and events are read (`comments`: already read, see `_posts_by_issue`)."""
    all_events = _events_by_issue(store, cfg, repo, span)
    label_says: dict[str, bool] = {}  # a store has few distinct labels: ask once per name

    def says(labels: list[str] | tuple[str, ...] | None) -> bool:
        for name in labels or ():
            known = label_says.get(name)
            if known is None:
                known = label_says[name] = is_duplicate_label(name, cfg)
            if known:
                return True
        return False

    def says_label(name: str) -> bool:
        return says((name,))

    # closes alone do not make a thread worth reading; they qualify one read for another reason
    events = {k: v for k, v in all_events.items() if _dup_events(v, says_label)}

    said = [
        {"repo": repo_, "number": number}
        for repo_, number, reason, labels in issues.select(
            "repo", "number", "state_reason", "labels"
        ).iter_rows()
        if (reason or "").lower() == DUPLICATE_STATE_REASON or says(labels)
    ]
    said += [{"repo": repo_, "number": number} for repo_, number in events]
    # the same screen as the comments', vectorised (Python's `re` takes ~1 ms per long body)
    closed_issue = (pl.col("state") == "closed") & ~pl.col("is_pull_request").fill_null(False)
    cued_frame = issues.filter(
        pl.col("body").str.contains(CUE_REGEX).fill_null(False)
        # an issue that is only an earlier one's link (body or title), or a request to reopen it
        | (
            closed_issue
            & (
                pl.col("body").str.contains(BARE_POINTER_REGEX).fill_null(False)
                | pl.col("title").str.contains(BARE_POINTER_REGEX).fill_null(False)
                | pl.col("title").str.contains(REOPEN_REGEX).fill_null(False)
                | pl.col("body").str.contains(REOPEN_REGEX).fill_null(False)
            )
        )
    ).select("repo", "number")
    posts = _posts_by_issue(
        store,
        cued_frame,
        pl.DataFrame(said, schema={"repo": pl.Utf8, "number": pl.Int64}),
        repo,
        span,
        comments,
    )
    cued_bodies = set(cued_frame.iter_rows())
    # a closed issue whose title alone may say what it duplicates ("Duplicate of <url>",
    # `pointers.title_statement`): read even when nothing else in it could
    cued_titles = set(
        issues.filter(closed_issue & pl.col("title").str.contains(CUE_REGEX).fill_null(False))
        .select("repo", "number")
        .iter_rows()
    )
    # only issues that can become a thread (the test below) are turned into Python rows
    candidates = (
        set(posts)
        | cued_bodies
        | cued_titles
        | set(events)
        | {(r["repo"], r["number"]) for r in said}
    )
    live = issues.filter(pl.col("tombstone").is_null())
    live = live.filter(
        pl.Series(
            [k in candidates for k in zip(live["repo"], live["number"], strict=True)],
            dtype=pl.Boolean,
        )
    )
    for row in live.iter_rows(named=True):
        key = (row["repo"], row["number"])
        body = row["body"] or ""
        thread_posts = list(posts.get(key, ()))
        labels = tuple(row["labels"] or ())
        flagged = (row["state_reason"] or "").lower() == DUPLICATE_STATE_REASON or says(labels)
        body_post = [
            Post(
                "body",
                row["user_login"],
                row["author_association"],
                body,
                row["created_at"] or "",
                row["html_url"] or "",
                key in cued_bodies,
            )
        ]
        if not (
            thread_posts or key in cued_bodies or key in cued_titles or key in events or flagged
        ):
            continue
        html = row["html_url"] or ""
        timeline = all_events.get(key, [])
        history = read_history(timeline, labels, row["closed_by"], says_label)
        yield Thread(
            repo=row["repo"],
            number=row["number"],
            is_pull_request=bool(row["is_pull_request"]),
            author=row["user_login"],
            state=row["state"],
            state_reason=row["state_reason"],
            labels=history.labels,
            created_at=row["created_at"] or "",
            closed_at=row["closed_at"],
            closed_by=history.closed_by,
            html_url=html,
            posts=tuple(body_post + thread_posts),
            events=tuple(replace(e, url=html + e.url) for e in timeline),
            withdrawn_at=history.withdrawn_at,
            title=row.get("title") or "",
        )


def store_index(store: Store, links: list[DuplicateLink]) -> StoreIndex:
    """The store facts about the issues these links name (and where their redirects lead):
    a handful of rows instead of one Python object per stored issue. A repository crawled
    under a name it has since left (repos.yaml's tiangolo/fastapi, now fastapi/fastapi) is
    also found under its current name, which GraphQL and new comments use."""
    keys = store.issue_keys_frame()
    stored = set(keys["repo"].str.to_lowercase().unique().to_list())  # every crawled repository
    moved = {
        new.lower(): old.lower()
        for old, new in aliases_from_store(store)
        if old.lower() in stored and new.lower() not in stored
    }
    redirects = store.redirects_frame()
    hops = {(r.lower(), n): (to_r.lower(), to_n) for r, n, to_r, to_n in redirects.iter_rows()}
    ends = {(lk.repo.lower(), lk.number) for lk in links} | {
        (lk.target_repo.lower(), lk.target_number) for lk in links
    }
    ends |= {(moved[r], n) for r, n in ends if r in moved}
    frontier = set(ends)
    while frontier:  # redirect chains (loops end: a key is added once)
        frontier = {hops[k] for k in frontier if k in hops} - ends
        ends |= frontier
    wanted = pl.DataFrame(
        {"_key": [r for r, _ in ends], "number": [n for _, n in ends]},
        schema={"_key": pl.Utf8, "number": pl.Int64},
    )
    subset = (
        keys.with_columns(pl.col("repo").str.to_lowercase().alias("_key"))
        .join(wanted, on=["_key", "number"], how="semi")
        .drop("_key")
    )
    index = StoreIndex(subset, redirects)
    index.repos = stored | set(moved)
    for (repo, number), known in list(index.items.items()):
        for new, old in moved.items():
            if repo == old:
                index.items[(new, number)] = known  # the store's spelling comes back from follow()
    return index


# -- the stage as a consumer of one pass over the store ------------------------------------
PartLinks = tuple[list[DuplicateLink], Counter[str]]  # one part's links and counters


@dataclass(frozen=True)
class LinkConsumer:
    """The link stage as a consumer of `issues_sts.passes.run_pass`: `per_part` reads a part's
    threads (every issue column, each comment's body; who posted a comment, when and where is
    read by id for the threads read only), `finish` applies the store facts and makes the
    clusters. `cfg` holds the store's renames (`for_store`)."""

    cfg: LinkConfig
    issue_columns: ClassVar[tuple[str, ...] | None] = None
    comment_columns: ClassVar[tuple[str, ...]] = THREAD_COMMENT_COLUMNS

    @classmethod
    def for_store(cls, store: Store, cfg: LinkConfig | None = None) -> LinkConsumer:
        """`cfg` with the renames the store knows added to the user's aliases (store facts)."""
        cfg = cfg or LinkConfig()
        aliases = merge_aliases(cfg.repo_aliases, aliases_from_store(store))
        return cls(cfg.model_copy(update={"repo_aliases": aliases}))

    def per_part(self, frames: PartFrames) -> PartLinks:
        counters: Counter[str] = Counter()
        links: list[DuplicateLink] = []
        threads = iter_threads(
            frames.store,
            self.cfg,
            frames.issues,
            repo=frames.repo,
            span=frames.span,
            comments=frames.comments.select(self.comment_columns),
        )
        for thread in threads:
            reading = extract_thread(thread, self.cfg)
            counters["threads_read"] += 1
            counters.update(reading.counters)
            links.extend(reading.links)
        return links, counters

    def finish(self, store: Store, results: list[PartLinks]) -> LinkTable:
        """The table of the links every part gave (in the parts' order): store facts,
        exclusions, counters, clusters. Old tracker numbers are mapped first: the map needs
        every issue of a migrated repository, which no one part holds."""
        counters: Counter[str] = Counter()
        found: list[DuplicateLink] = []
        for links, part_counters in results:
            counters.update(part_counters)
            found.extend(links)
        found = map_old_tickets(store, found, counters)
        links, stated = apply_store_facts(found, store_index(store, found), counters)
        _count_links(links, counters)
        edges = [
            ((lk.repo, lk.number), (lk.target_repo, lk.target_number))
            for lk in links
            if lk.excluded_reason is None
        ]
        cluster_of = clusters(edges)
        counters["clusters"] = len({cid for cid, _ in cluster_of.values()})
        counters["issues_in_clusters"] = len(cluster_of)
        return LinkTable(
            _frame(links, stated, cluster_of),
            _cluster_frame(cluster_of),
            dict(sorted((k, v) for k, v in counters.items() if v)),
        )


# -- the runner ----------------------------------------------------------------------
def _frame(
    links: list[DuplicateLink],
    stated: list[tuple[str, int]],
    cluster_of: dict[tuple[str, int], tuple[int, tuple[str, int]]],
) -> pl.DataFrame:
    # built a column at a time: a dict per row (and `asdict`'s deep copy) took seconds on
    # stores with a hundred thousand candidate links
    cols: dict[str, list[Any]] = {name: [] for name in LINK_SCHEMA}
    own = [f.name for f in fields(DuplicateLink) if f.name not in ("signals", "evidence_urls")]
    for link, (s_repo, s_number) in zip(links, stated, strict=True):
        for name in own:
            cols[name].append(getattr(link, name))
        cols["signals"].append(list(link.signals))
        cols["evidence_urls"].append(list(link.evidence_urls))
        cols["stated_target_repo"].append(s_repo)
        cols["stated_target_number"].append(s_number)
        cols["usable"].append(link.excluded_reason is None)
        cid, root = cluster_of.get((link.repo, link.number), (None, (None, None)))
        cols["cluster_id"].append(cid)
        cols["root_repo"].append(root[0])
        cols["root_number"].append(root[1])
    frame = pl.DataFrame(cols, schema=LINK_SCHEMA)
    return frame.sort("repo", "number", "target_repo", "target_number")


def _cluster_frame(cluster_of: dict[tuple[str, int], tuple[int, tuple[str, int]]]) -> pl.DataFrame:
    rows = [
        (repo, number, cid, root[0], root[1])
        for (repo, number), (cid, root) in sorted(cluster_of.items())
    ]
    return pl.DataFrame(rows, schema=CLUSTER_SCHEMA, orient="row")


def _count_links(links: list[DuplicateLink], counters: Counter[str]) -> None:
    for link in links:
        counters["links_total"] += 1
        counters[f"links_by_signal:{link.signal}"] += 1
        if link.excluded_reason is None:
            counters["usable_links"] += 1
            counters[f"usable_by_signal:{link.signal}"] += 1
        else:
            counters[f"excluded:{link.excluded_reason}"] += 1


def build_links(store: Store, cfg: LinkConfig | None = None) -> LinkTable:
    """Every duplicate link the store supports, with exclusions, counters and clusters: the
    link stage alone in a pass over the store's parts (memory bounded by a part whatever the
    store's size; the parts come in the frames' order, so the links do too)."""
    (table,) = run_pass(store, [LinkConsumer.for_store(store, cfg)])
    assert isinstance(table, LinkTable)
    return table
