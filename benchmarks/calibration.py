"""Is the paper world like real threads? The figures that drive the build's cost and the
dataset's quality, measured in the real archives of ../shared/data and in the generated paper
world over the same years, side by side, each with a stated tolerance.

    .venv/bin/python -m benchmarks.calibration                     # all three archives
    .venv/bin/python -m benchmarks.calibration --scale 0.05 --json calibration.json

Each real archive is compared with the paper world's items created in the same years (the
era its habits are calibrated on, `issues_sts.sandbox.worlds.eras`):

- rust-lang/rust 2010-2015 (`rust-issue-archive`), the world's `early` era;
- microsoft/onnxruntime 2018-2023 (`onnxruntime-issue-archive`), the `templates` era;
- neovim 2024-2026 (`neovim-issue-archive`), the `forms` era. The backup behind this archive
  began in mid-2023 and keeps older issues only when they were touched later, so its older
  years are a biased sample and are left out.

A figure holds when the generated value is within max(rel x real, abs) of the real one. A
figure a source cannot show is "n/a" (the rust archive keeps no events, the onnxruntime and
neovim archives no pull-request comments) and is not compared; the share of pull requests is
a per-repository estimate (`PaperRepo.pr_share`), so it is compared only for rust-lang/rust,
the one repository of the paper's 55 that has an archive here. Every figure is computed by
`benchmarks.figures` the same way for both sides. Archives that are absent are skipped with a
message; the exit status is 1 when a compared figure does not hold.

Duplicate difficulty (`benchmarks.difficulty`: the canonical's BM25 rank among earlier issues,
the untrained backbone's cosine) is compared on the archives' annotated duplicates: the paper
world's duplicates of 2018-2023 against onnxruntime's and of 2024-2026 against neovim's (its
modern eras; its early era is shown, not compared), and the demo world's against the three
archives' pairs pooled. `--no-difficulty` skips it (it embeds a few thousand texts).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from benchmarks import difficulty as DF
from benchmarks import figures as F


@dataclass(frozen=True)
class Window:
    """A real archive and the years of it that are compared."""

    name: str
    folder: str  # under ../shared/data
    first: int
    last: int
    reader: Callable[[Path], Iterator[F.Item]]
    files: tuple[str, ...]
    repo: str | None = None  # the paper's repository it is, if it is one


WINDOWS = (
    Window(
        "rust",
        "rust-issue-archive",
        2010,
        2015,
        F.rust_items,
        ("main.jsonl.gz", "comments.jsonl.gz"),
        "rust-lang/rust",
    ),
    Window(
        "onnxruntime",
        "onnxruntime-issue-archive",
        2018,
        2023,
        F.onnx_items,
        ("issues.jsonl.gz", "threads.jsonl.gz"),
    ),
    Window(
        "neovim",
        "neovim-issue-archive",
        2024,
        2026,
        F.neovim_items,
        ("issues.jsonl.gz", "threads.jsonl.gz"),
    ),
)


@dataclass(frozen=True)
class Tolerance:
    rel: float
    abs: float

    def holds(self, real: float, generated: float) -> bool:
        return abs(generated - real) <= max(self.rel * abs(real), self.abs)

    def __str__(self) -> str:
        parts = ([f"±{self.rel:.0%}"] if self.rel else []) + (
            [f"±{self.abs:g}"] if self.abs else []
        )
        return " or ".join(parts)


def _quantiles(name: str, p50: float, p90: float, p99: float) -> list[tuple[str, Tolerance]]:
    return [
        (f"{name}_p50", Tolerance(p50, 1.0 if "comments_per" in name else 0.0)),
        (f"{name}_p90", Tolerance(p90, 0.0)),
        (f"{name}_p99", Tolerance(p99, 0.0)),
        (f"{name}_mean", Tolerance(0.15, 0.0)),
    ]


# Each figure and its tolerance: rel (of the real value) or abs, whichever is wider. Quantiles
# of long-tailed lengths get more room the further out they are; shares of rare events get an
# absolute floor (a few per thousand issues is within sampling noise of a small window).
FIGURES: tuple[tuple[str, Tolerance], ...] = (
    ("pr_share", Tolerance(0.0, 0.08)),
    *_quantiles("comments_per_issue", 0.0, 0.25, 0.35),
    *_quantiles("comments_per_pr", 0.0, 0.25, 0.35),
    ("pr_bot_comment_share", Tolerance(0.0, 0.05)),
    *_quantiles("body_chars", 0.2, 0.2, 0.35),
    *_quantiles("comment_chars", 0.2, 0.2, 0.35),
    ("empty_body_share", Tolerance(0.0, 0.01)),
    ("cued_thread_share", Tolerance(0.0, 0.05)),
    ("cued_comment_share", Tolerance(0.0, 0.025)),
    ("refs_per_comment", Tolerance(0.2, 0.0)),
    ("bot_comment_share", Tolerance(0.0, 0.01)),
    ("labelled_share", Tolerance(0.0, 0.05)),
    ("closed_share", Tolerance(0.0, 0.05)),
    ("duplicate_evidence_share", Tolerance(0.25, 0.005)),
    ("linked_share", Tolerance(0.25, 0.005)),
    *((f"evidence_{kind}_share", Tolerance(0.35, 0.005)) for kind in F.EVIDENCE_KINDS),
    *(
        (f"closed_reason_{reason}_share", Tolerance(0.0, 0.05))
        for reason in ("completed", "not_planned", "duplicate", "None")
    ),
    # ids pass 2^31 inside a window (events early in 2019, issues and comments in 2024): the
    # share above depends on when in the window items fall, an estimate for the world (each
    # repository's items are spread evenly over its years), hence the room
    *(
        (f"{kind}_ids_over_int32_share", Tolerance(0.0, 0.2))
        for kind in ("issue", "comment", "event")
    ),
)


# Duplicate difficulty: shares and cosines get absolute room (a few hundred pairs a side: a share's
# sampling error is about 0.025, so about 3 of them either way); ranks a rank either way. The
# three archives themselves differ by up to 0.02 (rank 1 in 100), 0.07 (top 10), 0.08 (cosine
# quantiles), 0.05 (random pairs' cosine) and 0.03 (cosine AUC): each room is about that spread;
# the room for rank 1 is under twice the sampling error of onnxruntime's 78 pairs (0.055).
DIFFICULTY: tuple[tuple[str, Tolerance], ...] = (
    ("bm25_pool_rank1_share", Tolerance(0.0, 0.1)),
    ("bm25_pool_top10_share", Tolerance(0.0, 0.08)),
    ("bm25_pool_median_rank", Tolerance(0.0, 1.0)),
    ("cosine_dup_p25", Tolerance(0.0, 0.1)),
    ("cosine_dup_p50", Tolerance(0.0, 0.1)),
    ("cosine_dup_p75", Tolerance(0.0, 0.1)),
    ("cosine_random_p50", Tolerance(0.0, 0.1)),
    ("cosine_gap_p50", Tolerance(0.0, 0.1)),
    ("cosine_auc", Tolerance(0.0, 0.05)),
)
SHOWN = (
    "pairs",
    "pairs_in_pool",
    "candidates_p50",
    "bm25_full_rank1_share",
    "bm25_full_top10_share",
)
# the paper world's years compared with each archive's duplicates (None: shown, not compared)
DIFFICULTY_YEARS = {"rust": None, "onnxruntime": (2018, 2023), "neovim": (2024, 2026)}


def _default_shared() -> Path:
    root = Path(__file__).resolve().parents[1]
    return Path(os.environ.get("ISSUES_STS_SHARED", root.parent / "shared")) / "data"


def measure_real(window: Window, root: Path) -> dict[str, float]:
    tally = F.Tally()
    for it in window.reader(root):
        if window.first <= it.year <= window.last:
            tally.add(it)
    return tally.figures()


def measure_generated(
    scale: float, seed: int, windows: tuple[Window, ...]
) -> dict[str, dict[str, float]]:
    """The paper world's figures per window, and per window's own repository (its pr_share)."""
    from issues_sts.sandbox.worlds.paper import PaperConfig

    tallies = {w.name: F.Tally() for w in windows}
    own = {w.name: F.Tally() for w in windows if w.repo}
    for it in F.paper_items(PaperConfig(seed=seed, scale=scale, github_ids=True)):
        for w in windows:
            if w.first <= it.year <= w.last:
                tallies[w.name].add(it)
                if w.repo == it.repo:
                    own[w.name].add(it)
    out = {name: t.figures() for name, t in tallies.items()}
    for name, t in own.items():
        out[name]["pr_share"] = t.figures()["pr_share"]
    return out


@dataclass(frozen=True)
class Row:
    figure: str
    real: float
    generated: float
    tolerance: Tolerance | None  # None: not compared
    holds: bool | None
    note: str = ""


def compare(window: Window, real: dict[str, float], generated: dict[str, float]) -> list[Row]:
    rows = [Row(k, real[k], generated[k], None, None, "count") for k in ("items", "issues")]
    for name, tol in FIGURES:
        r, g = real[name], generated[name]
        if name == "pr_share" and window.repo is None:
            rows.append(Row(name, r, g, None, None, "per-repository estimate: not one of the 55"))
        elif math.isnan(r) or math.isnan(g):
            rows.append(Row(name, r, g, None, None, "n/a: not in the source"))
        else:
            note = f"generated: {window.repo} only" if name == "pr_share" else ""
            rows.append(Row(name, r, g, tol, tol.holds(r, g), note))
    return rows


def compare_difficulty(
    real: dict[str, float], generated: dict[str, float], compared: bool = True
) -> list[Row]:
    """Duplicate difficulty, real beside generated (`compared` False: shown only)."""
    rows = [Row(k, real[k], generated[k], None, None, "shown") for k in SHOWN]
    for name, tol in DIFFICULTY:
        r, g = real[name], generated[name]
        if not compared or math.isnan(r) or math.isnan(g):
            rows.append(Row(name, r, g, None, None, "not compared"))
        else:
            rows.append(Row(name, r, g, tol, tol.holds(r, g)))
    return rows


def measure_difficulty(
    present: tuple[Window, ...], shared: Path, scale: float, seed: int
) -> list[tuple[str, list[Row]]]:
    """(title, rows) per comparison: each archive against the paper world's years, then the
    demo world against the archives pooled."""
    real = {w.name: DF.measure(DF.real_source(w.name, shared)) for w in present}
    world = DF.paper_source(scale, seed)
    tables = []
    for w in present:
        years = DIFFICULTY_YEARS[w.name]
        span = years or (w.first, w.last)
        paper = DF.measure(DF.within(world, span))
        tables.append(
            (
                f"duplicate difficulty: {w.name}'s annotated duplicates against the paper world "
                f"x{scale:g}'s of {span[0]}-{span[1]}",
                compare_difficulty(DF.figures(real[w.name]), DF.figures(paper), years is not None),
            )
        )
    pooled = sum(real.values(), DF.Measured())
    demo = DF.measure(DF.demo_source(seed))
    tables.append(
        (
            f"duplicate difficulty: the demo world (seed {seed}) against the annotated "
            f"duplicates of {', '.join(real)} pooled",
            compare_difficulty(DF.figures(pooled), DF.figures(demo)),
        )
    )
    return tables


def _fmt(value: float) -> str:
    if math.isnan(value):
        return "n/a"
    if value == int(value) and abs(value) >= 10:
        return f"{int(value):,}"
    return f"{value:.4f}" if abs(value) < 10 else f"{value:,.1f}"


def print_table(window: Window, rows: list[Row]) -> None:
    print_rows(
        f"{window.name} {window.first}-{window.last} (../shared/data/{window.folder}) "
        f"against the paper world's items of {window.first}-{window.last}",
        rows,
    )


def print_rows(title: str, rows: list[Row]) -> None:
    print(f"\n{title}")
    print(f"  {'figure':34} {'real':>14} {'generated':>14}  {'tolerance':>12}  holds")
    for row in rows:
        holds = "-" if row.holds is None else ("yes" if row.holds else "NO")
        tol = str(row.tolerance) if row.tolerance else ""
        note = f"  ({row.note})" if row.note else ""
        print(
            f"  {row.figure:34} {_fmt(row.real):>14} {_fmt(row.generated):>14}  {tol:>12}  "
            f"{holds}{note}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--shared", type=Path, default=_default_shared(), help="../shared/data")
    parser.add_argument(
        "--scale", type=float, default=0.05, help="of the paper world (smaller: noisier shares)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2, help="processes (archives, the world)")
    parser.add_argument("--json", type=Path, help="write every figure here")
    parser.add_argument(
        "--difficulty-scale", type=float, default=0.02, help="of the paper world's difficulty pass"
    )
    parser.add_argument("--no-difficulty", action="store_true", help="skip duplicate difficulty")
    args = parser.parse_args(argv)
    present = []
    for w in WINDOWS:
        missing = [f for f in w.files if not (args.shared / w.folder / f).is_file()]
        if missing:
            print(
                f"skipped {w.name}: {args.shared / w.folder} lacks {', '.join(missing)} "
                "(the third-party archives live in ../shared/data)",
                file=sys.stderr,
            )
        else:
            present.append(w)
    if not present:
        print("no archive to compare with: nothing measured", file=sys.stderr)
        return 0
    start = time.perf_counter()
    with ProcessPoolExecutor(max(1, args.jobs)) as pool:
        world = pool.submit(measure_generated, args.scale, args.seed, tuple(present))
        reals = {w.name: pool.submit(measure_real, w, args.shared / w.folder) for w in present}
        generated = world.result()
        real = {name: f.result() for name, f in reals.items()}
    print(
        f"paper world seed {args.seed} at scale {args.scale:g}; measured in "
        f"{time.perf_counter() - start:.0f} s"
    )
    compared = failed = 0
    report = {}
    for w in present:
        rows = compare(w, real[w.name], generated[w.name])
        print_table(w, rows)
        compared += sum(r.holds is not None for r in rows)
        failed += sum(r.holds is False for r in rows)
        report[w.name] = [r.__dict__ | {"tolerance": str(r.tolerance or "")} for r in rows]
    if not args.no_difficulty:
        for title, rows in measure_difficulty(
            tuple(present), args.shared, args.difficulty_scale, args.seed
        ):
            print_rows(title, rows)
            compared += sum(r.holds is not None for r in rows)
            failed += sum(r.holds is False for r in rows)
            report[title] = [r.__dict__ | {"tolerance": str(r.tolerance or "")} for r in rows]
    print(f"\n{compared - failed} of {compared} compared figures within tolerance")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=str) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
