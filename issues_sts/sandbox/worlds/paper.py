"""The paper-scale world: the AnglE paper's 55 repositories at (a `scale` of) their real sizes.

    corpus = generate_paper_world(PaperConfig(seed=0, scale=0.05))  # served by the fake GitHub
    write_paper_store(Path("data/paper"), PaperConfig(scale=1.0))    # straight into a crawl store

Each repository of `repos.yaml` gets about `scale x` its estimated number of issues and pull
requests (`PAPER_REPOS`), its own share of pull requests, heavy-tailed comment threads (about
five comments per item on average, bots writing most of the comments on pull requests) and
modern long texts: issue forms, fenced logs, tracebacks, environment dumps
(`world_paper_text`). Duplicates are re-reports of a recent issue closed with the same
evidence shapes as the small worlds (`world.EVIDENCE`, `world_dupes`), so new duplicate
conventions added there appear here too.

A repository is generated in chunks of numbers and each chunk is rendered and handed out
before the next one is drafted, so memory stays bounded at any scale: what is kept across
chunks is a window of recent issues that later reports may duplicate. Everything is drawn
from one `random.Random` per repository seeded by (seed, repository): the same config gives
the same world, repository by repository.
"""

from __future__ import annotations

import gc
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from issues_sts.crawl.rows import comment_rows, issue_rows
from issues_sts.sandbox.corpus import Corpus, RepoData
from issues_sts.sandbox.github.listing import list_item
from issues_sts.sandbox.worlds import dupes as D
from issues_sts.sandbox.worlds import paper_text as PT
from issues_sts.sandbox.worlds import text as T
from issues_sts.sandbox.worlds.eras import era_at
from issues_sts.sandbox.worlds.generator import (
    DUPLICATE_REASON_SINCE,
    EVIDENCE,
    NOT_PLANNED_SINCE,
    RepoBuilder,
    WorldConfig,
)
from issues_sts.sandbox.worlds.ids import IdClock
from issues_sts.sandbox.worlds.render import Draft, Person, iso, render_repo
from issues_sts.store import Store, utcnow


@dataclass(frozen=True)
class PaperRepo:
    """One repository of `repos.yaml` with its estimated size."""

    name: str  # owner/name as in repos.yaml (what a user asks the crawler for)
    items: int  # estimated issues + pull requests
    pr_share: float  # estimated share of pull requests among them
    lang: str  # which flavour of the generator's vocabulary (python, js, rust, go) its texts use
    since: str  # the year its issues start on GitHub (an estimate, see PAPER_REPOS)
    current: str | None = None  # where it lives now, when it moved (GitHub redirects the old name)

    @property
    def served_name(self) -> str:
        return self.current or self.name


# ESTIMATES, not counts. `items` is roughly the highest issue/PR number each repository had
# reached around the paper's crawl (2023), rounded, as remembered from the repositories' GitHub
# pages: issues and PRs share one number sequence, so it approximates issues + PRs (deleted
# and transferred numbers included). `pr_share` is a rough guess from each project's habits
# (golang/go reviews on Gerrit, DefinitelyTyped is almost all PRs, vscode almost all issues).
# The total is about 2.3 million; the issue this preset answers speaks of "roughly 2.5 million".
# `since` is the year a repository's GitHub issues start (its creation, or a migration that kept
# old numbers), also remembered, not looked up; its items are spread evenly from then to the
# world's end, so the share of recent items (which era's habits they have) is an estimate too.
# The vocabulary has four language flavours; projects in other languages use the nearest one.
PAPER_REPOS: tuple[PaperRepo, ...] = (
    PaperRepo("tensorflow/tensorflow", 61_000, 0.35, "python", "2015"),
    PaperRepo("pytorch/pytorch", 108_000, 0.65, "python", "2016"),
    PaperRepo("huggingface/transformers", 25_500, 0.55, "python", "2018"),
    PaperRepo("keras-team/keras", 18_500, 0.35, "python", "2015"),
    PaperRepo("freeCodeCamp/freeCodeCamp", 51_500, 0.6, "js", "2014"),
    PaperRepo("vuejs/vue", 12_900, 0.25, "js", "2013"),
    PaperRepo("facebook/react", 27_200, 0.5, "js", "2013"),
    PaperRepo("angular/angular", 51_000, 0.45, "js", "2014"),
    PaperRepo("elastic/elasticsearch", 99_000, 0.75, "go", "2010"),
    PaperRepo("numpy/numpy", 24_500, 0.55, "python", "2010"),
    PaperRepo("scikit-learn/scikit-learn", 27_000, 0.55, "python", "2010"),
    PaperRepo("pandas-dev/pandas", 54_500, 0.5, "python", "2010"),
    PaperRepo("psf/requests", 6_500, 0.4, "python", "2011"),
    PaperRepo("scipy/scipy", 19_000, 0.55, "python", "2010"),
    PaperRepo("matplotlib/matplotlib", 26_500, 0.6, "python", "2011"),
    PaperRepo("scrapy/scrapy", 6_000, 0.5, "python", "2010"),
    PaperRepo("opencv/opencv", 24_000, 0.55, "rust", "2012"),
    PaperRepo("bumptech/glide", 5_300, 0.15, "go", "2013"),
    PaperRepo("spring-projects/spring-framework", 31_000, 0.2, "go", "2010"),
    PaperRepo("apache/dubbo", 12_800, 0.5, "go", "2012"),
    PaperRepo("apache/superset", 25_000, 0.7, "python", "2015"),
    PaperRepo("apache/airflow", 33_000, 0.75, "python", "2015"),
    PaperRepo("apache/druid", 14_800, 0.75, "go", "2012"),
    PaperRepo("apache/shardingsphere", 27_500, 0.65, "go", "2016"),
    PaperRepo("kubernetes/kubernetes", 120_000, 0.6, "go", "2014"),
    PaperRepo("flutter/flutter", 131_000, 0.3, "js", "2015"),
    PaperRepo("google/jax", 17_000, 0.6, "python", "2018", current="jax-ml/jax"),
    PaperRepo("twbs/bootstrap", 39_000, 0.45, "js", "2011"),
    PaperRepo("axios/axios", 5_900, 0.35, "js", "2014"),
    PaperRepo("microsoft/vscode", 190_000, 0.08, "js", "2015"),
    PaperRepo("sqlalchemy/sqlalchemy", 10_200, 0.2, "python", "2018"),
    PaperRepo("mwaskom/seaborn", 3_450, 0.45, "python", "2012"),
    PaperRepo("microsoft/TypeScript", 55_500, 0.3, "js", "2014"),
    PaperRepo("microsoft/PowerToys", 28_000, 0.2, "go", "2019"),
    PaperRepo("microsoft/terminal", 15_900, 0.3, "rust", "2017"),
    PaperRepo("microsoft/playwright", 24_500, 0.5, "js", "2019"),
    PaperRepo("symfony/symfony", 51_000, 0.7, "js", "2010"),
    PaperRepo("babel/babel", 15_900, 0.5, "js", "2014"),
    PaperRepo("electron/electron", 39_500, 0.55, "js", "2013"),
    PaperRepo("denoland/deno", 20_200, 0.55, "rust", "2018"),
    PaperRepo("mrdoob/three.js", 26_500, 0.6, "js", "2010"),
    PaperRepo("mui/material-ui", 38_000, 0.5, "js", "2014"),
    PaperRepo("webpack/webpack", 17_500, 0.4, "js", "2012"),
    PaperRepo("atom/atom", 25_700, 0.15, "js", "2012"),
    PaperRepo("vercel/next.js", 53_000, 0.4, "js", "2016"),
    PaperRepo("ansible/ansible", 81_500, 0.5, "python", "2012"),
    PaperRepo("npm/cli", 6_700, 0.45, "js", "2019"),
    PaperRepo("pallets/flask", 5_250, 0.4, "python", "2010"),
    PaperRepo("tiangolo/fastapi", 10_000, 0.4, "python", "2018", current="fastapi/fastapi"),
    PaperRepo("DefinitelyTyped/DefinitelyTyped", 66_000, 0.9, "js", "2012"),
    PaperRepo("celery/celery", 8_400, 0.4, "python", "2009"),
    PaperRepo("neo4j/neo4j", 13_300, 0.7, "go", "2012"),
    PaperRepo("rust-lang/rust", 115_000, 0.5, "rust", "2010"),  # 0.48 in its 2010-2015 archive
    PaperRepo("JuliaLang/julia", 51_000, 0.55, "python", "2011"),
    PaperRepo("golang/go", 62_000, 0.04, "go", "2009"),
)


# Long modern reports (forms, logs, environment dumps) already bury what a duplicate shares with
# its canonical: a retelling keeps more of its error than the small worlds' does, and its detail
# (a rare word, and with it the lines its pasted log starts at) as often, so that the BM25 rank
# and the backbone's cosine fall where the archives' do (`python -m benchmarks.calibration`).
PAPER_RETELLING = T.Retelling(
    error=0.9, trigger=0.5, symptom=0.4, version=0.5, feature=0.7, detail=0.9
)


@dataclass(frozen=True)
class PaperConfig:
    """The paper world at `scale` (0.001 to 1.0) of its estimated sizes; each item's habits
    (texts, talk, duplicates) are those of its era (`eras.ERAS`)."""

    seed: int = 0
    scale: float = 1.0
    window: int = 5_000  # recent issues a new report may duplicate (bounds memory)
    chunk: int = 2_000  # numbers drafted, rendered and handed out at a time
    repos: tuple[str, ...] = ()  # a subset (names as in repos.yaml); empty: all 55
    end: str = "2026-06-01T00:00:00Z"
    # issue ids by creation time, as GitHub's (`ids.IdClock`: above 2^31 from 2024 on, as
    # comments' and events' always are); off, the small issue ids of the other worlds
    github_ids: bool = True

    def __post_init__(self) -> None:
        if not 0.001 <= self.scale <= 1.0:
            raise ValueError("scale must be within 0.001..1.0")
        unknown = set(self.repos) - {r.name for r in PAPER_REPOS}
        if unknown:
            raise ValueError(f"not a repository of the paper: {', '.join(sorted(unknown))}")

    def selected(self) -> list[tuple[int, PaperRepo, int]]:
        """(index in the table, repository, items at this scale) of the repositories generated."""
        wanted = set(self.repos)
        return [
            (k, r, max(5, round(r.items * self.scale)))
            for k, r in enumerate(PAPER_REPOS)
            if not wanted or r.name in wanted
        ]

    def expected_items(self) -> int:
        return sum(n for _, _, n in self.selected())


@dataclass
class _Recent:
    """What later chunks may need of an original issue once its draft is gone."""

    topic: T.Topic
    title: str
    created: float


@dataclass
class PaperRepoBuilder(RepoBuilder):
    """A `RepoBuilder` that drafts in chunks and keeps only a window of recent originals."""

    paper: PaperConfig = field(default_factory=PaperConfig)
    earlier: list[PaperRepoBuilder] = field(default_factory=list)  # repositories generated before

    def __post_init__(self) -> None:
        super().__post_init__()
        self.recent: dict[int, _Recent] = {}
        self.pool: list[int] = []  # keys of `recent`, for O(1) random choice
        self.slot = 0
        self.popular: dict[
            int, None
        ] = {}  # canonicals that already attracted a duplicate (ordered)
        self.referenced: set[int] = set()  # numbers named as a canonical (never deleted)
        self.removed: set[int] = set()  # deleted or gone (404/410)
        self.bots = [
            Person(name, 49_699_333 + k, "NONE", kind="Bot")
            for k, name in enumerate(self.rng.sample(PT.BOT_NAMES, 3))
        ]
        self.drafting_duplicate = False
        self.last = 1  # the highest number drafted so far

    # -- texts ---------------------------------------------------------------------------------
    def new_draft(
        self, number: int, created: float, topic: T.Topic, *, is_pr: bool = False
    ) -> Draft:
        era = era_at(created)
        author = self.reporter()
        body = "" if is_pr else PT.issue_body(self.rng, topic, era, self.style)
        draft = Draft(number, topic, T.title(self.rng, topic), body, author, created, is_pr=is_pr)
        self.drafts[number] = draft
        self.chat(draft, era.comment_count(self.rng, pull_request=is_pr))
        return draft

    def chat(self, draft: Draft, count: int) -> None:
        rng, t, era = self.rng, draft.created, era_at(draft.created)
        for _ in range(count):
            t = self.later(t, 4)
            if draft.is_pr and rng.random() < era.pr_bot_share:
                bot = rng.choice(self.bots)
                draft.comment(t, bot, PT.bot_comment(rng, bot.login, draft.topic, draft.number))
                continue
            who = self.commenter()
            # a duplicate's thread is the world's truth: no stray references in it
            ref = (
                self.reference(draft.number)
                if not self.drafting_duplicate and rng.random() < era.ref_rate
                else None
            )
            draft.comment(t, who, PT.comment_text(rng, draft.topic, who.association, era, ref))
        if not draft.is_pr and rng.random() < era.bot_rate:
            draft.comment(self.later(t, 60), self.stale_bot, T.STALE)

    def reference(self, number: int) -> str:
        """An earlier issue or pull request, as a comment names it: mostly `#N` of this
        repository, sometimes another repository's issue URL."""
        rng = self.rng
        if self.earlier and rng.random() < 0.15:
            other = rng.choice(self.earlier)
            return f"https://github.com/{other.full_name}/issues/{rng.randrange(1, other.last + 1)}"
        return f"#{rng.randrange(1, number)}" if number > 1 else "#1"

    def fresh_topic(self, kind: str) -> T.Topic:
        return self.quiet(super().fresh_topic(kind), kind)

    def known_topic(self, number: int) -> T.Topic:
        return self.recent[number].topic

    def retold(self, topic: T.Topic) -> T.Topic:
        """A retelling whose trigger says no cue word, as `quiet` keeps originals'."""
        told = super().retold(topic)
        for _ in range(8):
            if not any(w in told.trigger.lower() for w in PT.CUE_WORDS):
                break
            told = super().retold(topic)
        return told

    def quiet(self, topic: T.Topic, kind: str) -> T.Topic:
        """A topic whose trigger says no cue word ("...share the same directory"): see
        PT.CUE_WORDS."""
        for _ in range(8):
            if not any(w in topic.trigger.lower() for w in PT.CUE_WORDS):
                break
            topic = T.new_topic(self.rng, self.lang, kind)
        return topic

    # -- the window of recent originals --------------------------------------------------------
    def bug_pool(self) -> list[int]:
        return self.pool

    def remember(self, number: int) -> None:
        draft = self.drafts[number]
        if len(self.pool) < self.paper.window:
            self.pool.append(number)
        else:
            old = self.pool[self.slot]
            if old not in self.popular:
                self.recent.pop(old, None)
            self.pool[self.slot] = number
            self.slot = (self.slot + 1) % self.paper.window
        self.recent[number] = _Recent(draft.topic, draft.title, draft.created)

    def forget(self, number: int) -> None:
        """A deleted issue is no longer a canonical for later reports."""
        if number in self.recent:
            self.recent.pop(number)
            if number in self.pool:
                self.pool.remove(number)  # rare (deletions): O(window) is fine
            self.popular.pop(number, None)

    def original(self, number: int, created: float) -> None:
        super().original(number, created)
        self.originals.clear()  # the window replaces the base class's unbounded list
        self.remember(number)
        draft = self.drafts[number]
        if number > 1 and self.rng.random() < era_at(created).claim_rate:
            # "I have the same problem as #N" from a bystander: a claim, about their problem
            who = self.rng.choice(self.users)
            if who != draft.author:
                t = self.later(draft.created, 5)
                draft.comment(t, who, PT.me_too(self.rng, draft.topic, self.reference(number)))

    # -- the era's habits (hooks of RepoBuilder) --------------------------------------------------
    def label(self, draft: Draft, kind: str) -> None:
        if self.rng.random() < era_at(draft.created).labelled:
            super().label(draft, kind)

    def empty_rate(self, created: float) -> float:
        return era_at(created).empty_body

    def close_rate(self, created: float) -> float:
        return era_at(created).closed

    def close_reason(self, created: float) -> str | None:
        # GitHub gave every earlier close "completed"; "not planned" exists since 2022-03
        planned = created < NOT_PLANNED_SINCE or self.rng.random() >= era_at(created).not_planned
        return "completed" if planned else "not_planned"

    def retelling_rates(self, created: float) -> tuple[float, float]:
        era = era_at(created)
        return era.vague_rate, era.terse_rate

    def evidence_weights(self, created: float) -> tuple[int, ...]:
        weights = dict(era_at(created).evidence)
        return tuple(weights.get(name, 0) for name in EVIDENCE)

    def carries_label(self, how: str, created: float) -> bool:
        share = era_at(created).dup_label
        return how in ("label", "label_pointer", "relabelled") or self.rng.random() < share

    def duplicate_reason(self, t: float) -> str | None:
        said = t >= DUPLICATE_REASON_SINCE and self.rng.random() < era_at(t).dup_reason
        return "duplicate" if said else "completed"

    def pull_request(self, number: int, created: float) -> None:
        ref = self.rng.choice(self.pool) if self.pool and self.rng.random() < 0.7 else None
        topic = (
            self.recent[ref].topic
            if ref
            else self.quiet(T.new_topic(self.rng, self.lang, "bug"), "bug")
        )
        draft = self.new_draft(number, created, topic, is_pr=True)
        draft.title = T.pull_request_text(self.rng, topic, ref)[0]
        draft.body = PT.pull_request_body(self.rng, topic, ref)
        if self.rng.random() < 0.85:
            draft.close(self.later(created, 6), self.member(), None, merged=self.rng.random() < 0.8)

    # -- duplicates ------------------------------------------------------------------------------
    def pick_canonical(self, before: float) -> tuple[PaperRepoBuilder, int]:
        rng = self.rng
        if self.earlier and rng.random() < self.cfg.cross_repo_rate:
            other = rng.choice(self.earlier)
            pool = [k for k in other.pool if other.recent[k].created < before]
            if pool:
                return other, rng.choice(pool)
        if self.popular and rng.random() < 0.35:
            return self, rng.choice(list(self.popular))
        return self, rng.choice(self.pool)

    def duplicate(self, number: int, created: float) -> None:
        owner, target = self.pick_canonical(created)
        self.drafting_duplicate = True
        draft = self.draft_duplicate(number, created, owner.full_name, target, owner.recent[target])
        self.drafting_duplicate = False
        owner.referenced.add(target)
        if owner is self and target not in self.popular:
            self.popular[target] = None
            if len(self.popular) > 500:  # the oldest popular one may now be forgotten
                oldest = next(iter(self.popular))
                del self.popular[oldest]
                if oldest not in self.pool:
                    self.recent.pop(oldest, None)
        self.close_as_duplicate(draft, D.Ref(owner.full_name, target, self.full_name))
        if not era_at(created).events:  # before GitHub recorded duplicate marks
            draft.events = [e for e in draft.events if "duplicate" not in e[1]]

    # -- drafting in chunks ---------------------------------------------------------------------
    def chunks(self) -> Iterator[dict[int, Draft]]:
        """Draft numbers 1..n; every `chunk` numbers, hand out the drafts and forget them."""
        n = self.cfg.issues_per_repo
        span = (self.t1 - self.t0) / n
        pr_cut = self.cfg.pull_request_rate
        for number in range(1, n + 1):
            created = self.t0 + (number - 1) * span + self.rng.random() * span * 0.9
            self.last = number
            roll = self.rng.random()
            if roll < pr_cut:
                self.pull_request(number, created)
            elif roll < pr_cut + era_at(created).duplicate_rate * (1 - pr_cut) and self.pool:
                self.duplicate(number, created)
            else:
                self.original(number, created)
            if number % self.paper.chunk == 0 or number == n:
                drafts, self.drafts = self.drafts, {}
                yield drafts


def _repo_config(paper: PaperConfig, repo: PaperRepo, items: int) -> WorldConfig:
    """The base generator's config for one repository (duplicates and comments follow the
    eras instead, see `PaperRepoBuilder`)."""
    return WorldConfig(
        seed=paper.seed,
        repos=1,
        issues_per_repo=items,
        pull_request_rate=repo.pr_share,
        duplicate_rate=0.0,
        # fewer than the small worlds' (5 % and 1 %): their "Duplicate of #N" replies, marks and
        # bot suggestions would outnumber the archives' duplicate keywords and events
        hard_negative_rate=0.02,
        quoted_denial_share=0.05,
        unmarked_rate=0.002,
        # a duplicate close withdrawn (label removed with a reopen): an estimate, as rare as the
        # unmarked; the small worlds' 1 % would add a wording claim per hundred issues
        withdrawn_rate=0.002,
        sibling_rate=0.0,
        # vague and terse retellings follow the eras instead (`Era.vague_rate`, `Era.terse_rate`)
        retelling=PAPER_RETELLING,
        start=f"{repo.since}-01-01T00:00:00Z",
        end=paper.end,
        renamed_repos=0,
    )


@dataclass
class PaperChunk:
    """One rendered chunk of a repository: REST objects plus the truth about them."""

    requested: str  # the name in repos.yaml
    data: RepoData  # full_name is where the repository lives now


def iter_paper_world(cfg: PaperConfig) -> Iterator[PaperChunk]:
    """Every chunk of every selected repository, in table order; memory stays bounded."""
    enabled = gc.isenabled()
    gc.disable()  # many small acyclic objects: the cyclic GC would only slow this down
    try:
        earlier: list[PaperRepoBuilder] = []
        ids = IdClock()
        for index, repo, items in cfg.selected():
            rng = random.Random(f"paper:{cfg.seed}:{repo.name}")
            builder = PaperRepoBuilder(
                rng,
                _repo_config(cfg, repo, items),
                repo.served_name,
                repo.lang,
                100_000 + index * 7919,
                [],
                paper=cfg,
                earlier=list(earlier),
            )
            for drafts in builder.chunks():
                data = RepoData(
                    full_name=builder.full_name, repo_id=builder.repo_id, created_at=iso(builder.t0)
                )
                if repo.current:
                    data.renamed_from.append(repo.name)
                _remove(rng, builder, drafts, data)
                render_repo(drafts, data, index, ids, issue_ids=cfg.github_ids)
                _settle_canonicals(data, [*earlier, builder])
                for number in drafts:
                    if number in builder.truth:
                        data.truth_duplicates[number] = builder.truth[number]
                        data.truth_evidence[number] = builder.evidence[number]
                yield PaperChunk(repo.name, data)
            earlier.append(builder)
            builder.drafts.clear()
    finally:
        if enabled:
            gc.enable()


def _settle_canonicals(data: RepoData, builders: list[PaperRepoBuilder]) -> None:
    """GraphQL names no canonical once it was deleted (see world._forget_dangling_canonicals):
    drop those, and keep every canonical an event names from being deleted later."""
    by_name = {b.full_name: b for b in builders}

    def live(ref: tuple[str, int]) -> bool:
        owner = by_name.get(ref[0])
        return owner is not None and ref[1] not in owner.removed

    data.event_canonical = {k: ref for k, ref in data.event_canonical.items() if live(ref)}
    data.duplicate_of = {n: ref for n, ref in data.duplicate_of.items() if live(ref)}
    for repo, number in data.event_canonical.values():
        by_name[repo].referenced.add(number)


def _remove(
    rng: random.Random, builder: PaperRepoBuilder, drafts: dict[int, Draft], data: RepoData
) -> None:
    """Delete a few issues (404) and make a few gone (410), never one named as a canonical
    (a later report could not name it either: it leaves the window)."""
    cfg = builder.cfg
    movable = sorted(k for k in drafts if k not in builder.referenced)
    doomed = rng.sample(
        movable, k=min(len(movable), round(len(drafts) * (cfg.deleted_rate + cfg.gone_rate)))
    )
    cut = round(len(doomed) * cfg.deleted_rate / (cfg.deleted_rate + cfg.gone_rate))
    for k, number in enumerate(doomed):
        drafts.pop(number)
        (data.deleted if k < cut else data.gone).add(number)
        builder.removed.add(number)
        builder.truth.pop(number, None)
        builder.forget(number)


def generate_paper_world(cfg: PaperConfig) -> Corpus:
    """The whole world as a `Corpus` for the fake GitHub (fine up to a scale of about 0.1)."""
    corpus = Corpus()
    for chunk in iter_paper_world(cfg):
        repo = corpus.repos.get(chunk.data.full_name)
        if repo is None:
            corpus.add(chunk.data)
            continue
        _merge(repo, chunk.data)
    for repo in corpus.repos.values():
        repo.comments.sort(key=lambda c: (c["created_at"], c["id"]))
        repo.reindex()
    return corpus


def _merge(repo: RepoData, part: RepoData) -> None:
    repo.issues.extend(part.issues)
    repo.comments.extend(part.comments)
    repo.timeline.update(part.timeline)
    repo.duplicate_of.update(part.duplicate_of)
    repo.event_canonical.update(part.event_canonical)
    repo.deleted |= part.deleted
    repo.gone |= part.gone
    repo.truth_duplicates.update(part.truth_duplicates)
    repo.truth_evidence.update(part.truth_evidence)


# -- straight into a crawl store -------------------------------------------------------------
@dataclass(frozen=True)
class PaperStoreSummary:
    items: int
    comments: int
    events: int
    duplicates: int  # ground truth: generated duplicates still in the store


def event_rows(requested: str, data: RepoData) -> list[dict[str, Any]]:
    """The `events` rows a crawl with GraphQL stores for these issues (`crawl.graphql`'s rows,
    built from what the fake GitHub would answer): (un)marked_as_duplicate events with the
    canonical GraphQL names (none when the canonical was deleted), and, for a closed issue
    read as a timeline or an open duplicate candidate, its closes and reopens (for a closed
    issue: when it points at an issue or GitHub calls it a duplicate) and its duplicate labels'
    history. The marks GitHub also shows on each canonical's timeline are left out: the link
    stage reads each mark from its duplicate's own timeline, which is here."""
    from issues_sts.crawl.candidates import (
        has_duplicate_wording,
        mentions_issue,
        says_duplicate_itself,
    )
    from issues_sts.crawl.graphql import event_row, worth_keeping
    from issues_sts.crawl.threads import want_of
    from issues_sts.sandbox.github.graphql_nodes import item_node

    corpus = Corpus({data.full_name: data})
    rows = []
    for number, events in data.timeline.items():
        item = data.issue(number)
        if item is None or number in data.deleted or number in data.gone:
            continue
        wanted = want_of(item)
        node = item_node(corpus, data, item)
        own = [event_row(requested, number, _graphql_event(node._event(e))) for e in events]
        kept = [r for r in own if r is not None and worth_keeping(r)]
        comments = data.comments_of(number)
        if wanted is None or not wanted.events:  # open: asked only as a duplicate candidate
            candidate = says_duplicate_itself(item.get("labels") or [], item.get("state_reason"))
            if not (candidate or any(has_duplicate_wording(c.get("body")) for c in comments)):
                kept = []
        elif not (
            wanted.carries
            or any(mentions_issue(c.get("body")) for c in comments)
            or any(r["event"] not in ("closed", "reopened") for r in kept)
        ):
            kept = []  # a close nobody tied to another issue: not kept
        rows += kept
    return rows


def _graphql_event(node: dict[str, Any]) -> dict[str, Any]:
    """A fake GraphQL event node as the crawler's query selects it."""

    def actor(value: Any) -> Any:
        return {"__typename": value["typename"], "login": value["login"]} if value else None

    def ref(value: Any) -> Any:
        if value is None:
            return None
        return {
            "__typename": value.typename,
            "number": value.number,
            "repository": {"nameWithOwner": value.repo_data.full_name},
        }

    out = {"__typename": node["typename"], "id": node["id"], "createdAt": node["createdAt"]}
    out["actor"] = actor(node.get("actor"))
    if "stateReason" in node:
        out["stateReason"] = node["stateReason"]
    if "label" in node:
        out["label"] = {"name": node["label"]["name"]}
    if "canonical" in node:
        out["canonical"], out["duplicate"] = ref(node["canonical"]), ref(node["duplicate"])
    return out


def write_repo_data(
    store: Store, requested: str, data: RepoData, *, page: int = 500
) -> list[dict[str, Any]]:
    """Write one repository's (or one chunk's) objects as a crawl of `requested` would; returns
    the event rows written."""
    events = event_rows(requested, data)
    for start in range(0, max(len(data.issues), len(data.comments)), page):
        store.write_page(
            requested,
            issues=issue_rows(requested, [list_item(i) for i in data.issues[start : start + page]]),
            comments=comment_rows(requested, data.comments[start : start + page]),
        )
    store.write_page(requested, events=events)
    return events


def _draft_into(cfg: PaperConfig, queue: Any) -> None:
    """The child of `drafted_elsewhere`: every chunk onto `queue`, then None (or the error)."""
    try:
        for chunk in iter_paper_world(cfg):
            queue.put(chunk)
        queue.put(None)
    except BaseException as exc:  # the parent re-raises it
        queue.put(RuntimeError(f"drafting the paper world failed: {exc!r}"))


def drafted_elsewhere(cfg: PaperConfig, ahead: int = 3) -> Iterator[PaperChunk]:
    """`iter_paper_world(cfg)` drafted in a child process, `ahead` chunks at most waiting:
    the same chunks in the same order, while this process turns the previous ones into
    store rows (drafting and writing each take about half the time: two cores, half the wall)."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")  # a clean child: no copy of the caller's state
    queue = context.Queue(maxsize=ahead)
    child = context.Process(target=_draft_into, args=(cfg, queue), daemon=True)
    child.start()
    try:
        while (item := queue.get()) is not None:
            if isinstance(item, BaseException):
                raise item
            yield item
        child.join()
    finally:
        if child.is_alive():
            child.terminate()
            child.join()


def write_paper_store(
    root: Path | str,
    cfg: PaperConfig,
    *,
    page: int = 500,
    progress: Callable[[int], None] | None = None,
    two_processes: bool = False,
) -> PaperStoreSummary:
    """Write the world into a crawl store at `root` as a complete crawl would leave it (no HTTP):
    issues, comments, duplicate events, repositories with their current names.
    `two_processes`: draft in a child process while this one writes (`drafted_elsewhere`)."""
    totals = {"items": 0, "comments": 0, "events": 0, "duplicates": 0}
    with Store.open(root, create=True) as store:
        seen: set[str] = set()
        for chunk in drafted_elsewhere(cfg) if two_processes else iter_paper_world(cfg):
            data = chunk.data
            if chunk.requested not in seen:
                seen.add(chunk.requested)
                store.upsert_repo(
                    chunk.requested, repo_id=data.repo_id, current_name=data.full_name
                )
            events = write_repo_data(store, chunk.requested, data, page=page)
            totals["items"] += len(data.issues)
            totals["comments"] += len(data.comments)
            totals["events"] += len(events)
            totals["duplicates"] += len(data.truth_duplicates)
            if progress is not None:
                progress(len(data.issues))
        for name in seen:
            store.upsert_repo(name, status="ok", last_sync=utcnow())
    return PaperStoreSummary(**totals)
