"""The embedded default: the whole pipeline, offline, on a generated GitHub.

A seeded world of issues (issues_sts.sandbox.worlds.generator) is served by the project's fake
GitHub on 127.0.0.1; the real crawler collects it, the real build turns it into the dataset, and the
offline MiniLM backbone is fine-tuned briefly with the AnglE objective and evaluated before
and after. Nothing here is special-cased for the demo: the same code runs against
api.github.com with a token.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from rich.console import Console

from issues_sts.config import Option
from issues_sts.errors import OutputDirError, OutputError, os_errors
from issues_sts.report import SILENT, Reporter

MARKER = ".issues-sts-demo"
DEMO_TOKEN = "demo-token-not-a-secret"


@dataclass(frozen=True)
class DemoConfig:
    """What the demo runs. `world` names a generator preset (tiny, small, demo, large)."""

    directory: Annotated[
        Path, Option("--out", help="Folder every artefact is written to (replaced on re-runs).")
    ] = Path("data/demo")
    world: Annotated[
        Literal["tiny", "small", "demo", "large"],
        Option("--world", help="Generated world size: tiny, small, demo (default) or large."),
    ] = "demo"
    seed: Annotated[int, Option("--seed", help="Seed of the world, the splits and training.")] = 0
    train: Annotated[
        bool, Option("--train", help="Fine-tune and evaluate the offline backbone.")
    ] = True
    # bounded by the TrainConfig they are passed to (the CLI shows and checks its range)
    max_length: Annotated[
        int, Option("--max-length", help="Token limit used for training and evaluation.")
    ] = 128
    batch_size: Annotated[int, Option("--batch-size", help="Pairs per training batch.")] = 16
    epochs: int = 1
    learning_rate: float = 5e-5
    max_train_pairs: int | None = None
    fault_rate: float = 0.01


@dataclass
class DemoResult:
    directory: Path
    timings: dict[str, float] = field(default_factory=dict)
    world: dict[str, int] = field(default_factory=dict)
    crawl: dict[str, Any] = field(default_factory=dict)
    dataset: dict[str, Any] = field(default_factory=dict)
    before: dict[str, float] | None = None
    after: dict[str, float] | None = None
    similar: dict[str, Any] = field(default_factory=dict)
    artefacts: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> str:
        data = asdict(self)
        data["directory"] = str(self.directory)
        return json.dumps(data, indent=2, default=str)


def prepare_directory(directory: Path) -> None:
    """Empty a previous demo's directory (idempotent re-runs); refuse anything else."""
    if directory.exists() and any(directory.iterdir()):
        if not (directory / MARKER).exists():
            raise OutputDirError(
                f"{directory} is not empty and was not written by `issues-sts demo`",
                hint="pass --out with a new or empty folder",
            )
        shutil.rmtree(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / MARKER).write_text("written by `issues-sts demo`; safe to delete\n")


class _Timer:
    def __init__(self, console: Console, result: DemoResult) -> None:
        self.console, self.result, self.step = console, result, 0

    @contextmanager
    def __call__(self, name: str, title: str) -> Iterator[None]:
        self.step += 1
        self.console.rule(f"[bold]{self.step}. {title}")
        start = time.perf_counter()
        yield
        self.result.timings[name] = round(time.perf_counter() - start, 2)


def run_demo(cfg: DemoConfig, console: Console, *, reporter: Reporter = SILENT) -> DemoResult:
    """Generate -> serve -> crawl -> build -> (train, evaluate); returns what happened."""
    from issues_sts.sandbox.github.server import FakeGitHub
    from issues_sts.sandbox.github.settings import FakeSettings
    from issues_sts.sandbox.worlds.generator import generate_world, preset

    with os_errors(OutputError, f"--out {cfg.directory} cannot be written"):
        prepare_directory(cfg.directory)
    result = DemoResult(cfg.directory)
    timed = _Timer(console, result)
    with timed("generate", f"generating a GitHub world ({cfg.world}, seed {cfg.seed})"):
        corpus = generate_world(preset(cfg.world, seed=cfg.seed))
        result.world = _world_summary(corpus)
        console.print(", ".join(f"{v:,} {k.replace('_', ' ')}" for k, v in result.world.items()))
    settings = FakeSettings(
        tokens=frozenset({DEMO_TOKEN}),
        fault_rate=cfg.fault_rate,
        fault_seed=cfg.seed,
        fault_kinds=("502", "503", "drop", "truncate"),
    )
    with FakeGitHub(corpus, settings) as github:
        console.print(f"fake GitHub serving on {github.api_url}")
        with timed("crawl", "crawling it with the real crawler"):
            result.crawl = _crawl(cfg, github.api_url, tuple(corpus.repos), reporter)
    with timed("build", "building the dataset"):
        result.dataset = _build(cfg, reporter)
    with timed("index", "indexing the store and asking `similar` about a known duplicate"):
        result.similar = _index_and_ask(cfg, console, reporter)
    if cfg.train:
        _train_and_evaluate(cfg, result, timed)
    result.artefacts = _artefacts(cfg)
    (cfg.directory / "demo_summary.json").write_text(result.to_json() + "\n")
    return result


def _world_summary(corpus: Any) -> dict[str, int]:
    issues = sum(1 for r in corpus.repos.values() for i in r.issues if "pull_request" not in i)
    prs = sum(1 for r in corpus.repos.values() for i in r.issues if "pull_request" in i)
    dups = sum(len(r.truth_duplicates) for r in corpus.repos.values())
    return {
        "repositories": len(corpus.repos),
        "issues": issues,
        "pull_requests": prs,
        "comments": corpus.total_comments(),
        "true_duplicates": dups,
    }


def _crawl(
    cfg: DemoConfig, api_url: str, repos: tuple[str, ...], reporter: Reporter
) -> dict[str, Any]:
    from issues_sts.crawl.config import CrawlConfig
    from issues_sts.crawl.runner import run_crawl

    crawl_cfg = CrawlConfig(
        repos=repos,
        token=DEMO_TOKEN,  # type: ignore[arg-type]  # pydantic makes the SecretStr
        api_url=api_url,
        store=cfg.directory / "store",
    )
    summary = run_crawl(crawl_cfg, reporter=reporter)
    return {
        "requests": summary.requests,
        "graphql_requests": summary.graphql_requests,
        "retries": summary.retries,
        "seconds": round(summary.seconds, 2),
        "complete": summary.ok,
    }


def _build(cfg: DemoConfig, reporter: Reporter) -> dict[str, Any]:
    from issues_sts.dataset.build import run_build
    from issues_sts.dataset.config import BuildConfig
    from issues_sts.dataset.summary import summary_tables

    summary = run_build(
        BuildConfig(store=cfg.directory / "store", out=cfg.directory / "dataset", seed=cfg.seed),
        reporter=reporter,
    )
    reporter.summary(*summary_tables(summary))
    return {"sizes": summary.sizes, "redacted": summary.redacted}


def _index_and_ask(cfg: DemoConfig, console: Console, reporter: Reporter) -> dict[str, Any]:
    """`issues-sts index` on the demo's store, then `issues-sts similar` about the first
    duplicate of the build whose canonical is an earlier issue of its repository: is the
    canonical among the 10 most similar earlier issues, and where."""
    from issues_sts.retrieval.indexer import IndexConfig, run_index
    from issues_sts.retrieval.query import ask

    index_dir = cfg.directory / "index"
    summary = run_index(
        IndexConfig(store=cfg.directory / "store", out=index_dir, max_length=cfg.max_length),
        reporter,
    )
    known = _known_duplicate(cfg.directory / "dataset", index_dir)
    if known is None:  # a world too small to hold one; the index is still there to ask
        console.print("no duplicate of this build has an earlier canonical: nothing to ask")
        return {"indexed": summary.rows}
    duplicate, canonical = known
    answer = ask(index_dir, duplicate[0], duplicate[1], None, 10, "dense")
    ranks = [r["rank"] for r in answer.results if r["number"] == canonical]
    rank = ranks[0] if ranks else None
    console.print(
        f"issues-sts similar {duplicate[0]}#{duplicate[1]} --index {index_dir}  "
        f"({summary.rows:,} issues indexed; #{duplicate[1]} is a duplicate of #{canonical})",
        markup=False,
    )
    for row in answer.results[:5]:
        mark = "  <- its canonical" if row["number"] == canonical else ""
        console.print(
            f"  {row['rank']:>2}. #{row['number']} {row['title'][:60]} ({row['score']:.3f}){mark}",
            markup=False,
        )
    found = f"found at rank {rank} of 10" if rank else "not among the 10 most similar"
    console.print(
        f"the canonical #{canonical} was {found} ({answer.candidates:,} earlier issues, "
        "untrained backbone)",
        markup=False,
    )
    return {
        "duplicate": f"{duplicate[0]}#{duplicate[1]}",
        "canonical": canonical,
        "rank": rank,
        "candidates": answer.candidates,
        "indexed": summary.rows,
    }


def _known_duplicate(dataset: Path, index_dir: Path) -> tuple[tuple[str, int], int] | None:
    """The first positive pair (in the build's order) whose canonical was created before the
    duplicate in the same repository, both in the index."""
    import polars as pl

    from issues_sts.retrieval.vectors import VectorIndex

    index = VectorIndex.open(index_dir)
    pairs = pl.read_parquet(dataset / "pairs.parquet").filter(
        (pl.col("label") == 1) & (pl.col("repo1") == pl.col("repo2"))
    )
    for repo, duplicate, canonical in pairs.select("repo1", "number1", "number2").iter_rows():
        rows = index.repo(repo)
        at = index.position(rows, duplicate) if rows else None
        to = index.position(rows, canonical) if rows else None
        if at is not None and to is not None and index.created[to] < index.created[at]:
            return (repo, duplicate), canonical
    return None


def _train_and_evaluate(cfg: DemoConfig, result: DemoResult, timed: Callable[..., Any]) -> None:
    from training.api import TrainConfig, evaluate, train

    data = str(cfg.directory / "dataset")
    model_dir = cfg.directory / "model"
    with timed("evaluate_before", "test Spearman of the untrained backbone (all-MiniLM-L6-v2)"):
        result.before = evaluate(
            None, data, "test", max_length=cfg.max_length, plot=model_dir / "test_before.png"
        )
    with timed(
        "train", "fine-tuning with the AnglE objective (cosine + in-batch negatives + angle)"
    ):
        trained = train(
            TrainConfig(
                data=data,
                output=model_dir,
                max_length=cfg.max_length,
                batch_size=cfg.batch_size,
                epochs=cfg.epochs,
                learning_rate=cfg.learning_rate,
                warmup_steps=5,
                max_train_pairs=cfg.max_train_pairs,
                seed=cfg.seed,
            )
        )
    with timed("evaluate_after", "test Spearman after fine-tuning"):
        result.after = evaluate(
            trained.model_dir,
            data,
            "test",
            max_length=cfg.max_length,
            plot=model_dir / "test_after.png",
        )


def _artefacts(cfg: DemoConfig) -> dict[str, str]:
    d = cfg.directory
    candidates = {
        "crawl store": d / "store" / "crawl.sqlite",
        "dataset (load_dataset)": d / "dataset",
        "dataset card": d / "dataset" / "README.md",
        "pairs with provenance": d / "dataset" / "pairs.parquet",
        "duplicate links": d / "dataset" / "links.parquet",
        "statistics": d / "dataset" / "stats.json",
        "token length plot": d / "dataset" / "token_lengths.png",
        "vector index (issues-sts similar)": d / "index",
        "fine-tuned model": d / "model",
        "similarity plot": d / "model" / "test_after.png",
        "this summary": d / "demo_summary.json",
    }
    return {name: str(path) for name, path in candidates.items() if path.exists()}
