"""A deterministic generator of realistic issue worlds (the project's embedded default data).

    corpus = generate_world(WorldConfig(seed=7, repos=4, issues_per_repo=500))

Each repository gets issues and pull requests about generated *topics* (a component, an API,
an error message, a trigger). A duplicate re-reports its canonical's problem as another reporter
meets it (`text.Retelling`: another error line, trigger or symptom, mostly the same detail; some
in a user's own words, some a short note without the template) and is closed with evidence
phrased many ways (see `dupes.py`); the truth is kept in `RepoData.truth_duplicates`. Some
originals are other problems of an earlier issue's component, the same-topic non-duplicates
real trackers hold (`benchmarks.difficulty` measures how alike duplicates are, real and
generated).
"""

from __future__ import annotations

import gc
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from issues_sts.sandbox.corpus import Corpus, RepoData
from issues_sts.sandbox.worlds import conventions
from issues_sts.sandbox.worlds import dupes as D
from issues_sts.sandbox.worlds import text as T
from issues_sts.sandbox.worlds import vocab as V
from issues_sts.sandbox.worlds.ids import IdClock
from issues_sts.sandbox.worlds.render import Draft, Person, iso, render_repo, stamp


class Reported(Protocol):
    """What a new report of an issue needs to know of it."""

    @property
    def topic(self) -> T.Topic: ...

    @property
    def title(self) -> str: ...


DUPLICATE_REASON_SINCE = stamp("2024-11-01T00:00:00Z")  # GitHub's state_reason "duplicate"
NOT_PLANNED_SINCE = stamp("2022-03-01T00:00:00Z")


@dataclass(frozen=True)
class WorldConfig:
    """Size and flavour of a generated world; the same config always gives the same corpus."""

    seed: int = 0
    repos: int = 3
    issues_per_repo: int = 300
    duplicate_rate: float = 0.08
    pull_request_rate: float = 0.2
    feature_rate: float = 0.25
    comments_mean: float = 2.5
    cross_repo_rate: float = 0.05
    hard_negative_rate: float = 0.05
    # of originals: another problem of an earlier issue's component (a same-topic non-duplicate)
    sibling_rate: float = 0.1
    # of duplicates: written by someone who describes it differently (own words, no template)
    vague_rate: float = 0.35
    # of the other duplicates: a short report without the template or a reproduction
    terse_rate: float = 0.35
    # of duplicates' details (error, trigger, symptom, version): how many a retelling keeps
    retelling: T.Retelling = T.RETELLING
    quoted_denial_share: float = (
        0.2  # of hard negatives: a guessed "Duplicate of #N", quoted and denied
    )
    unmarked_rate: float = 0.01
    withdrawn_rate: float = 0.01  # closed as a duplicate, then the label removed with a reopen
    transfer_rate: float = 0.004
    deleted_rate: float = 0.004
    gone_rate: float = 0.002
    renamed_repos: int = 1
    start: str = "2019-01-01T00:00:00Z"
    end: str = "2026-06-01T00:00:00Z"

    def __post_init__(self) -> None:
        if not 1 <= self.repos <= len(V.PROJECTS) * 4:
            raise ValueError(f"repos must be within 1..{len(V.PROJECTS) * 4}")
        if self.issues_per_repo < 1:
            raise ValueError("issues_per_repo must be positive")
        if not 0 <= self.duplicate_rate + self.pull_request_rate < 1:
            raise ValueError("duplicate_rate + pull_request_rate must be below 1")


PRESETS: dict[str, WorldConfig] = {
    "tiny": WorldConfig(repos=2, issues_per_repo=60),
    "small": WorldConfig(repos=3, issues_per_repo=300),
    "demo": WorldConfig(repos=5, issues_per_repo=1000, duplicate_rate=0.08),
    "large": WorldConfig(repos=8, issues_per_repo=2500),
}


def preset(name: str, seed: int = 0) -> WorldConfig:
    if name not in PRESETS:
        raise KeyError(f"unknown world {name!r}; choose from {', '.join(PRESETS)}")
    base = PRESETS[name]
    return WorldConfig(**{**base.__dict__, "seed": seed})


def generate_world(cfg: WorldConfig) -> Corpus:
    """Build the world `cfg` describes; the same config always gives the same corpus."""
    enabled = gc.isenabled()
    gc.disable()  # many small acyclic objects: the cyclic GC would only slow this down
    try:
        return _generate(cfg)
    finally:
        if enabled:
            gc.enable()


def _generate(cfg: WorldConfig) -> Corpus:
    rng = random.Random(cfg.seed)
    builders: list[RepoBuilder] = []
    for index in range(cfg.repos):
        owner, name, lang = V.PROJECTS[index % len(V.PROJECTS)]
        if index >= len(V.PROJECTS):
            name = f"{name}-{index // len(V.PROJECTS) + 1}"
        builder = RepoBuilder(rng, cfg, f"{owner}/{name}", lang, 100_000 + index * 7919, builders)
        builder.build()
        conventions.shape(builder, index, cfg.seed)  # issue 32's conventions and near misses
        builders.append(builder)
    _transfer(rng, cfg, builders)
    corpus = Corpus()
    ids = IdClock()
    for index, builder in enumerate(builders):
        repo = RepoData(
            full_name=builder.full_name, repo_id=builder.repo_id, created_at=iso(builder.t0)
        )
        if index < cfg.renamed_repos:
            repo.renamed_from.append(
                f"{builder.full_name.split('/')[0]}/{builder.full_name.split('/')[1]}-legacy"
            )
        _remove(rng, cfg, builder, repo)
        render_repo(builder.drafts, repo, index, ids)
        repo.truth_duplicates.update(builder.truth)
        repo.truth_evidence.update({n: builder.evidence[n] for n in builder.truth})
        corpus.add(repo)
    _forget_dangling_canonicals(corpus)
    return corpus


def _forget_dangling_canonicals(corpus: Corpus) -> None:
    """GraphQL names no canonical once it was deleted (GitHub answers null): keep
    `event_canonical`/`duplicate_of` equal to what is served. `truth_duplicates` keeps the truth."""

    def resolves(ref: tuple[str, int]) -> bool:
        target = corpus.find(ref[0])
        return target is not None and target.issue(ref[1]) is not None

    for repo in corpus.repos.values():
        repo.event_canonical = {k: ref for k, ref in repo.event_canonical.items() if resolves(ref)}
        repo.duplicate_of = {n: ref for n, ref in repo.duplicate_of.items() if resolves(ref)}


@dataclass
class RepoBuilder:
    rng: random.Random
    cfg: WorldConfig
    full_name: str
    lang: str
    repo_id: int
    others: list[RepoBuilder]
    drafts: dict[int, Draft] = field(default_factory=dict)
    truth: dict[int, tuple[str, int]] = field(default_factory=dict)
    evidence: dict[int, str] = field(default_factory=dict)
    transferred: dict[int, tuple[str, int]] = field(default_factory=dict)
    transferred_in: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        rng = self.rng
        self.t0 = stamp(self.cfg.start) + rng.randrange(0, 200) * 86400
        self.t1 = stamp(self.cfg.end)
        self.members = [Person.make(rng, "OWNER")] + [
            Person.make(rng, a) for a in ("MEMBER",) * 3 + ("COLLABORATOR",)
        ]
        self.contributors = [Person.make(rng, "CONTRIBUTOR") for _ in range(20)]
        self.users = [
            Person.make(rng, "NONE" if k % 9 else "FIRST_TIME_CONTRIBUTOR") for k in range(150)
        ]
        self.stale_bot = Person("stale[bot]", 26384082, "NONE", kind="Bot")
        self.topics_seen: set[tuple[str, str, str]] = set()
        self.dup_label = rng.choice(V.DUP_LABELS)
        self.style = rng.randrange(3)
        self.canonicals: list[int] = []  # issues already chosen as canonical (popular ones recur)
        self.originals: list[int] = []

    # -- people and time ----------------------------------------------------------------------
    def reporter(self) -> Person:
        roll = self.rng.random()
        pool = self.members if roll < 0.1 else self.contributors if roll < 0.3 else self.users
        return self.rng.choice(pool)

    def commenter(self) -> Person:
        return self.reporter()

    def member(self) -> Person:
        return self.rng.choice(self.members)

    def later(self, t: float, days: float) -> float:
        return min(t + self.rng.expovariate(1 / (days * 86400)) + 60, self.t1 + 86400 * 30)

    # -- the repository --------------------------------------------------------------------------
    def build(self) -> None:
        n = self.cfg.issues_per_repo
        span = (self.t1 - self.t0) / n
        pr_cut = self.cfg.pull_request_rate
        dup_cut = pr_cut + self.cfg.duplicate_rate
        for number in range(1, n + 1):
            created = self.t0 + (number - 1) * span + self.rng.random() * span * 0.9
            roll = self.rng.random()
            if roll < pr_cut:
                self.pull_request(number, created)
            elif roll < dup_cut and self.bug_pool():
                self.duplicate(number, created)
            else:
                self.original(number, created)

    def bug_pool(self) -> list[int]:
        """Issues (not PRs, not duplicates themselves) that a new report may duplicate."""
        return self.originals

    def new_draft(
        self, number: int, created: float, topic: T.Topic, *, is_pr: bool = False
    ) -> Draft:
        author = self.reporter()
        text = T.issue_body(self.rng, topic, self.style)
        draft = Draft(number, topic, T.title(self.rng, topic), text, author, created, is_pr=is_pr)
        self.drafts[number] = draft
        self.chat(draft, self.rng.randrange(0, 1 + int(self.cfg.comments_mean * 2)))
        return draft

    def chat(self, draft: Draft, count: int) -> None:
        t = draft.created
        for _ in range(count):
            t = self.later(t, 4)
            who = self.commenter()
            draft.comment(t, who, T.chatter(self.rng, draft.topic, who.association))
        if self.rng.random() < 0.04:
            draft.comment(self.later(t, 60), self.stale_bot, T.STALE)

    def known_topic(self, number: int) -> T.Topic:
        """The topic of an earlier original (the paper world keeps it after the draft is gone)."""
        return self.drafts[number].topic

    def fresh_topic(self, kind: str) -> T.Topic:
        """A topic no earlier original in this repository had, so that only true duplicates
        share a component, an error and a trigger (a few retries keep it cheap); at
        `sibling_rate`, another problem of an earlier original's component."""
        pool = self.bug_pool()
        if pool and self.rng.random() < self.cfg.sibling_rate:
            earlier = self.known_topic(self.rng.choice(pool))
            if earlier.kind == kind:
                return T.sibling(self.rng, earlier)
        topic = T.new_topic(self.rng, self.lang, kind)
        for _ in range(8):
            key = (
                topic.component[0],
                topic.error if kind == "bug" else topic.feature,
                topic.trigger,
            )
            if key not in self.topics_seen:
                self.topics_seen.add(key)
                break
            topic = T.new_topic(self.rng, self.lang, kind)
        return topic

    def original(self, number: int, created: float) -> None:
        kind = "feature" if self.rng.random() < self.cfg.feature_rate else "bug"
        draft = self.new_draft(number, created, self.fresh_topic(kind))
        self.originals.append(number)
        if self.rng.random() < self.empty_rate(created):  # GitHub serves empty and null bodies
            draft.body = self.rng.choice(("", None))
        self.label(draft, kind)
        if self.rng.random() < self.cfg.hard_negative_rate and number > 1:
            self.hard_negative(draft, self.rng.randrange(1, number))
        if self.rng.random() < self.cfg.unmarked_rate and number > 1:
            self.unmarked(draft, self.rng.randrange(1, number))
        elif self.rng.random() < self.cfg.withdrawn_rate and number > 1:
            self.withdrawn(draft, self.rng.randrange(1, number))
        elif self.rng.random() < self.close_rate(created):
            reason = self.close_reason(created)
            draft.close(self.later(draft.last_activity(), 20), self.member(), reason)

    # Hooks a world of other habits (the paper world's eras) overrides.
    def empty_rate(self, created: float) -> float:
        return 0.02

    def label(self, draft: Draft, kind: str) -> None:
        draft.labels.append("enhancement" if kind == "feature" else self.rng.choice(V.OTHER_LABELS))

    def close_rate(self, created: float) -> float:
        return 0.55

    def retelling_rates(self, created: float) -> tuple[float, float]:
        """The shares of a duplicate created at `created` told vaguely and tersely."""
        return self.cfg.vague_rate, self.cfg.terse_rate

    def close_reason(self, created: float) -> str | None:
        return "completed" if created >= NOT_PLANNED_SINCE or self.rng.random() < 0.5 else None

    def evidence_weights(self, created: float) -> tuple[int, ...]:
        """Weights of `EVIDENCE`'s shapes (in its order) for a duplicate created then."""
        return tuple(w for w, _ in EVIDENCE.values())

    def carries_label(self, how: str, created: float) -> bool:
        """Does a duplicate closed by evidence of shape `how` carry the duplicate label?"""
        return how in ("label", "label_pointer", "relabelled") or self.rng.random() < 0.6

    def duplicate_reason(self, t: float) -> str | None:
        return _closing_reason(self.rng, t)

    def hard_negative(self, draft: Draft, other: int) -> None:
        """Mentions of another issue that do NOT make this one a duplicate."""
        ref = D.Ref(self.full_name, other, self.full_name)
        t = self.later(draft.created, 2)
        roll = self.rng.random()
        if roll < 0.08:  # a bot's automated suggestion nobody acts on (issue 13)
            D.bot_suggestion(self, draft, ref, t)
        elif roll < 0.14:  # an issue form's "possible duplicates" field, filled in by the reporter
            draft.body = (draft.body or "") + "\n\n" + D.form_field(ref)
        elif self.rng.random() < self.cfg.quoted_denial_share:  # a guess, quoted and denied
            guess = D.render("Duplicate of {short}", ref)
            draft.comment(t, self.rng.choice(self.users), guess)
            draft.comment(
                self.later(t, 1), self.member(), f"> {guess}\n\n" + D.pick(self.rng, D.DENIAL, ref)
            )
        else:
            draft.comment(t, self.commenter(), D.pick(self.rng, D.NEGATIVE, ref))

    def unmarked(self, draft: Draft, other: int) -> None:
        ref = D.Ref(self.full_name, other, self.full_name)
        t = self.later(draft.created, 1)
        actor = self.member()
        draft.mark(t, actor, (self.full_name, other))
        draft.comment(t, actor, D.render("Duplicate of {short}", ref))
        t = self.later(t, 1)
        draft.unmark(t, actor, (self.full_name, other))
        draft.comment(t, self.member(), D.pick(self.rng, D.UNMARK, ref))

    def withdrawn(self, draft: Draft, other: int) -> None:
        """Closed as a duplicate and labelled, then the label removed together with a reopen:
        not a duplicate after all (half the time nobody says so in words)."""
        ref = D.Ref(self.full_name, other, self.full_name)
        t = self.later(draft.created, 1)
        actor = self.member()
        draft.comment(t, actor, D.pick(self.rng, D.CLOSING_NO_KEYWORD, ref))
        draft.label(t + 1, actor, self.dup_label)
        draft.close(t + 2, actor, _closing_reason(self.rng, t))
        t = self.later(t, 2)
        draft.unlabel(t, actor, self.dup_label)
        draft.reopen(t + 5, actor)
        if self.rng.random() < 0.5:
            draft.comment(t + 6, actor, self.rng.choice(D.WITHDRAWN))

    def pull_request(self, number: int, created: float) -> None:
        pool = self.bug_pool()
        ref = self.rng.choice(pool) if pool and self.rng.random() < 0.7 else None
        topic = self.drafts[ref].topic if ref else T.new_topic(self.rng, self.lang, "bug")
        draft = self.new_draft(number, created, topic, is_pr=True)
        draft.title, draft.body = T.pull_request_text(self.rng, topic, ref)
        if self.rng.random() < 0.85:
            draft.close(self.later(created, 6), self.member(), None, merged=self.rng.random() < 0.8)

    # -- duplicates --------------------------------------------------------------------------------
    def canonical(self, before: float) -> tuple[RepoBuilder, int]:
        """Popular canonicals attract more duplicates; a few live in another repository."""
        rng = self.rng
        if self.others and rng.random() < self.cfg.cross_repo_rate:
            other = rng.choice(self.others)
            pool = [
                k
                for k in other.bug_pool()
                if k in other.drafts and other.drafts[k].created < before
            ]
            if pool:
                return other, rng.choice(pool)
        if self.canonicals and rng.random() < 0.35:
            return self, rng.choice(self.canonicals)
        return self, rng.choice(self.bug_pool())

    def duplicate(self, number: int, created: float) -> None:
        owner, target = self.canonical(created)
        draft = self.draft_duplicate(number, created, owner.full_name, target, owner.drafts[target])
        if owner is self:
            self.canonicals.append(target)
        self.close_as_duplicate(draft, D.Ref(owner.full_name, target, self.full_name))

    def draft_duplicate(
        self, number: int, created: float, owner: str, target: int, original: Reported
    ) -> Draft:
        """A new report of `original` in other words, with the truth recorded; closing it is
        the caller's."""
        topic = self.retold(original.topic)
        draft = self.new_draft(number, created, topic)
        vague, terse = self.retelling_rates(created)
        if self.rng.random() < vague:
            self.retell_vaguely(draft)
        elif terse and self.rng.random() < terse:
            draft.body = T.terse_body(self.rng, draft.topic)
        for _ in range(4):  # another reporter rarely picks the very same title
            if draft.title != original.title:
                break
            draft.title = T.title(self.rng, topic)
        draft.labels.append("bug" if topic.kind == "bug" else "enhancement")
        self.truth[number] = (owner, target)
        return draft

    def retold(self, topic: T.Topic) -> T.Topic:
        """The topic of a new report of `topic`'s problem."""
        return T.reword(self.rng, topic, self.cfg.retelling)

    def retell_vaguely(self, draft: Draft) -> None:
        """The report of someone who describes the problem in their own words."""
        draft.title = T.vague_title(self.rng, draft.topic)
        draft.body = T.vague_body(self.rng, draft.topic)

    def close_as_duplicate(self, draft: Draft, ref: D.Ref) -> None:
        """Close `draft` as a duplicate of `ref`, with evidence of one of several shapes."""
        rng = self.rng
        t = self.later(draft.created, 3)
        closer = self.member() if rng.random() < 0.9 else self.commenter()
        how = rng.choices(tuple(EVIDENCE), weights=self.evidence_weights(draft.created))[0]
        if how == "ui" and t < DUPLICATE_REASON_SINCE:
            how = "marked"  # closing "as duplicate" in the UI only exists since late 2024
        if how == "bot_closed":
            closer = D.bot_person()
        t = EVIDENCE[how][1](self, draft, ref, t, closer)
        self.evidence[draft.number] = how
        if self.carries_label(how, draft.created):
            draft.label(t + 1, closer, self.dup_label)  # labelled as it is closed
        reason = self.duplicate_reason(t)
        if how == "bot_closed" and t >= DUPLICATE_REASON_SINCE:
            reason = "duplicate"
        draft.close(t + 1, closer, reason)
        if how == "relabelled":  # the relabelling sweep, months later
            draft.unlabel(self.later(t, 120) + 86400, D.sweeper_person(), self.dup_label)

    # Each evidence shape writes comments/events from time `t` and returns when it ended.
    def _marked(self, draft: Draft, ref: D.Ref, t: float, closer: Person) -> float:
        text = (
            D.closing(self.rng, ref)
            if self.rng.random() < 0.3
            else D.render("Duplicate of {short}", ref)
        )
        draft.comment(t, closer, text)
        draft.mark(t, closer, (ref.repo, ref.number))
        return t

    def _phrase(self, draft: Draft, ref: D.Ref, t: float, closer: Person) -> float:
        draft.comment(t, closer, D.closing(self.rng, ref))
        return t

    def _ui(self, draft: Draft, ref: D.Ref, t: float, closer: Person) -> float:
        draft.mark(t, closer, (ref.repo, ref.number))
        return t

    def _label(self, draft: Draft, ref: D.Ref, t: float, closer: Person) -> float:
        if self.rng.random() < 0.6:
            draft.comment(t, closer, self.rng.choice(D.NO_NUMBER))
        return t

    def _retarget(self, draft: Draft, ref: D.Ref, t: float, closer: Person) -> float:
        wrong_number = ref.number + self.rng.choice((-3, -1, 1, 2))
        if wrong_number < 1 or wrong_number == draft.number:
            wrong_number = ref.number + 1 if ref.number + 1 != draft.number else ref.number + 3
        wrong = D.Ref(ref.repo, wrong_number, ref.here)
        draft.comment(t, closer, D.pick(self.rng, D.RETARGET_FIRST, wrong))
        draft.mark(t, closer, (wrong.repo, wrong.number))
        draft.unmark(t + 300, closer, (wrong.repo, wrong.number))
        draft.comment(t + 600, closer, D.pick(self.rng, D.RETARGET_FIX, ref))
        draft.mark(t + 600, closer, (ref.repo, ref.number))
        return t + 600

    def _hedged(self, draft: Draft, ref: D.Ref, t: float, closer: Person) -> float:
        draft.comment(t, self.commenter(), D.pick(self.rng, D.HEDGED, ref))
        t = self.later(t, 2)
        draft.comment(t, closer, D.render("Duplicate of {short}", ref))
        draft.mark(t, closer, (ref.repo, ref.number))
        return t

    def _in_body(self, draft: Draft, ref: D.Ref, t: float, closer: Person) -> float:
        draft.body = D.pick(self.rng, D.HEDGED, ref) + "\n\n" + (draft.body or "")
        draft.comment(t, closer, self.rng.choice(D.CONFIRM))
        return t


Evidence = Callable[[RepoBuilder, Draft, D.Ref, float, Person], float]
# shape -> (weight, writer): how often each kind of duplicate evidence appears.
EVIDENCE: dict[str, tuple[int, Evidence]] = {
    "marked": (30, RepoBuilder._marked),
    "phrase": (27, RepoBuilder._phrase),
    "ui": (12, RepoBuilder._ui),
    "label": (5, RepoBuilder._label),
    "retarget": (6, RepoBuilder._retarget),
    "hedged": (12, RepoBuilder._hedged),
    "in_body": (5, RepoBuilder._in_body),
    # today's GitHub (issue 13): a label plus a pointer, new phrasings, a confirmed question, a
    # triage bot
    "label_pointer": (5, D.label_pointer),
    "modern_phrase": (6, D.modern_phrase),
    "question_confirmed": (3, D.question_confirmed),
    "bot_closed": (2, D.bot_closed),
    # today's GitHub (issue 22): a duplicate label only the history keeps
    "relabelled": (3, D.relabelled),
}


def _closing_reason(rng: random.Random, t: float) -> str | None:
    if t >= DUPLICATE_REASON_SINCE:
        return "duplicate"
    if t >= NOT_PLANNED_SINCE:
        return rng.choice(("not_planned", "completed"))
    return None


def _transfer(rng: random.Random, cfg: WorldConfig, builders: list[RepoBuilder]) -> None:
    """Move a few plain issues to the next repository: the old number answers 301."""
    if len(builders) < 2:
        return
    referenced = {ref for b in builders for ref in b.truth.values()}
    for index, source in enumerate(builders):
        target = builders[(index + 1) % len(builders)]
        movable = [
            k
            for k, d in source.drafts.items()
            if not d.is_pr and k not in source.truth and (source.full_name, k) not in referenced
        ]
        for number in rng.sample(
            movable, k=min(len(movable), round(len(source.drafts) * cfg.transfer_rate))
        ):
            draft = source.drafts.pop(number)
            new_number = max(target.drafts) + 1
            draft.number = new_number
            target.drafts[new_number] = draft
            target.transferred_in.add(new_number)
            source.transferred[number] = (target.full_name, new_number)


def _remove(rng: random.Random, cfg: WorldConfig, builder: RepoBuilder, repo: RepoData) -> None:
    """Delete a few issues (404) and make a few gone (410); canonicals may vanish too."""
    repo.transferred.update(builder.transferred)
    numbers = sorted(set(builder.drafts) - builder.transferred_in)
    deleted = rng.sample(numbers, k=round(len(numbers) * cfg.deleted_rate))
    remaining = sorted(set(numbers) - set(deleted))
    gone = rng.sample(remaining, k=round(len(numbers) * cfg.gone_rate))
    for number in deleted:
        builder.drafts.pop(number)
        repo.deleted.add(number)
    for number in gone:
        builder.drafts.pop(number)
        repo.gone.add(number)
    for number in [*deleted, *gone]:
        builder.truth.pop(number, None)
