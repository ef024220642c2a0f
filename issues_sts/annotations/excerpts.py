"""Score a conventions round: real threads read as search-tool excerpts (issue 32).

Issue 32's held-out rounds are drawn from a search index of public GitHub threads: each thread
is an excerpt, a header line (`owner/name · issue #N · closed`), an optional `labels:` line, the
`# title`, then its posts, each opened by `login · description|comment · YYYY-MM-DD`. Readers
label the threads (`labels.csv`, the annotation columns plus `round` and `split`, tags
`bot-class` / `migrated-class` in `note`); this module turns the excerpts into a thread archive
in the neovim archive's shape and scores the link stage on it, the way `issues-sts links
evaluate` scores the archived rounds. The excerpts are third-party text and never enter the
repository: a round lives in a folder of its own.

What an excerpt does not show is filled in the same way for every extractor version, so
two freezes compare:
- every date is a day: posts get that day plus one minute per position (order kept);
- a closed issue closed one minute after its last post, by the author of its last comment (the
  issue's author when it has none), `state_reason` null;
- every `author_association` is NONE but the OWNER of the account the repository is named after
  (`association="member"`: MEMBER for every other human but the issue's author, a sensitivity
  check); account type Bot only for logins ending in `[bot]`;
- labels as the `labels:` line lists them.

A repository renamed since is the one thing a round adds to the world by hand: the search index
keeps each thread under the name it had when stored, and a closer's link may name an earlier or
a later one. `renames.txt` in the round folder lists what GitHub redirects, one
`old-owner/old-name=owner/name` per line: the world serves the repository under its current name
and redirects the old one to it, the excerpts and labels naming the old one move with it, and
the crawl learns the rename only the way it would on github.com (a link it asks GitHub about).

Run: `issues-sts links evaluate-excerpts ROUND_DIR`.
"""

from __future__ import annotations

import calendar
import dataclasses
import gzip
import json
import re
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from issues_sts.annotations.archives import RENAMES_FILE
from issues_sts.annotations.evaluate import Error, Evaluation, claimed_canonicals, errors, score
from issues_sts.annotations.labels import Annotation, Key, read_annotations
from issues_sts.errors import ConfigError
from issues_sts.links import LinkConfig, build_links
from issues_sts.links.renames import Aliases, parse_aliases
from issues_sts.store import Store

_HEAD = re.compile(
    r"^(?P<repo>[\w.-]+/[\w.-]+) · (?P<kind>issue|pull request) #(?P<n>\d+) · (?P<state>\w+)"
)
_POST = re.compile(r"^(?P<login>\S+) · (?P<kind>description|comment) · (?P<day>\d{4}-\d{2}-\d{2})$")
# an excerpt that opens inside a post names it so: "[turn 0 by LOGIN, continued]" (turn 0 is the
# description); it has no date: the next post's day (the previous one's when it is the last)
_CONTINUED = re.compile(r"^\[turn (?P<turn>\d+) by (?P<login>[^\s,\]]+), continued\]$")
_API, _WEB = "https://api.github.com", "https://github.com"
# where a round keeps its threads: the labelled ones, and targets a reader looked up to map an
# old tracker number (they complete the world, they are not scored)
EXCERPT_FOLDERS = ("excerpts", "support")
# the round's renames (module docstring); optional
ROUND_RENAMES = "renames.txt"
# the note tags that name a class of issue 32 (rows with neither are scored as "other")
CLASSES = {"bot": "bot-class", "migrated": "migrated-class"}
ASSOCIATIONS = ("none", "member")
# comment ids above 2^31, as github.com issues them today
_FIRST_COMMENT_ID = 3_000_000_000


@dataclass(frozen=True)
class ExcerptPost:
    login: str
    kind: str  # "description" | "comment"
    day: str  # YYYY-MM-DD
    body: str


@dataclass(frozen=True)
class Excerpt:
    repo: str
    number: int
    is_pull_request: bool
    state: str  # "open" | "closed"
    labels: tuple[str, ...]
    title: str
    posts: tuple[ExcerptPost, ...]
    length: int  # characters of the excerpt (the longest copy of a thread wins)


def parse_excerpt(text: str, source: str = "excerpt") -> Excerpt:
    """One excerpt's thread; a text that does not open with an excerpt header is a ConfigError."""
    lines = text.replace("\r\n", "\n").split("\n")
    head = _HEAD.match(lines[0])
    if head is None:
        raise ConfigError(
            f"{source} does not start with an excerpt header: {lines[0][:60]!r}",
            hint="save the search tool's excerpt verbatim: 'owner/name · issue #N · state' first",
        )
    i = 1
    labels: tuple[str, ...] = ()
    if i < len(lines) and lines[i].startswith("labels: "):
        labels = tuple(x.strip() for x in lines[i][len("labels: ") :].split(",") if x.strip())
        i += 1
    title = ""
    if i < len(lines) and lines[i].startswith("# "):
        title = lines[i][2:]
        i += 1
    posts: list[tuple[str, str, str, list[str]]] = []
    for line in lines[i:]:
        post = _POST.match(line)
        continued = _CONTINUED.match(line)
        if post:
            posts.append((post["login"], post["kind"], post["day"], []))
        elif continued:
            kind = "description" if continued["turn"] == "0" else "comment"
            posts.append((continued["login"], kind, "", []))
        elif posts:
            posts[-1][3].append(line)
    days = [day for _, _, day, _ in posts]
    for k in range(len(days) - 1, -1, -1):  # an undated post takes the next post's day
        if not days[k]:
            days[k] = days[k + 1] if k + 1 < len(days) else ""
    for k, day in enumerate(days):  # ... or the previous one's, when it is the last
        if not day:
            days[k] = days[k - 1] if k else "2020-01-01"
    posts = [(who, kind, day, body) for (who, kind, _, body), day in zip(posts, days, strict=True)]
    return Excerpt(
        repo=head["repo"],
        number=int(head["n"]),
        is_pull_request=head["kind"] != "issue",
        state="closed" if head["state"] in ("closed", "merged") else "open",
        labels=labels,
        title=title,
        posts=tuple(
            ExcerptPost(login, kind, day, "\n".join(body).strip("\n"))
            for login, kind, day, body in posts
        ),
        length=len(text),
    )


def read_renames(round_dir: Path) -> Aliases:
    """The round's `renames.txt` (blank lines and `#` comments skipped); none when absent. A
    malformed line, or an old name given twice, is a one-line ConfigError naming it."""
    path = round_dir / ROUND_RENAMES
    if not path.is_file():
        return ()
    pairs: list[tuple[str, str]] = []
    olds: set[str] = set()
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            (pair,) = parse_aliases([line])
        except ConfigError:
            raise ConfigError(
                f"{path}:{line_no}: bad rename {line!r}",
                hint="write one old-owner/old-name=owner/name per line",
            ) from None
        if pair[0].lower() in olds:
            raise ConfigError(
                f"{path}:{line_no}: {pair[0]} is renamed twice",
                hint="a repository's old name redirects to one place: keep one line",
            )
        pairs.append(pair)
        olds.add(pair[0].lower())
    news = {new.lower() for _, new in pairs}
    chained = next((old for old, _ in pairs if old.lower() in news), None)
    if chained is not None:
        raise ConfigError(
            f"{path}: {chained} is both an old and a current name",
            hint="point every old name at where the repository lives now",
        )
    return tuple(pairs)


def current_name(repo: str, renames: Aliases) -> str:
    """Where `repo` lives now: its rename's new name, else itself."""
    wanted = repo.lower()
    return next((new for old, new in renames if old.lower() == wanted), repo)


def load_excerpts(round_dir: Path, renames: Aliases = ()) -> list[Excerpt]:
    """Every thread of the round's excerpt folders, one per issue (the longest excerpt), each
    under the name its repository has now (`renames`)."""
    seen: dict[tuple[str, int], Excerpt] = {}
    for folder in EXCERPT_FOLDERS:
        for path in sorted((round_dir / folder).glob("*.txt")):
            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                raise ConfigError(
                    f"{path} is not UTF-8 text", hint="save excerpts as the tool returned them"
                ) from None
            excerpt = parse_excerpt(text, str(path))
            excerpt = dataclasses.replace(excerpt, repo=current_name(excerpt.repo, renames))
            key = (excerpt.repo.lower(), excerpt.number)
            if key not in seen or excerpt.length > seen[key].length:
                seen[key] = excerpt
    return sorted(seen.values(), key=lambda e: (e.repo.lower(), e.number))


def _user(login: str) -> dict[str, object]:
    uid = zlib.crc32(login.encode()) & 0x7FFFFFFF
    return {
        "login": login,
        "id": uid,
        "node_id": f"U_kgDO{uid:08X}",
        "type": "Bot" if login.endswith("[bot]") else "User",
        "site_admin": False,
        "url": f"{_API}/users/{login}",
        "html_url": f"{_WEB}/{login}",
    }


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def _stamps(posts: tuple[ExcerptPost, ...]) -> list[int]:
    """Each post's time: its day plus a minute per position, strictly increasing."""
    stamps: list[int] = []
    for k, post in enumerate(posts):
        t = calendar.timegm(time.strptime(post.day, "%Y-%m-%d")) + 60 * (k + 1)
        stamps.append(max(t, stamps[-1] + 60) if stamps else t)
    return stamps


def _records(
    excerpt: Excerpt, association: str, ids: Iterator[int]
) -> tuple[dict[str, object], list[dict[str, object]]]:
    """The issue (REST shape) and its comments, as the archive stores them."""
    repo, n = excerpt.repo, excerpt.number
    posts = excerpt.posts or (ExcerptPost("ghost", "description", "2020-01-01", ""),)
    body = posts[0] if posts[0].kind == "description" else None
    author = posts[0].login
    stamps = _stamps(posts)
    comments = [(p, t) for p, t in zip(posts, stamps, strict=True) if p is not body]
    closed = excerpt.state == "closed"
    closer = comments[-1][0].login if comments else author

    def role(login: str) -> str:
        # the account the repository is named after owns it: GitHub shows OWNER for its posts
        if login.lower() == repo.split("/")[0].lower():
            return "OWNER"
        if association == "member" and login != author and not login.endswith("[bot]"):
            return "MEMBER"
        return "NONE"

    issue_id = (zlib.crc32(f"{repo}#{n}".encode()) & 0x7FFFFFFF) + 2_000_000_000
    kind = "pull" if excerpt.is_pull_request else "issues"
    issue: dict[str, object] = {
        "repo": repo,
        "url": f"{_API}/repos/{repo}/issues/{n}",
        "repository_url": f"{_API}/repos/{repo}",
        "comments_url": f"{_API}/repos/{repo}/issues/{n}/comments",
        "events_url": f"{_API}/repos/{repo}/issues/{n}/events",
        "html_url": f"{_WEB}/{repo}/{kind}/{n}",
        "timeline_url": f"{_API}/repos/{repo}/issues/{n}/timeline",
        "id": issue_id,
        "node_id": f"I_kwDO{issue_id:011X}",
        "number": n,
        "title": excerpt.title,
        "user": _user(author),
        "labels": [
            {
                "id": zlib.crc32(name.encode()),
                "node_id": f"LA_{zlib.crc32(name.encode()):08X}",
                "name": name,
                "color": "ededed",
                "default": False,
            }
            for name in excerpt.labels
        ],
        "state": "closed" if closed else "open",
        "locked": False,
        "assignee": None,
        "assignees": [],
        "milestone": None,
        "comments": len(comments),
        "created_at": _iso(stamps[0]),
        "updated_at": _iso(stamps[-1] + (60 if closed else 0)),
        "closed_at": _iso(stamps[-1] + 60) if closed else None,
        "author_association": "OWNER" if role(author) == "OWNER" else "NONE",
        "active_lock_reason": None,
        "body": body.body if body else "",
        "closed_by": _user(closer) if closed else None,
        "reactions": {"total_count": 0, "+1": 0, "-1": 0},
        "state_reason": None,
    }
    if excerpt.is_pull_request:
        issue["pull_request"] = {
            "url": f"{_API}/repos/{repo}/pulls/{n}",
            "html_url": f"{_WEB}/{repo}/pull/{n}",
            "merged_at": None,
        }
    rows = []
    for post, t in comments:
        cid = next(ids)
        rows.append(
            {
                "url": f"{_API}/repos/{repo}/issues/comments/{cid}",
                "html_url": f"{_WEB}/{repo}/issues/{n}#issuecomment-{cid}",
                "issue_url": f"{_API}/repos/{repo}/issues/{n}",
                "id": cid,
                "node_id": f"IC_kwDO{cid:011X}",
                "user": _user(post.login),
                "created_at": _iso(t),
                "updated_at": _iso(t),
                "author_association": role(post.login),
                "body": post.body,
            }
        )
    return issue, rows


def write_archive(
    excerpts: list[Excerpt], out: Path, association: str = "none", renames: Aliases = ()
) -> None:
    """The excerpts as a thread archive (`issues.jsonl.gz` + `threads.jsonl.gz`, and the
    repositories' old names, `renames.json`, when there are any)."""
    if association not in ASSOCIATIONS:
        raise ConfigError(
            f"unknown association {association!r}", hint=f"use one of {', '.join(ASSOCIATIONS)}"
        )
    out.mkdir(parents=True, exist_ok=True)
    ids = iter(range(_FIRST_COMMENT_ID + 1, 1 << 62))
    with (
        gzip.open(out / "issues.jsonl.gz", "wt", encoding="utf-8") as issues,
        gzip.open(out / "threads.jsonl.gz", "wt", encoding="utf-8") as threads,
    ):
        for excerpt in excerpts:
            issue, comments = _records(excerpt, association, ids)
            issues.write(json.dumps(issue) + "\n")
            row = {"repo": excerpt.repo, "number": excerpt.number, "comments": comments}
            threads.write(json.dumps(row) + "\n")
    old_names: dict[str, list[str]] = {}
    for old, new in renames:
        old_names.setdefault(new, []).append(old)
    if old_names:
        (out / RENAMES_FILE).write_text(json.dumps(old_names, indent=1, sort_keys=True) + "\n")


@dataclass(frozen=True)
class ClassScore:
    name: str  # "bot", "migrated" or "other"
    rows: int
    all: Evaluation
    unambiguous_rows: int
    unambiguous: Evaluation  # without the rows tagged `ambiguous`


@dataclass
class ExcerptRound:
    excerpts: int
    annotations: list[Annotation]
    classes: list[ClassScore] = field(default_factory=list)
    claimed: dict[Key, Key] = field(default_factory=dict)  # per thread, the canonical it chose
    renames: Aliases = ()  # the round's `renames.txt`

    def errors(self, name: str) -> list[Error]:
        """The false links and misses of one class's rows."""
        return errors(_class_rows(self.annotations, name), self.claimed)


def _moved(a: Annotation, renames: Aliases) -> Annotation:
    """A labelled row with its thread and its target under their repositories' current names."""
    if not renames:
        return a
    canonical = (current_name(a.canonical[0], renames), a.canonical[1]) if a.canonical else None
    return dataclasses.replace(a, repo=current_name(a.repo, renames), canonical=canonical)


def _class_rows(annotations: list[Annotation], name: str) -> list[Annotation]:
    if name in CLASSES:
        return [a for a in annotations if CLASSES[name] in a.tags]
    tagged = set(CLASSES.values())
    return [a for a in annotations if not a.tags & tagged]


# builds the store of an archive folder, crawled as GitHub serves it (the CLI passes the
# sandbox's `crawl_archive_store`: this package does not load the fake GitHub itself)
Crawl = Callable[[Path, Path], Store]


def score_round(
    round_dir: Path,
    crawl: Crawl,
    work: Path,
    *,
    association: str = "none",
    cfg: LinkConfig | None = None,
) -> ExcerptRound:
    """Score the link stage on one round folder (`labels.csv` + `excerpts/`, `support/`,
    optionally `renames.txt`)."""
    renames = read_renames(round_dir)
    annotations = [_moved(a, renames) for a in read_annotations(round_dir / "labels.csv")]
    if not annotations:
        raise ConfigError(
            f"{round_dir / 'labels.csv'} has no labelled row: there is nothing to score",
            hint="label the round's threads first",
        )
    excerpts = load_excerpts(round_dir, renames)
    have = {(e.repo.lower(), e.number) for e in excerpts}
    missing = [
        f"{a.repo}#{a.number}" for a in annotations if (a.repo.lower(), a.number) not in have
    ]
    if missing:
        raise ConfigError(
            f"{len(missing)} labelled threads have no excerpt (first: {missing[0]})",
            hint=f"save each thread's excerpt to {round_dir / 'excerpts'}/OWNER__NAME__N.txt",
        )
    write_archive(excerpts, work / "archive", association, renames)
    store = crawl(work / "archive", work / "cache")
    try:
        claimed = claimed_canonicals(build_links(store, cfg or LinkConfig()))
    finally:
        store.close()
    result = ExcerptRound(len(excerpts), annotations, claimed=claimed, renames=renames)
    for name in (*CLASSES, "other"):
        rows = _class_rows(annotations, name)
        if rows:
            plain = [a for a in rows if not a.ambiguous]
            result.classes.append(
                ClassScore(name, len(rows), score(rows, claimed), len(plain), score(plain, claimed))
            )
    return result
