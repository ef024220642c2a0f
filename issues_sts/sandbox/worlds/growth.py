"""Let a generated world live on: new issues and comments, new duplicates, merges, new
repositories, all dated after everything the world held, as a month of GitHub would add.

    report = grow_world(corpus, Growth(seed=1, days=30))

A crawl store made before the growth catches up with an incremental re-crawl (the `since`
watermarks see only the new activity); `report` says what was added, for tests. Merges are
the case that tests split stability: an earlier canonical closed as a duplicate of another
cluster's canonical joins the two clusters.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from issues_sts.sandbox.corpus import Corpus, Json, RepoData
from issues_sts.sandbox.worlds import dupes as D
from issues_sts.sandbox.worlds import vocab as V
from issues_sts.sandbox.worlds.generator import RepoBuilder, WorldConfig, generate_world
from issues_sts.sandbox.worlds.ids import IdClock
from issues_sts.sandbox.worlds.render import Draft, count_comments, iso, node_id, render_repo, stamp

DAY = 86400.0
ISSUE_ID_BASE = 1_500_000_000


@dataclass(frozen=True)
class Growth:
    """How much the world grows; the same growth of the same world always adds the same."""

    seed: int = 1
    days: int = 30
    new_issues: int = 20  # per existing repository
    duplicate_share: float = 0.4  # of new issues: closed as duplicates (of old or new issues)
    merges: int = 1  # per repository: an old canonical closed as a duplicate of another
    new_repos: int = 1
    new_repo_issues: int = 60


@dataclass
class GrowthReport:
    new_issues: dict[str, list[int]] = field(default_factory=dict)
    duplicates: list[tuple[str, int, str, int]] = field(
        default_factory=list
    )  # repo, number -> target
    merges: list[tuple[str, int, str, int]] = field(default_factory=list)
    new_repos: list[str] = field(default_factory=list)


def grow_world(corpus: Corpus, growth: Growth) -> GrowthReport:
    """Add `growth` to `corpus` in place (the fake GitHub serving it sees it at once)."""
    rng = random.Random(growth.seed)
    start = max(stamp(i["updated_at"]) for r in corpus.repos.values() for i in r.issues) + DAY
    cfg = WorldConfig(seed=growth.seed, start=iso(start), end=iso(start + growth.days * DAY))
    ids = _clock_of(corpus)
    report = GrowthReport()
    existing = list(corpus.repos.values())
    for repo in existing:
        _grow_repo(rng, cfg, repo, growth, ids, report)
    for repo in _new_repos(corpus, growth, ids):
        corpus.add(repo)
        report.new_repos.append(repo.full_name)
    return report


def _clock_of(corpus: Corpus) -> IdClock:
    """An id clock that continues after every comment and event id the corpus holds, so new
    objects get newer (larger) ids in each repository's slot, as on GitHub."""
    clock = IdClock()
    for repo in corpus.repos.values():
        slot = _repo_index(repo)
        for comment in repo.comments:
            clock.reserve("comment", slot, int(comment["id"]))
        for events in repo.timeline.values():
            for event in events:
                clock.reserve("event", slot, int(event["id"]))
    return clock


def _builder(rng: random.Random, cfg: WorldConfig, repo: RepoData) -> RepoBuilder:
    lang = next(
        (lang for owner, name, lang in V.PROJECTS if repo.full_name.startswith(f"{owner}/{name}")),
        "python",
    )
    return RepoBuilder(rng, cfg, repo.full_name, lang, repo.repo_id, [])


def _repo_index(repo: RepoData) -> int:
    item = repo.issues[0]
    return (int(item["id"]) - ISSUE_ID_BASE - int(item["number"]) * 17) // 10_000_000


def _open_issues(repo: RepoData) -> list[Json]:
    gone = repo.deleted | repo.gone | set(repo.transferred)
    return [
        i
        for i in repo.issues
        if "pull_request" not in i
        and i["number"] not in gone
        and i["number"] not in repo.duplicate_of
    ]


def _grow_repo(
    rng: random.Random,
    cfg: WorldConfig,
    repo: RepoData,
    growth: Growth,
    ids: IdClock,
    report: GrowthReport,
) -> None:
    builder = _builder(rng, cfg, repo)
    top = max(int(i["number"]) for i in repo.issues)
    t0, span = stamp(cfg.start), growth.days * DAY
    earlier = _open_issues(repo)
    for k in range(growth.new_issues):
        number, created = top + 1 + k, t0 + span * k / max(growth.new_issues, 1) * 0.8
        if rng.random() < growth.duplicate_share and (earlier or builder.originals):
            if builder.originals and rng.random() < 0.5:
                builder.duplicate(number, created)  # of a new issue: a new cluster
            else:
                target = rng.choice(earlier)  # of an old issue: its cluster grows
                _re_report(builder, number, created, target, repo.full_name)
            target_ref = builder.truth[number]
            report.duplicates.append((repo.full_name, number, *target_ref))
        else:
            builder.original(number, created)
    report.new_issues[repo.full_name] = sorted(builder.drafts)
    merges = _merge_drafts(rng, builder, repo, earlier, growth.merges, t0 + span * 0.9)
    report.merges += merges
    _render_into(builder.drafts, repo, ids, merged={m[1] for m in merges})
    for number, ref in builder.truth.items():
        repo.truth_duplicates[number] = ref
        marks = [e for e in builder.drafts[number].events if e[1] == "marked_as_duplicate"]
        if marks:  # what GraphQL names as the canonical of the latest mark
            repo.duplicate_of[number] = max(marks, key=lambda e: e[0])[3]


def _re_report(
    builder: RepoBuilder, number: int, created: float, target: Json, full_name: str
) -> None:
    """A new issue that reports an old one's problem again, closed as its duplicate."""
    draft = builder.new_draft(number, created, builder.fresh_topic("bug"))
    draft.title = f"Still happening: {target['title']}"
    builder.truth[number] = (full_name, int(target["number"]))
    closer = builder.member()
    ref = D.Ref(full_name, int(target["number"]), full_name)
    t = builder.later(created, 2)
    draft.comment(t, closer, D.render("Duplicate of {short}", ref))
    draft.mark(t, closer, (ref.repo, ref.number))
    draft.close(t + 1, closer, "duplicate")


def _merge_drafts(
    rng: random.Random,
    builder: RepoBuilder,
    repo: RepoData,
    earlier: list[Json],
    count: int,
    when: float,
) -> list[tuple[str, int, str, int]]:
    """Old canonicals (issues others duplicate) closed as duplicates of another old canonical."""
    canonicals = sorted(
        {n for r, n in repo.duplicate_of.values() if r == repo.full_name}
        & {int(i["number"]) for i in earlier}
    )
    rng.shuffle(canonicals)
    merges = []
    while count > 0 and len(canonicals) >= 2:
        number, target = canonicals.pop(), canonicals.pop()
        item = repo.issue(number)
        assert item is not None
        draft = Draft(
            number, builder.fresh_topic("bug"), item["title"], item["body"], builder.member(), when
        )
        ref = D.Ref(repo.full_name, target, repo.full_name)
        closer = builder.member()
        draft.comment(when, closer, D.render("Duplicate of {short}", ref))
        draft.mark(when, closer, (repo.full_name, target))
        draft.close(when + 1, closer, "duplicate")
        builder.drafts[number] = draft
        builder.truth[number] = (repo.full_name, target)
        merges.append((repo.full_name, number, repo.full_name, target))
        count -= 1
    return merges


def _render_into(drafts: dict[int, Draft], repo: RepoData, ids: IdClock, merged: set[int]) -> None:
    """Render new drafts into `repo`; a merged old issue keeps its issue object, updated."""
    scratch = RepoData(full_name=repo.full_name, repo_id=repo.repo_id)
    render_repo(drafts, scratch, _repo_index(repo), ids)
    for item in scratch.issues:
        if item["number"] not in merged:
            repo.issues.append(item)
            continue
        old = repo.issue(item["number"])
        assert old is not None
        for key in ("state", "closed_at", "closed_by", "state_reason", "updated_at"):
            old[key] = item[key]
        old["labels"] = old["labels"] + [x for x in item["labels"] if x not in old["labels"]]
    repo.comments.extend(scratch.comments)
    for number, events in scratch.timeline.items():
        repo.timeline[number] = sorted(
            [*repo.timeline.get(number, []), *events], key=lambda e: e["created_at"]
        )
    repo.event_canonical.update(scratch.event_canonical)
    count_comments(repo)


def _new_repos(corpus: Corpus, growth: Growth, ids: IdClock) -> list[RepoData]:
    """Repositories added to the crawl: generated whole (their issues span the world's years)."""
    if growth.new_repos == 0:
        return []
    world = generate_world(
        WorldConfig(
            seed=growth.seed,
            repos=len(corpus.repos) + growth.new_repos,
            issues_per_repo=growth.new_repo_issues,
            transfer_rate=0.0,
            cross_repo_rate=0.0,
            renamed_repos=0,
            deleted_rate=0.0,
            gone_rate=0.0,
        )
    )
    fresh = [r for name, r in world.repos.items() if corpus.find(name) is None][: growth.new_repos]
    for repo in fresh:
        _renumber(repo, ids, _repo_index(repo))
    return fresh


def _renumber(repo: RepoData, ids: IdClock, slot: int) -> None:
    """Comment and event ids from the world's clock in the new repository's own slot, after
    every id the corpus holds (comments are keyed by id)."""
    for comment in sorted(repo.comments, key=lambda c: (c["created_at"], c["id"])):
        new_id = ids.comment(stamp(comment["created_at"]), slot)
        comment["id"] = new_id
        comment["node_id"] = node_id("IC", new_id)
        number = comment["issue_url"].rsplit("/", 1)[1]
        comment["url"] = comment["url"].rsplit("/", 1)[0] + f"/{new_id}"
        comment["html_url"] = (
            f"https://github.com/{repo.full_name}/issues/{number}#issuecomment-{new_id}"
        )
    canonical = {}
    events = sorted(
        (e for timeline in repo.timeline.values() for e in timeline),
        key=lambda e: (e["created_at"], e["id"]),
    )
    for event in events:
        new_id = ids.event(stamp(event["created_at"]), slot)
        new_node = node_id(event["node_id"].split("_", 1)[0], new_id)
        if event["node_id"] in repo.event_canonical:
            canonical[new_node] = repo.event_canonical[event["node_id"]]
        event["id"], event["node_id"] = new_id, new_node
        event["url"] = event["url"].rsplit("/", 1)[0] + f"/{new_id}"
    repo.event_canonical = canonical
    repo.reindex()
