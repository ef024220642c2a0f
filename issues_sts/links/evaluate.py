"""Precision and recall of the link stage on the project's annotated rust threads.

The annotation file (`data/annotations/rust_duplicates.csv`: repo, number, category,
canonical_repo, canonical_number, note) says, per thread, whether it is a duplicate and
of what. The stage runs on the whole rust archive (loaded as a crawl store) and each
annotated thread's *claimed canonical* is compared with the annotation. The claim is the
thread's canonical link before the dataset's store policies (a pull-request or
uncrawled target is still a correct reading of the thread).

    TP  duplicate with a known canonical, claimed canonical equal to it
    FP  a claimed canonical that is wrong: on a hard negative, on a duplicate whose
        canonical the thread never names, or a different target (also an FN)
    FN  duplicate with a known canonical and no (or a wrong) claim

precision = TP / (TP + FP), recall = TP / (duplicates with a known canonical).
Run: `issues-sts links evaluate` or `python -m issues_sts.links.evaluate`.
"""

from __future__ import annotations

import csv
import sys
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from issues_sts.errors import ConfigError
from issues_sts.links.archive import RUST_REPO_ALIASES, default_archive_path, load_rust_archive
from issues_sts.links.model import LinkConfig
from issues_sts.links.stage import LinkTable, build_links

DEFAULT_ANNOTATIONS = Path("data/annotations/rust_duplicates.csv")
DEFAULT_CACHE = Path("data/cache/rust-archive-store")
# Exclusions that judge the dataset policy, not the reading of the thread.
STORE_REASONS = ("source_is_pull_request", "target_is_pull_request", "target_missing")
CATEGORIES = ("duplicate", "hard_negative")

Key = tuple[str, int]


@dataclass(frozen=True)
class Annotation:
    repo: str
    number: int
    category: str
    canonical: Key | None
    note: str


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
        return {"precision": precision, "recall": recall, "tp": tp, "fp": fp, "fn": len(self.fn),
                "tn": self.tn, "positives": positives, "unknown_target": self.unknown_target}


def _alias(repo: str) -> str:
    aliases = {old.lower(): new for old, new in RUST_REPO_ALIASES}
    return aliases.get(repo.lower(), repo)


def read_annotations(path: Path) -> list[Annotation]:
    """Parse and validate the annotation CSV; bad rows are a one-line ConfigError."""
    if not path.is_file():
        raise ConfigError(f"no annotation file at {path}", hint="pass --annotations PATH")
    out = []
    with path.open(newline="", encoding="utf-8") as fh:
        for line, row in enumerate(csv.DictReader(fh), start=2):
            try:
                category = row["category"].strip()
                if category not in CATEGORIES:
                    raise ValueError(f"category {category!r} is not one of {CATEGORIES}")
                number = (row.get("canonical_number") or "").strip()
                canonical = (_alias(row["canonical_repo"].strip() or row["repo"]), int(number)) if number else None
                out.append(Annotation(_alias(row["repo"].strip()), int(row["number"]), category, canonical,
                                      (row.get("note") or "").strip()))
            except (KeyError, ValueError) as exc:
                raise ConfigError(f"{path}:{line}: bad annotation row ({exc})",
                                  hint="columns: repo,number,category,canonical_repo,canonical_number,note") from None
    return out


def claimed_canonicals(table: LinkTable) -> dict[Key, Key]:
    """Per source thread, the canonical its reading claims (store policies not applied)."""
    claims = table.links.filter(
        pl.col("excluded_reason").is_null() | pl.col("excluded_reason").is_in(list(STORE_REASONS))
    ).sort("repo", "number", "confidence", descending=[False, False, True])
    out: dict[Key, Key] = {}
    for repo, number, t_repo, t_number in claims.select("repo", "number", "target_repo", "target_number").iter_rows():
        out.setdefault((repo, number), (t_repo, t_number))
    return out


def score(annotations: list[Annotation], claimed: dict[Key, Key]) -> Evaluation:
    ev = Evaluation()
    for ann in annotations:
        got = claimed.get((ann.repo, ann.number))
        got_n = got[1] if got else None
        if ann.category == "hard_negative" or ann.canonical is None:
            ev.unknown_target += ann.category == "duplicate"
            if got is None:
                ev.tn += 1
            else:
                ev.fp.append((ann.number, None, got[1]))
        elif got == ann.canonical:
            ev.tp.append(ann.number)
        else:
            ev.fn.append((ann.number, ann.canonical[1], got_n))
            if got is not None:
                ev.fp.append((ann.number, ann.canonical[1], got[1]))
    return ev


def evaluate(annotations_path: Path, archive: Path, cache: Path, cfg: LinkConfig | None = None) -> Evaluation:
    """Load the archive (cached), run the link stage, score it against the annotations."""
    annotations = read_annotations(annotations_path)
    cfg = cfg or LinkConfig(repo_aliases=RUST_REPO_ALIASES)
    with load_rust_archive(archive, cache) as store:
        table = build_links(store, cfg)
    ev = score(annotations, claimed_canonicals(table))
    ev.counted = {"annotations": len(annotations), "threads_with_claims": len(claimed_canonicals(table))}
    return ev


def report_lines(ev: Evaluation) -> list[str]:
    """Numbers and ids only: never text from the threads."""
    m = ev.metrics()
    lines = [
        f"annotated threads: {ev.counted.get('annotations', 0)}  positives with a known canonical: {m['positives']}"
        f"  duplicates without a named canonical: {m['unknown_target']}",
        f"precision {m['precision']:.4f}  recall {m['recall']:.4f}  "
        f"(TP {m['tp']}  FP {m['fp']}  FN {m['fn']}  TN {m['tn']})",
    ]
    lines += [f"  FP #{n}: annotated {true if true is not None else '-'} claimed {got}" for n, true, got in ev.fp]
    lines += [f"  FN #{n}: annotated {true} claimed {got if got is not None else '-'}" for n, true, got in ev.fn]
    return lines


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    annotations = Path(args[0]) if args else DEFAULT_ANNOTATIONS
    ev = evaluate(annotations, default_archive_path(), DEFAULT_CACHE)
    print("\n".join(report_lines(ev)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
