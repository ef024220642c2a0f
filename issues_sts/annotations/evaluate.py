"""Precision and recall of the link stage on the project's annotated threads (`labels`).

The stage runs on the whole archive the threads come from (`archives.load_archive`) and each
annotated thread's *claimed canonical* is compared with the annotation.

The claim is the canonical the thread's own reading chose, before the dataset's store
policies: extraction quality is about the link, not about dataset usability, so a link
to the right target counts even when the dataset excludes it (the source or the target
is a pull request, the target was never crawled). When the store excludes a thread's
canonical the stage may promote another candidate to a usable link; the claim stays the
thread's own canonical.

Counting, per annotated thread:

    duplicate, canonical named     claim == canonical -> TP; no claim -> FN;
                                   another claim -> FP and FN (a wrong link and a miss)
    duplicate, no canonical named  ("no-target": the thread never names one; never guess)
                                   no claim -> TN; any claim -> FP
    hard_negative                  no claim -> TN; any claim -> FP

precision = TP / (TP + FP), recall = TP / (duplicates with a named canonical): the issue's
"links with an explicit target". Every run reports dev, test and all, each with and without
the rows tagged `ambiguous` (a careful reader could label them the other way).
Run: `issues-sts links evaluate [--subset dev|test|all]`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from issues_sts.annotations.archives import Loader, load_archive
from issues_sts.annotations.labels import (
    CATEGORIES,
    SUBSETS,
    Annotation,
    Key,
    annotation_key,
    archive_of,
    fold_key,
    read_annotations,
    select,
)
from issues_sts.errors import ConfigError
from issues_sts.evidence import (
    DUPLICATE_STATE_REASON,
    KEYWORD_LINE,
    is_duplicate_label,
    labels_say_duplicate,
    says_duplicate,
)
from issues_sts.links import LinkConfig, LinkTable, build_links
from issues_sts.store import Store

# What GitHub (or its users) said about a thread, by kind: the strata "per signal kind".
SIGNAL_KINDS = ("event", "keyword", "label", "state_reason", "wording", "none")
# Note tags reported as strata when at least this many rows carry them.
MIN_STRATUM = 5
# Exclusions that judge the dataset policy, not the reading of the thread.
STORE_REASONS = ("source_is_pull_request", "target_is_pull_request", "target_missing")


@dataclass
class Evaluation:
    tp: list[int] = field(default_factory=list)
    fp: list[tuple[int, int | None, int]] = field(default_factory=list)  # (number, true, claimed)
    fn: list[tuple[int, int, int | None]] = field(default_factory=list)  # (number, true, claimed)
    tn: int = 0
    unknown_target: int = 0  # annotated duplicates whose thread names no canonical
    counted: dict[str, int] = field(default_factory=dict)

    def metrics(self) -> dict[str, float]:
        tp, fp = len(self.tp), len(self.fp)
        positives = tp + len(self.fn)
        precision = tp / (tp + fp) if tp + fp else 1.0
        recall = tp / positives if positives else 1.0
        p_low, p_high = wilson(tp, tp + fp)
        r_low, r_high = wilson(tp, positives)
        return {
            "precision": precision,
            "recall": recall,
            "precision_low": p_low,
            "precision_high": p_high,
            "recall_low": r_low,
            "recall_high": r_high,
            "tp": tp,
            "fp": fp,
            "fn": len(self.fn),
            "tn": self.tn,
            "positives": positives,
            "unknown_target": self.unknown_target,
            "rows": tp + len(self.fn) + self.tn + len([f for f in self.fp if f[1] is None]),
        }


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion: with a hundred-odd annotated links a
    point estimate alone overstates what the sample can tell (0/0 -> the whole range)."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = (
        z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    )
    return max(0.0, centre - half), min(1.0, centre + half)


def claimed_canonicals(table: LinkTable) -> dict[Key, Key]:
    """Per source thread, the canonical its own reading chose (store policies not applied).

    A row excluded by a store reason is always that thread's own canonical; a usable row of
    the same thread is then a candidate the stage promoted in its place, not the claim.
    """
    claims = table.links.filter(
        pl.col("excluded_reason").is_null() | pl.col("excluded_reason").is_in(list(STORE_REASONS))
    ).sort("repo", "number", pl.col("excluded_reason").is_null(), descending=[False, False, False])
    out: dict[Key, Key] = {}
    for repo, number, t_repo, t_number in claims.select(
        "repo", "number", "target_repo", "target_number"
    ).iter_rows():
        out.setdefault((repo, number), (t_repo, t_number))
    return out


def _judged(
    annotations: list[Annotation], claimed: dict[Key, Key]
) -> Iterator[tuple[Annotation, Key | None, bool]]:
    """Each row with the canonical claimed for its thread and whether that claim is right (no
    claim is right only where no target was labelled)."""
    folded = {fold_key(k): v for k, v in claimed.items()}
    for ann in annotations:
        got = folded.get(fold_key((ann.repo, ann.number)))
        if ann.category == "hard_negative" or ann.canonical is None:
            yield ann, got, got is None
        else:
            yield ann, got, fold_key(got) == fold_key(ann.canonical)


def score(annotations: list[Annotation], claimed: dict[Key, Key]) -> Evaluation:
    """Count TP/FP/FN/TN as the module docstring says."""
    ev = Evaluation()
    for ann, got, right in _judged(annotations, claimed):
        labelled = ann.canonical[1] if ann.category != "hard_negative" and ann.canonical else None
        if labelled is None:
            ev.unknown_target += ann.category == "duplicate"
        if right:
            if labelled is None:
                ev.tn += 1
            else:
                ev.tp.append(ann.number)
            continue
        if labelled is not None:
            ev.fn.append((ann.number, labelled, got[1] if got else None))
        if got is not None:
            ev.fp.append((ann.number, labelled, got[1]))
    return ev


@dataclass(frozen=True)
class Error:
    """One row `score` counts wrong: a false link, or a miss (a wrong target is both)."""

    kind: str  # "wrong link" | "miss"
    annotation: Annotation
    claimed: Key | None


def errors(annotations: list[Annotation], claimed: dict[Key, Key]) -> list[Error]:
    """The rows behind `score`'s FP and FN, with their repositories (its lists keep numbers):
    the wrong links first, then the misses."""
    wrong = [(ann, got) for ann, got, right in _judged(annotations, claimed) if not right]
    return [Error("wrong link", ann, got) for ann, got in wrong if got is not None] + [
        Error("miss", ann, got)
        for ann, got in wrong
        if ann.category != "hard_negative" and ann.canonical is not None
    ]


@dataclass(frozen=True)
class Results:
    """The annotations and the stage's claims: score any subset without re-running.
    `signals`: each annotated thread's signal kinds (`SIGNAL_KINDS`) as its store holds them."""

    annotations: list[Annotation]
    claimed: dict[Key, Key]
    signals: dict[Key, frozenset[str]] = field(default_factory=dict)

    def by_signal(self, subset: str = "all") -> dict[str, dict[str, float]]:
        """Metrics of the rows of each signal kind (a row can be of several)."""
        rows = select(self.annotations, subset)
        out = {}
        for kind in SIGNAL_KINDS:
            chosen = [a for a in rows if kind in self.signals.get(annotation_key(a), frozenset())]
            if chosen:
                out[kind] = score(chosen, self.claimed).metrics()
        return out

    def scores(self, subset: str = "all", *, ambiguous: bool = True) -> Evaluation:
        rows = select(self.annotations, subset, ambiguous=ambiguous)
        ev = score(rows, self.claimed)
        ev.counted = {"annotations": len(rows)}
        return ev

    def by_round(self) -> dict[str, dict[str, float]]:
        """Metrics per annotation round (all rows of each)."""
        # "2" before "10", "onnx-1" before "onnx-2": numbers inside names compare as numbers
        rounds = sorted(
            {a.round for a in self.annotations if a.round},
            key=lambda r: [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", r)],
        )
        return {
            r: score([a for a in self.annotations if a.round == r], self.claimed).metrics()
            for r in rounds
        }

    def strata(self, subset: str = "all") -> dict[str, dict[str, float]]:
        """Metrics of the rows carrying each note tag (the hard cases: hedged, label-pointer,
        bot-suggestion...), for tags on at least MIN_STRATUM rows of `subset`."""
        rows = select(self.annotations, subset)
        tags: dict[str, int] = {}
        for a in rows:
            for tag in a.tags:
                tags[tag] = tags.get(tag, 0) + 1
        chosen = sorted(
            (t for t, n in tags.items() if n >= MIN_STRATUM), key=lambda t: (-tags[t], t)
        )
        return {t: score([a for a in rows if t in a.tags], self.claimed).metrics() for t in chosen}

    def table(self) -> dict[str, dict[str, dict[str, float]]]:
        """metrics[subset]["with_ambiguous" | "without_ambiguous"] for dev, test and all."""
        return {
            name: {
                "with_ambiguous": self.scores(name).metrics(),
                "without_ambiguous": self.scores(name, ambiguous=False).metrics(),
            }
            for name in SUBSETS
        }


@dataclass(frozen=True)
class Agreement:
    """Two readers of the same threads: how often they agree, and each scored against the
    other as if it were the extractor (the ceiling an extractor can be measured against)."""

    threads: int
    category: int  # same duplicate/hard_negative call
    link: int  # same call and, for duplicates, the same canonical
    kappa: float  # Cohen's kappa of the category call
    second_vs_first: dict[str, float]  # metrics of reader 2 scored against reader 1


def _link_of(a: Annotation) -> Key | None:
    return fold_key(a.canonical) if a.category == "duplicate" and a.canonical is not None else None


def agreement(first: list[Annotation], second: list[Annotation]) -> Agreement:
    """Compare two readings over the threads both read."""
    one = {(a.repo.lower(), a.number): a for a in first}
    pairs = [
        (one[(b.repo.lower(), b.number)], b) for b in second if (b.repo.lower(), b.number) in one
    ]
    if not pairs:
        raise ConfigError(
            "the two annotation files share no thread", hint="compare readings of the same threads"
        )
    n = len(pairs)
    same = sum(a.category == b.category for a, b in pairs)
    linked = sum(a.category == b.category and _link_of(a) == _link_of(b) for a, b in pairs)
    expected = sum(
        sum(a.category == c for a, _ in pairs) * sum(b.category == c for _, b in pairs)
        for c in CATEGORIES
    ) / (n * n)
    kappa = (same / n - expected) / (1 - expected) if expected < 1 else 1.0
    claims = {
        (b.repo, b.number): b.canonical
        for _, b in pairs
        if b.category == "duplicate" and b.canonical
    }
    return Agreement(n, same, linked, kappa, score([a for a, _ in pairs], claims).metrics())


def evaluate(
    annotations_path: Path,
    archive: Path | None = None,
    cache: Path | None = None,
    cfg: LinkConfig | None = None,
    loaders: Mapping[str, Loader] | None = None,
) -> Results:
    """Load the archive the annotations come from (cached), run the link stage, keep its
    claims for scoring. `loaders` adds ways to load an archive: the modern neovim rounds are
    scored on a GraphQL crawl of their archive served as github.com serves it (the CLI passes
    the sandbox's `crawl_archive_store`)."""
    annotations = read_annotations(annotations_path)
    with load_archive(archive_of(annotations), archive, cache, loaders=loaders) as store:
        table = build_links(store, cfg or LinkConfig())
        signals = signal_kinds(store, [(a.repo, a.number) for a in annotations])
    return Results(annotations, claimed_canonicals(table), signals)


def signal_kinds(store: Store, keys: list[Key]) -> dict[Key, frozenset[str]]:
    """What each thread's store holds that says "duplicate": a duplicate event about it, GitHub's
    "Duplicate of" keyword in a comment, a duplicate label (now or in its history),
    `state_reason: duplicate`, other duplicate wording, or none of these."""
    wanted = {fold_key(k) for k in keys}
    found: dict[Key, set[str]] = {k: set() for k in wanted if k is not None}

    def add(repo: str, number: int, kind: str) -> None:
        key = fold_key((repo, number))
        if key in found:
            found[key].add(kind)

    keys_frame = pl.DataFrame(
        {"_r": [k[0] for k in found], "number": [k[1] for k in found]},
        schema={"_r": pl.Utf8, "number": pl.Int64},
    )

    def only_wanted(frame: pl.DataFrame, number: str = "number") -> pl.DataFrame:
        return (
            frame.with_columns(pl.col("repo").str.to_lowercase().alias("_r"))
            .join(keys_frame, left_on=["_r", number], right_on=["_r", "number"], how="semi")
            .drop("_r")
        )

    issues = only_wanted(store.issues_frame())
    for repo, number, labels, reason, body in issues.select(
        "repo", "number", "labels", "state_reason", "body"
    ).iter_rows():
        if (reason or "").lower() == DUPLICATE_STATE_REASON:
            add(repo, number, "state_reason")
        if labels_say_duplicate(list(labels or ())):
            add(repo, number, "label")
        if says_duplicate(body):
            add(repo, number, "wording")
    comments = only_wanted(store.comments_frame())
    for repo, number, body in comments.select("repo", "number", "body").iter_rows():
        if body:
            if KEYWORD_LINE.search(body):
                add(repo, number, "keyword")
            elif says_duplicate(body):
                add(repo, number, "wording")
    events = store.events_frame().with_columns(
        pl.coalesce("duplicate_number", "number").alias("_about")
    )
    for row in only_wanted(events, "_about").iter_rows(named=True):
        number = row["_about"]
        if "marked_as_duplicate" in row["event"] and row["canonical_number"] is not None:
            add(row["repo"], number, "event")
        elif row["event"] == "labeled" and is_duplicate_label(row["label"] or ""):
            add(row["repo"], number, "label")
    return {k: frozenset(v or {"none"}) for k, v in found.items()}


def _metric_line(label: str, m: dict[str, float]) -> str:
    return (
        f"{label:<29} {int(m['rows']):>4} {m['precision']:>9.4f} {m['recall']:>7.4f}  "
        f"{int(m['tp']):>3} {int(m['fp']):>3} {int(m['fn']):>3} {int(m['tn']):>3}"
        f"   [{m['precision_low']:.3f}, {m['precision_high']:.3f}]   [{m['recall_low']:.3f}, "
        f"{m['recall_high']:.3f}]"
    )


def rounds_and_strata_lines(results: Results) -> list[str]:
    """Per annotation round, per signal kind, then per hard-case note tag (all rows), with 95 %
    intervals."""
    lines = [_metric_line(f"round {name}", m) for name, m in results.by_round().items()]
    lines += [_metric_line(f"signal {kind}", m) for kind, m in results.by_signal().items()]
    lines += [_metric_line(f"tag {tag}", m) for tag, m in results.strata().items()]
    return lines


def summary_lines(results: Results) -> list[str]:
    lines = [
        f"{'subset':<6} {'rows':<22} {'n':>4} {'precision':>9} {'recall':>7}   TP  FP  FN  TN"
        "   precision 95% CI   recall 95% CI"
    ]
    for name, both in results.table().items():
        for which, m in both.items():
            rows = "all rows" if which == "with_ambiguous" else "without ambiguous"
            lines.append(
                f"{name:<6} {rows:<22} {int(m['rows']):>4} {m['precision']:>9.4f} "
                f"{m['recall']:>7.4f}  {int(m['tp']):>3} {int(m['fp']):>3} {int(m['fn']):>3} "
                f"{int(m['tn']):>3}   [{m['precision_low']:.3f}, {m['precision_high']:.3f}]   "
                f"[{m['recall_low']:.3f}, {m['recall_high']:.3f}]"
            )
    return lines


def report_lines(ev: Evaluation) -> list[str]:
    """Numbers and ids only: never text from the threads."""
    m = ev.metrics()
    lines = [
        f"annotated threads: {ev.counted.get('annotations', 0)}  positives with a known canonical: "
        f"{m['positives']}  duplicates without a named canonical: {m['unknown_target']}",
        f"precision {m['precision']:.4f}  recall {m['recall']:.4f}  "
        f"(TP {m['tp']}  FP {m['fp']}  FN {m['fn']}  TN {m['tn']})",
    ]
    lines += [
        f"  FP #{n}: annotated {true if true is not None else '-'} claimed {got}"
        for n, true, got in ev.fp
    ]
    lines += [
        f"  FN #{n}: annotated {true} claimed {got if got is not None else '-'}"
        for n, true, got in ev.fn
    ]
    return lines
