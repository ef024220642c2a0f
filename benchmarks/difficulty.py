"""How hard a duplicate is to tell from its canonical: the same figures for the real archives'
annotated duplicates and for a generated world's true ones (`benchmarks.calibration` puts them
side by side).

    .venv/bin/python -m benchmarks.difficulty                 # the real archives, the demo world
    .venv/bin/python -m benchmarks.difficulty --paper 0.02    # and the paper world at x0.02

A pair is a duplicate and its canonical in the same repository; the later of the two (by
`created_at`) is the query, the earlier the target, as a maintainer with the new report would
look for the old one. Texts are the dataset's recipe (`issues_sts.dataset.texts.issue_text`);
pull requests are not issues of the dataset and are never candidates.

- **BM25** (the `bm25s` library, English stop words, Snowball stemmer; one index over the
  repository's issues): the target's rank among the query's candidates, ties counted half.
  `bm25_full_*`: candidates are every issue of the repository created strictly before the
  query (the retrieval protocol); their number depends on how big the tracker is, so these are
  shown, not compared. `bm25_pool_*`: candidates are the target and `POOL - 1` other earlier
  issues drawn at random (queries with fewer earlier issues are left out and counted), which
  takes the tracker's size out of the figure: these are compared.
- **Cosine** of the untrained offline backbone (all-MiniLM-L6-v2, mean pooling as training's
  default, `MAX_LENGTH` tokens) between query and target; and between the query and one random
  earlier issue of its repository (a random same-repository pair, what most of a build's
  negatives are). `cosine_auc` is the share of (duplicate, random) pair couples the backbone
  orders right: the untrained backbone's ROC AUC on a balanced set of such pairs.

The real pairs are the annotated duplicates of `data/annotations/<archive>_duplicates.csv`
(category `duplicate` with a canonical in the same repository; labelled by AI assistant
readers, see data/annotations/README.md) whose two issues the archive holds.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import random
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from issues_sts.annotations.archives import archive_lines
from issues_sts.dataset.texts import issue_text

ROOT = Path(__file__).resolve().parents[1]
ANNOTATIONS = ROOT / "data" / "annotations"
POOL = 100  # candidates of the pool-controlled rank: the target and 99 other earlier issues
MAX_LENGTH = 128  # the demo's and the training default's length
MAX_PAIRS = 400  # pairs a figure is measured on (a seeded sample when there are more)


@dataclass(frozen=True)
class Doc:
    number: int
    created_at: str
    text: str


@dataclass
class Source:
    """Issues by repository and the duplicate pairs among them (query later than target)."""

    name: str
    docs: dict[str, dict[int, Doc]] = field(default_factory=dict)
    pairs: list[tuple[str, int, int]] = field(default_factory=list)  # repo, query, target
    dropped: dict[str, int] = field(default_factory=dict)

    def add(self, repo: str, number: int, created_at: str, title: Any, body: Any) -> None:
        text = issue_text(title, body)
        if text:
            self.docs.setdefault(repo, {})[number] = Doc(number, created_at, text)

    def pair(self, repo: str, duplicate: int, canonical: int) -> None:
        docs = self.docs.get(repo, {})
        if duplicate not in docs or canonical not in docs:
            self.dropped["issue_not_in_source"] = self.dropped.get("issue_not_in_source", 0) + 1
            return
        a, b = docs[duplicate], docs[canonical]
        query, target = (a, b) if (a.created_at, a.number) > (b.created_at, b.number) else (b, a)
        self.pairs.append((repo, query.number, target.number))


# -- the sources -------------------------------------------------------------------------------
REAL = {  # archive name -> (folder under ../shared/data, its issues file, default repo)
    "rust": ("rust-issue-archive", "main.jsonl.gz", "rust-lang/rust"),
    "onnxruntime": ("onnxruntime-issue-archive", "issues.jsonl.gz", "microsoft/onnxruntime"),
    "neovim": ("neovim-issue-archive", "issues.jsonl.gz", "neovim/neovim"),
}


def _is_pr(raw: dict[str, Any]) -> bool:
    return bool(raw.get("pull_request")) or (raw.get("_meta") or {}).get("type") == "pr"


def annotated_pairs(name: str) -> Iterator[tuple[str, int, int]]:
    """(repo, duplicate, canonical) of the annotated same-repository duplicates."""
    with open(ANNOTATIONS / f"{name}_duplicates.csv", newline="") as handle:
        for row in csv.DictReader(handle):
            same_repo = row["canonical_repo"] == row["repo"] and row["canonical_number"]
            if row["category"] == "duplicate" and same_repo:
                yield row["repo"], int(row["number"]), int(row["canonical_number"])


def real_source(name: str, shared: Path) -> Source:
    folder, issues, default_repo = REAL[name]
    source = Source(name)
    for raw in archive_lines(shared / folder / issues):
        if not _is_pr(raw):
            repo = str(raw.get("repo") or default_repo)
            source.add(
                repo,
                int(raw["number"]),
                raw.get("created_at") or "",
                raw.get("title"),
                raw.get("body"),
            )
    seen: set[tuple[str, int, int]] = set()
    for repo, dup, canonical in annotated_pairs(name):
        if (repo, dup, canonical) not in seen:  # a thread read in two rounds counts once
            seen.add((repo, dup, canonical))
            source.pair(repo, dup, canonical)
    return source


def _corpus_into(source: Source, repos: Iterable[Any]) -> None:
    """A generated world's issues and its true same-repository duplicates."""
    for data in repos:
        for raw in data.issues:
            if "pull_request" not in raw:
                source.add(
                    data.full_name,
                    int(raw["number"]),
                    raw["created_at"],
                    raw["title"],
                    raw.get("body"),
                )
        for dup, (repo, canonical) in sorted(data.truth_duplicates.items()):
            if repo != data.full_name:
                source.dropped["cross_repository"] = source.dropped.get("cross_repository", 0) + 1
            else:
                source.pair(repo, dup, canonical)


def within(source: Source, years: tuple[int, int]) -> Source:
    """The pairs whose query was created within `years` (all issues stay candidates)."""
    kept = [
        (repo, q, t)
        for repo, q, t in source.pairs
        if years[0] <= int(source.docs[repo][q].created_at[:4]) <= years[1]
    ]
    return Source(f"{source.name} {years[0]}-{years[1]}", source.docs, kept, source.dropped)


def demo_source(seed: int = 0, world: str = "demo") -> Source:
    from issues_sts.sandbox.worlds.generator import generate_world, preset

    source = Source(f"{world} world")
    _corpus_into(source, generate_world(preset(world, seed=seed)).repos.values())
    return source


def paper_source(scale: float, seed: int = 0) -> Source:
    """The paper world's issues and duplicates (`within` keeps an era's)."""
    from issues_sts.sandbox.worlds.paper import PaperConfig, iter_paper_world

    source = Source(f"paper world x{scale:g}")
    _corpus_into(source, (c.data for c in iter_paper_world(PaperConfig(seed=seed, scale=scale))))
    return source


# -- BM25 ---------------------------------------------------------------------------------------
def _rank(scores: np.ndarray, target: float) -> float:
    """1 for the top; ties with the target count half (neither side wins them)."""
    return 1.0 + float(np.sum(scores > target)) + float(np.sum(scores == target)) / 2


def bm25_ranks(source: Source, pairs: list[tuple[str, int, int]]) -> dict[str, list[float]]:
    """Per pair: the target's rank among all earlier issues, its rank in a random pool of
    `POOL` earlier issues (NaN when fewer), and how many earlier issues there were."""
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    out: dict[str, list[float]] = {"full": [], "pool": [], "candidates": []}
    by_repo: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for repo, query, target in pairs:
        by_repo[repo].append((query, target))
    for repo, wanted in sorted(by_repo.items()):
        docs = sorted(source.docs[repo].values(), key=lambda d: (d.created_at, d.number))
        position = {d.number: k for k, d in enumerate(docs)}
        tokens = bm25s.tokenize(
            [d.text for d in docs], stemmer=stemmer, return_ids=False, show_progress=False
        )
        index = bm25s.BM25()
        index.index(tokens, show_progress=False)
        for query, target in wanted:
            q = position[query]
            # strictly earlier: the docs are sorted by creation; a query of stop words only
            # scores nothing
            scores = index.get_scores(tokens[q])[:q] if tokens[q] else np.zeros(q)
            t = position[target]
            others = np.delete(scores, t)
            out["full"].append(_rank(others, scores[t]))
            out["candidates"].append(float(q))
            if q >= POOL:
                rng = random.Random(f"{repo}#{query}")
                drawn = rng.sample([k for k in range(q) if k != t], POOL - 1)
                out["pool"].append(_rank(scores[drawn], scores[t]))
            else:
                out["pool"].append(math.nan)
    return out


# -- the backbone's cosine ----------------------------------------------------------------------
_ENCODER: list[Any] = []


def _embed(texts: list[str]) -> np.ndarray:
    from training.evaluation import embed
    from training.models import build_encoder

    if not _ENCODER:
        _ENCODER.append(build_encoder(None, None, MAX_LENGTH))
    vectors = embed(_ENCODER[0], texts, batch_size=32, max_length=MAX_LENGTH)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True).clip(1e-12)


def cosines(source: Source, pairs: list[tuple[str, int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """Cosine of each (query, target), and of each query with a random earlier issue of its
    repository that is not its target."""
    queries, targets, randoms = [], [], []
    for repo, query, target in pairs:
        docs = source.docs[repo]
        q = docs[query]
        earlier = sorted(
            n for n, d in docs.items() if (d.created_at, n) < (q.created_at, query) and n != target
        )
        other = random.Random(f"random:{repo}#{query}").choice(earlier) if earlier else target
        queries.append(q.text)
        targets.append(docs[target].text)
        randoms.append(docs[other].text)
    vectors = _embed(queries + targets + randoms)
    n = len(pairs)
    a, b, c = vectors[:n], vectors[n : 2 * n], vectors[2 * n :]
    return np.sum(a * b, axis=1), np.sum(a * c, axis=1)


# -- the figures --------------------------------------------------------------------------------
def sample_pairs(
    source: Source, limit: int = MAX_PAIRS, seed: int = 0
) -> list[tuple[str, int, int]]:
    pairs = sorted(source.pairs)
    if len(pairs) > limit:
        pairs = sorted(random.Random(seed).sample(pairs, limit))
    return pairs


def _quantile(values: np.ndarray, q: float) -> float:
    return float(np.quantile(values, q)) if len(values) else math.nan


def auc(positive: np.ndarray, negative: np.ndarray) -> float:
    """P(a duplicate's cosine > a random pair's), ties half: the Mann-Whitney statistic."""
    from scipy.stats import rankdata

    if not len(positive) or not len(negative):
        return math.nan
    ranks = rankdata(np.concatenate([positive, negative]))
    n = len(positive)
    return float((ranks[:n].sum() - n * (n + 1) / 2) / (n * len(negative)))


@dataclass
class Measured:
    """Per pair: the BM25 ranks and the cosines (`figures` turns them into named numbers;
    measurements of several sources add up)."""

    pairs: int = 0
    full: list[float] = field(default_factory=list)
    pool: list[float] = field(default_factory=list)
    candidates: list[float] = field(default_factory=list)
    dup: list[float] = field(default_factory=list)
    rnd: list[float] = field(default_factory=list)

    def __add__(self, other: Measured) -> Measured:
        return Measured(
            self.pairs + other.pairs,
            *(
                getattr(self, k) + getattr(other, k)
                for k in ("full", "pool", "candidates", "dup", "rnd")
            ),
        )


def measure(source: Source, *, with_cosine: bool = True, limit: int = MAX_PAIRS) -> Measured:
    pairs = sample_pairs(source, limit)
    ranks = bm25_ranks(source, pairs)
    out = Measured(len(source.pairs), ranks["full"], ranks["pool"], ranks["candidates"])
    if with_cosine and pairs:
        dup, rnd = cosines(source, pairs)
        out.dup, out.rnd = dup.tolist(), rnd.tolist()
    return out


def figures(m: Measured) -> dict[str, float]:
    full = np.array(m.full)
    pool = np.array([r for r in m.pool if not math.isnan(r)])
    dup, rnd = np.array(m.dup), np.array(m.rnd)
    share = lambda values, k: float(np.mean(values <= k)) if len(values) else math.nan  # noqa: E731
    return {
        "pairs": float(m.pairs),
        "pairs_measured": float(len(full)),
        "pairs_in_pool": float(len(pool)),
        "candidates_p50": _quantile(np.array(m.candidates), 0.5),
        "bm25_full_rank1_share": share(full, 1),
        "bm25_full_top10_share": share(full, 10),
        "bm25_full_median_rank": _quantile(full, 0.5),
        "bm25_pool_rank1_share": share(pool, 1),
        "bm25_pool_top10_share": share(pool, 10),
        "bm25_pool_median_rank": _quantile(pool, 0.5),
        "cosine_dup_p25": _quantile(dup, 0.25),
        "cosine_dup_p50": _quantile(dup, 0.5),
        "cosine_dup_p75": _quantile(dup, 0.75),
        "cosine_random_p50": _quantile(rnd, 0.5),
        "cosine_gap_p50": _quantile(dup, 0.5) - _quantile(rnd, 0.5),
        "cosine_auc": auc(dup, rnd),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--paper", type=float, help="also the paper world at this scale")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    report: dict[str, dict[str, float]] = {}
    sources: list[tuple[str, Any]] = []
    for name, (folder, issues, _) in REAL.items():
        if (args.shared / folder / issues).is_file():
            sources.append((name, lambda n=name: real_source(n, args.shared)))
        else:
            print(f"skipped {name}: {args.shared / folder} is absent", file=sys.stderr)
    sources.append(("demo world", lambda: demo_source(args.seed)))
    if args.paper:
        sources.append(("paper world", lambda: paper_source(args.paper, args.seed)))
    for name, load in sources:
        start = time.perf_counter()
        source = load()
        report[name] = figures(measure(source)) | {
            "dropped_" + k: float(v) for k, v in source.dropped.items()
        }
        print(f"{name} ({time.perf_counter() - start:.0f} s)")
        for key, value in report[name].items():
            print(f"  {key:28} {value:10.4f}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
