"""The figures that drive the build's cost and the dataset's quality, measured the same way in a
real issue archive and in a generated world (`benchmarks.calibration` puts them side by side).

Both sides are read into the same records (`Item`, `Note`) and tallied by one `Tally`, so a
figure cannot mean one thing for real threads and another for generated ones. What a cue, a
reference, a bot, a duplicate label or a link is comes from the project's own code
(`evidence.vocabulary`'s screen and claims, `evidence.patterns.find_refs` on `evidence.text.clean`ed
text, `LinkConfig`'s bots, `links.extract.extract_thread`), never from a copy of it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from issues_sts.annotations.archives import archive_lines
from issues_sts.evidence import DUPLICATE_STATE_REASON, labels_say_duplicate, says_duplicate
from issues_sts.evidence.patterns import KEYWORD, SLASH, find_claims, find_refs
from issues_sts.evidence.text import clean
from issues_sts.evidence.vocabulary import screens
from issues_sts.links.extract import extract_thread, is_bot
from issues_sts.links.model import Event, LinkConfig, Post, Thread

INT32_MAX = 2**31 - 1
LINKS = LinkConfig()


@dataclass(frozen=True)
class Note:
    """A comment: what the figures and the link stage read of it."""

    id: int
    body: str
    login: str
    association: str | None
    created_at: str
    url: str
    bot: bool


@dataclass(frozen=True)
class Happening:
    """A timeline event; `canonical` where GraphQL names one (a duplicate event's target)."""

    id: int
    event: str
    actor: str
    created_at: str
    canonical: tuple[str, int] | None


@dataclass(frozen=True)
class Item:
    """An issue or pull request with its comments (and its events, where the source has them)."""

    repo: str
    number: int
    id: int
    is_pr: bool
    created_at: str
    author: str
    association: str | None
    body: str
    labels: tuple[str, ...]
    state: str
    state_reason: str | None
    closed_at: str | None
    closed_by: str | None
    url: str
    comments: tuple[Note, ...]
    events: tuple[Happening, ...] | None  # None: the source has no events

    @property
    def year(self) -> int:
        return int(self.created_at[:4] or 0)


def _bot(user: Any) -> bool:
    if not isinstance(user, dict):
        return False
    return user.get("type") == "Bot" or is_bot(user.get("login"), LINKS)


def _login(user: Any) -> str:
    return str(user.get("login") or "") if isinstance(user, dict) else ""


def note(raw: dict[str, Any]) -> Note:
    user = raw.get("user")
    return Note(
        int(raw.get("id") or 0),
        raw.get("body") or "",
        _login(user),
        raw.get("author_association"),
        raw.get("created_at") or "",
        raw.get("html_url") or "",
        _bot(user),
    )


def item(
    raw: dict[str, Any],
    repo: str,
    comments: Iterable[dict[str, Any]],
    events: Iterable[dict[str, Any]] | None,
    canonical: dict[str, tuple[str, int]] | None = None,
) -> Item:
    """An `Item` from a REST issue object, its REST comments and its REST events (or None);
    `canonical`: what GraphQL names for an event (by node id), where the source knows."""
    is_pr = bool(raw.get("pull_request")) or (raw.get("_meta") or {}).get("type") == "pr"
    named = canonical or {}
    return Item(
        repo=repo,
        number=int(raw["number"]),
        id=int(raw.get("id") or 0),
        is_pr=is_pr,
        created_at=str(raw.get("created_at") or ""),
        author=_login(raw.get("user")),
        association=raw.get("author_association"),
        body=raw.get("body") or "",
        labels=tuple(str(lab.get("name")) for lab in raw.get("labels") or () if lab),
        state=str(raw.get("state") or ""),
        state_reason=raw.get("state_reason"),
        closed_at=raw.get("closed_at"),
        closed_by=_login(raw.get("closed_by")) or None,
        url=str(raw.get("html_url") or ""),
        comments=tuple(note(c) for c in comments),
        events=None
        if events is None
        else tuple(
            Happening(
                int(e["id"]),
                str(e["event"]),
                _login(e.get("actor")),
                str(e.get("created_at") or ""),
                named.get(str(e.get("node_id"))),
            )
            for e in events
            if isinstance(e.get("id"), int)
        ),
    )


# -- the real archives -------------------------------------------------------------------------
def rust_items(root: Path) -> Iterator[Item]:
    """rust-lang/rust 2010-2015: main.jsonl.gz + comments.jsonl.gz (no events: the archive keeps
    only cross-references, without ids)."""
    comments = {
        int(row["number"]): row.get("comments") or []
        for row in archive_lines(root / "comments.jsonl.gz")
    }
    for raw in archive_lines(root / "main.jsonl.gz"):
        yield item(raw, "rust-lang/rust", comments.get(int(raw["number"]), ()), None)


def onnx_items(root: Path) -> Iterator[Item]:
    """microsoft/onnxruntime 2018-2023: issues.jsonl.gz + threads.jsonl.gz (comments, timeline,
    events; pull requests have no thread in the archive, REST events name no canonical)."""
    threads = {int(t["number"]): t for t in archive_lines(root / "threads.jsonl.gz")}
    for raw in archive_lines(root / "issues.jsonl.gz"):
        thread = threads.get(int(raw["number"])) or {}
        events: dict[int, dict[str, Any]] = {}
        for e in [*(thread.get("timeline") or ()), *(thread.get("events") or ())]:
            if e.get("event") and isinstance(e.get("id"), int) and e["event"] != "commented":
                events[e["id"]] = e
        yield item(
            raw,
            "microsoft/onnxruntime",
            thread.get("comments") or (),
            list(events.values()) if thread else None,
        )


def neovim_items(root: Path) -> Iterator[Item]:
    """The neovim org 2014-2026: issues.jsonl.gz + threads.jsonl.gz (no pull requests, no
    events: the backup kept neither)."""
    threads = {
        (t["repo"], int(t["number"])): t.get("comments") or []
        for t in archive_lines(root / "threads.jsonl.gz")
    }
    for raw in archive_lines(root / "issues.jsonl.gz"):
        repo = str(raw.get("repo") or "neovim/neovim")
        yield item(raw, repo, threads.get((repo, int(raw["number"])), ()), None)


# -- the generated world -----------------------------------------------------------------------
def paper_items(cfg: Any) -> Iterator[Item]:
    """Every issue and pull request of the paper world `cfg` (a `PaperConfig`), as generated;
    events with the canonicals GraphQL would name."""
    from issues_sts.sandbox.worlds.paper import iter_paper_world

    for chunk in iter_paper_world(cfg):
        data = chunk.data
        comments: dict[int, list[dict[str, Any]]] = {}
        for c in data.comments:
            comments.setdefault(int(str(c["issue_url"]).rsplit("/", 1)[1]), []).append(c)
        for raw in data.issues:
            number = int(raw["number"])
            yield item(
                raw,
                data.full_name,
                comments.get(number, ()),
                data.timeline.get(number, []),
                data.event_canonical,
            )


# -- the link stage's view ---------------------------------------------------------------------
def thread_of(it: Item) -> Thread:
    """The `Thread` the link stage would read for this item (every post, every duplicate
    event; without store facts such as renames)."""
    body = Post("body", it.author, it.association, it.body, it.created_at, it.url)
    posts = [body] + [
        Post("comment", c.login, c.association, c.body, c.created_at, c.url) for c in it.comments
    ]
    events = tuple(
        Event(
            e.event,
            e.actor,
            e.created_at,
            e.canonical[0] if e.canonical else None,
            e.canonical[1] if e.canonical else None,
            "graphql" if e.canonical else "rest",
            "",
        )
        for e in it.events or ()
        if "duplicate" in e.event
    )
    return Thread(
        repo=it.repo,
        number=it.number,
        is_pull_request=it.is_pr,
        author=it.author,
        state=it.state,
        state_reason=it.state_reason,
        labels=it.labels,
        created_at=it.created_at,
        closed_at=it.closed_at,
        closed_by=it.closed_by,
        html_url=it.url,
        posts=tuple(posts),
        events=events,
    )


# -- the tally ---------------------------------------------------------------------------------
EVIDENCE_KINDS = ("label", "state_reason", "keyword", "wording", "event")
QUANTILES = (("p50", 0.5), ("p75", 0.75), ("p90", 0.9), ("p99", 0.99))


def quantiles(values: list[int]) -> list[float]:
    if not values:
        return [math.nan] * len(QUANTILES)
    ordered = sorted(values)
    return [float(ordered[min(len(ordered) - 1, int(p * len(ordered)))]) for _, p in QUANTILES]


def _share(part: float, whole: float) -> float:
    return part / whole if whole else math.nan


@dataclass
class Tally:
    """Counts over a set of items; `figures()` turns them into named numbers."""

    items: int = 0
    prs: int = 0
    issue_comments: list[int] = field(default_factory=list)
    pr_comments: list[int] = field(default_factory=list)
    pr_comment_total: int = 0
    pr_bot_comments: int = 0
    body_chars: list[int] = field(default_factory=list)
    comment_chars: list[int] = field(default_factory=list)
    cued_threads: int = 0
    cued_comments: int = 0
    comments: int = 0
    refs: int = 0
    bot_comments: int = 0
    labelled: int = 0
    closed: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    evidence: Counter[str] = field(default_factory=Counter)
    duplicates: int = 0
    linked: int = 0
    with_events: int = 0
    ids: dict[str, list[int]] = field(
        default_factory=lambda: {"issue": [], "comment": [], "event": []}
    )

    def add(self, it: Item) -> None:
        self.items += 1
        self.ids["issue"].append(it.id)
        self.ids["comment"].extend(c.id for c in it.comments)
        self.ids["event"].extend(e.id for e in it.events or ())
        if it.is_pr:
            self._add_pull_request(it)
            return
        self.issue_comments.append(len(it.comments))
        self.body_chars.append(len(it.body))
        self.labelled += bool(it.labels)
        if it.state == "closed":
            self.closed += 1
            self.reasons[str(it.state_reason)] += 1
        cued = screens(it.body)
        kinds: set[str] = set()
        for c in it.comments:
            self.comments += 1
            self.comment_chars.append(len(c.body))
            self.bot_comments += c.bot
            cleaned = clean(c.body)
            self.refs += len(find_refs(cleaned, it.repo))
            if not screens(c.body):
                continue
            self.cued_comments += 1
            cued = True
            claims = find_claims(cleaned, it.repo, it.number).claims
            if any(cl.cue in (KEYWORD, SLASH) and not cl.negated for cl in claims):
                kinds.add("keyword")
            elif says_duplicate(c.body, repo=it.repo, number=it.number, pull_request=False):
                kinds.add("wording")
        self.cued_threads += cued
        if labels_say_duplicate(it.labels):
            kinds.add("label")
        if (it.state_reason or "").lower() == DUPLICATE_STATE_REASON:
            kinds.add("state_reason")
        if it.events is not None:
            self.with_events += 1
            if any(e.event == "marked_as_duplicate" for e in it.events):
                kinds.add("event")
        self.evidence.update(kinds)
        self.duplicates += bool(kinds)
        if kinds or cued:  # the only threads that can hold a link
            links = extract_thread(thread_of(it), LINKS).links
            self.linked += any(lk.excluded_reason is None for lk in links)

    def _add_pull_request(self, it: Item) -> None:
        self.prs += 1
        if it.comments:  # archives without pull-request threads say nothing here
            self.pr_comments.append(len(it.comments))
            self.pr_comment_total += len(it.comments)
            self.pr_bot_comments += sum(c.bot for c in it.comments)

    def figures(self) -> dict[str, float]:
        issues = self.items - self.prs
        out: dict[str, float] = {"items": self.items, "issues": issues}
        out["pr_share"] = _share(self.prs, self.items)
        for name, values in (
            ("comments_per_issue", self.issue_comments),
            ("comments_per_pr", self.pr_comments),
            ("body_chars", self.body_chars),
            ("comment_chars", self.comment_chars),
        ):
            for (p, _), q in zip(QUANTILES, quantiles(values), strict=True):
                out[f"{name}_{p}"] = q
            out[f"{name}_mean"] = sum(values) / len(values) if values else math.nan
        out["pr_bot_comment_share"] = _share(self.pr_bot_comments, self.pr_comment_total)
        out["empty_body_share"] = _share(sum(1 for n in self.body_chars if n == 0), issues)
        out["cued_thread_share"] = _share(self.cued_threads, issues)
        out["cued_comment_share"] = _share(self.cued_comments, self.comments)
        out["refs_per_comment"] = _share(self.refs, self.comments)
        out["bot_comment_share"] = _share(self.bot_comments, self.comments)
        out["labelled_share"] = _share(self.labelled, issues)
        out["closed_share"] = _share(self.closed, issues)
        out["duplicate_evidence_share"] = _share(self.duplicates, issues)
        out["linked_share"] = _share(self.linked, issues)
        for kind in EVIDENCE_KINDS:
            whole = self.with_events if kind == "event" else issues
            out[f"evidence_{kind}_share"] = _share(self.evidence[kind], whole)
        for reason in ("completed", "not_planned", "duplicate", "None"):
            out[f"closed_reason_{reason}_share"] = _share(self.reasons[reason], self.closed)
        for kind, ids in self.ids.items():
            out[f"{kind}_id_max"] = float(max(ids)) if ids else math.nan
            out[f"{kind}_ids_over_int32_share"] = _share(
                sum(1 for i in ids if i > INT32_MAX), len(ids)
            )
        return out
