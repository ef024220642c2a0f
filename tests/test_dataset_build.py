"""End-to-end builds of a small hand-made store: outputs, determinism, loading, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from issues_sts.crawl.rows import comment_rows, issue_rows
from issues_sts.dataset.build import run_build
from issues_sts.dataset.config import SPLITS, BuildConfig
from issues_sts.dataset.export import read_manifest, sha256
from issues_sts.errors import NoDuplicates, OutputDirError, StoreError
from issues_sts.links import LinkConfig, build_links
from issues_sts.sandbox.stores import raw_comment, raw_issue
from issues_sts.store import Store
from tests.conftest import cli_exit_code
from tests.dataset_store import AWS_KEY, GADGETS, GITHUB_TOKEN, WIDGETS, make_store


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_store(tmp_path_factory.mktemp("store"))


@pytest.fixture(scope="module")
def built(store_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("builds") / "dataset"
    run_build(BuildConfig(store=store_dir, out=out, seed=7))
    return out


def _pairs(out: Path) -> pl.DataFrame:
    return pl.read_parquet(out / "pairs.parquet")


def test_outputs_and_manifest(built: Path) -> None:
    names = {p.relative_to(built).as_posix() for p in built.rglob("*") if p.is_file()}
    shards = {f"{d}/{s}-00000-of-00001.parquet" for d in ("data", "positive") for s in SPLITS}
    assert names == shards | {
        "README.md",
        "pairs.parquet",
        "links.parquet",
        "stats.json",
        "build_config.json",
        "token_lengths.png",
        "manifest.json",
        "corpus/corpus-00000-of-00001.parquet",
        "queries/queries-00000-of-00001.parquet",
        *(f"qrels/{s}-00000-of-00001.parquet" for s in SPLITS),
    }
    manifest = read_manifest(built)
    assert manifest is not None and set(manifest["files"]) == names - {"manifest.json"}
    assert all(manifest["files"][n]["sha256"] == sha256(built / n) for n in manifest["files"])
    assert not list(built.parent.glob(".dataset.*"))  # no temporary folder left behind


def test_positives_follow_the_clusters(built: Path) -> None:
    pos = _pairs(built).filter(pl.col("label") == 1)
    got = sorted(pos.select("repo1", "number1", "repo2", "number2").rows())
    assert got == sorted(
        [
            (WIDGETS, 5, WIDGETS, 3),
            (WIDGETS, 7, WIDGETS, 3),
            (WIDGETS, 9, WIDGETS, 2),
            (WIDGETS, 13, WIDGETS, 2),
            (GADGETS, 4, GADGETS, 1),
            (GADGETS, 6, GADGETS, 1),
            (GADGETS, 8, GADGETS, 7),
        ]
    )
    assert pos["url1"][0].startswith("https://github.com/") and pos["signal"].null_count() == 0


def test_negatives_balance_and_rules(built: Path) -> None:
    pairs = _pairs(built)
    for split in SPLITS:
        part = pairs.filter(pl.col("split") == split)
        assert part.height > 0
        assert part.filter(pl.col("label") == 1).height == part.filter(pl.col("label") == 0).height
    negatives = {
        tuple(sorted([(r1, n1), (r2, n2)]))
        for r1, n1, r2, n2 in pairs.filter(pl.col("label") == 0)
        .select("repo1", "number1", "repo2", "number2")
        .rows()
    }
    clusters = [
        {(WIDGETS, n) for n in (3, 5, 7)},
        {(WIDGETS, n) for n in (2, 9, 13)},
        {(GADGETS, n) for n in (1, 4, 6)},
        {(GADGETS, 7), (GADGETS, 8)},
    ]
    for a, b in negatives:
        assert not any(a in c and b in c for c in clusters)
        assert {a, b} != {(WIDGETS, 4), (WIDGETS, 6)}  # they reference each other
    used = {k for pair in negatives for k in pair}
    assert (WIDGETS, 10) not in used and (WIDGETS, 12) not in used  # PR and tombstone


def test_no_issue_crosses_splits(built: Path) -> None:
    pairs = _pairs(built)
    ends = pl.concat(
        [
            pairs.select(pl.col("repo1").alias("r"), pl.col("number1").alias("n"), "split"),
            pairs.select(pl.col("repo2").alias("r"), pl.col("number2").alias("n"), "split"),
        ]
    )
    assert ends.group_by("r", "n").agg(pl.col("split").n_unique())["split"].max() == 1


def test_secrets_never_reach_any_output(built: Path) -> None:
    for path in built.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert GITHUB_TOKEN.encode() not in data and AWS_KEY.encode() not in data, path
            assert b"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ" not in data, path
    stats = json.loads((built / "stats.json").read_text())
    red = stats["counters"]["redaction"]
    assert red["redacted:github_token"] == 1 and red["redacted:aws_access_key_id"] == 1
    assert red["redacted:private_key"] == 1


def test_stats_json_has_every_stage(built: Path) -> None:
    stats = json.loads((built / "stats.json").read_text())
    assert set(stats["counters"]) == {
        "links",
        "texts",
        "redaction",
        "positives",
        "negatives",
        "splits",
        "retrieval",
    }
    assert stats["counters"]["texts"]["dropped_pull_request"] == 1
    assert stats["counters"]["texts"]["dropped_tombstone"] == 1
    assert stats["counters"]["positives"]["link_excluded:source_is_pull_request"] == 1
    assert stats["table"]["train"]["paper_total"] == 18565
    assert set(stats["per_repository"]) == {WIDGETS, GADGETS}


def test_card_declares_configs_and_exact_sizes(built: Path) -> None:
    import yaml

    card = (built / "README.md").read_text()
    header = yaml.safe_load(card.split("---\n")[1])
    names = [c["config_name"] for c in header["configs"]]
    assert names == ["default", "positive", "corpus"]  # no query: empty configs undeclared
    pairs = _pairs(built)
    for info in header["dataset_info"][:2]:
        for split in info["splits"]:
            part = pairs.filter(pl.col("split") == split["name"])
            expected = part.height if info["config_name"] == "default" else part["label"].sum()
            assert split["num_examples"] == expected
    for needle in (
        "issues-sts build",
        "token_lengths.png",
        "## Provenance",
        "## Limitations",
        "arXiv:2309.12871",
        "18,565",
    ):
        assert needle in card


def test_load_dataset_offline_both_configs(built: Path) -> None:
    import datasets

    default = datasets.load_dataset(str(built))
    positive = datasets.load_dataset(str(built), "positive")
    assert list(default) == list(SPLITS) and list(positive) == list(SPLITS)
    assert {k: v.dtype for k, v in default["train"].features.items()} == {
        "text1": "string",
        "text2": "string",
        "label": "int64",
    }
    assert {k: v.dtype for k, v in positive["train"].features.items()} == {
        "anchor": "string",
        "positive": "string",
    }
    pairs = _pairs(built)
    for split in SPLITS:
        part = pairs.filter(pl.col("split") == split)
        assert default[split]["text1"] == part["text1"].to_list()
        assert default[split]["label"] == part["label"].to_list()
        assert positive[split]["anchor"] == part.filter(pl.col("label") == 1)["text1"].to_list()


def test_same_inputs_give_identical_bytes(store_dir: Path, built: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    run_build(BuildConfig(store=store_dir, out=again, seed=7))
    other = tmp_path / "other-seed"
    run_build(BuildConfig(store=store_dir, out=other, seed=8))
    parquet = sorted(p.relative_to(built) for p in built.rglob("*.parquet"))
    assert all((built / p).read_bytes() == (again / p).read_bytes() for p in parquet)
    assert (built / "pairs.parquet").read_bytes() != (other / "pairs.parquet").read_bytes()


def test_hard_negative_build(store_dir: Path, tmp_path: Path) -> None:
    summary = run_build(BuildConfig(store=store_dir, out=tmp_path / "hard", negatives="hard"))
    assert summary.counters["negatives"].get("hard_bm25", 0) > 0
    assert (
        summary.stats["table"]["train"]["negative"] == summary.stats["table"]["train"]["positive"]
    )


def test_time_split_and_raw_recipe_are_recorded_in_the_card(
    store_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "timed"
    run_build(BuildConfig(store=store_dir, out=out, split_by="time", text_recipe="raw"))
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "by time (`--split-by time`)" in card and "recipe `raw`" in card
    assert "--split-by time --text-recipe raw" in card  # the command that rebuilds it
    config = json.loads((out / "build_config.json").read_text())
    assert (config["split_by"], config["text_recipe"], config["version"]) == ("time", "raw", "v1")


def test_rebuild_over_an_earlier_build_but_not_over_foreign_files(
    store_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    run_build(BuildConfig(store=store_dir, out=out))
    run_build(BuildConfig(store=store_dir, out=out, seed=1))  # ours: replaced
    (out / "notes.txt").write_text("mine")
    with pytest.raises(OutputDirError):
        run_build(BuildConfig(store=store_dir, out=out))
    assert (out / "notes.txt").read_text() == "mine"


def test_missing_empty_and_duplicate_free_stores(tmp_path: Path) -> None:
    with pytest.raises(StoreError):
        run_build(BuildConfig(store=tmp_path / "nothing", out=tmp_path / "o1"))
    Store.open(tmp_path / "empty", create=True).close()
    with pytest.raises(StoreError, match="no issues"):
        run_build(BuildConfig(store=tmp_path / "empty", out=tmp_path / "o2"))
    make_store(tmp_path / "nodups", with_duplicates=False)
    with pytest.raises(NoDuplicates):
        run_build(BuildConfig(store=tmp_path / "nodups", out=tmp_path / "o3"))
    assert not [
        p for p in tmp_path.iterdir() if p.name.startswith((".o", "o"))
    ]  # nothing half-written


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        (["--store", "{tmp}/missing"], 3, "no crawl store"),
        (["--store", "{store}", "--tokenizer", "{tmp}/no-tokenizer"], 2, "no tokenizer at"),
        (["--store", "{store}", "--out", "{tmp}/foreign"], 6, "did not write"),
        (["--store", "{store}", "--negatives", "nope"], 2, "--negatives"),
        (["--store", "{tmp}/empty"], 3, "holds no issues"),
        (["--store", "{tmp}/nodups"], 6, "no usable duplicate links"),
        (
            ["--store", "{store}", "--min-confidence", "1.5"],
            2,
            "--min-confidence: Input should be less than or equal to 1",
        ),
    ],
)
def test_cli_errors_are_one_line(
    args: list[str],
    code: int,
    needle: str,
    store_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "file.txt").write_text("x")
    Store.open(tmp_path / "empty", create=True).close()
    make_store(tmp_path / "nodups", with_duplicates=False)
    argv = ["build", "--quiet", "--out", str(tmp_path / "out")] + [
        a.format(tmp=tmp_path, store=store_dir) for a in args
    ]
    assert cli_exit_code(argv) == code
    err = " ".join(capsys.readouterr().err.split())
    assert err.startswith("error:") and needle in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_cli_build_prints_the_summary(
    store_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        cli_exit_code(
            ["build", "--quiet", "--store", str(store_dir), "--out", str(tmp_path / "ds")]
        )
        == 0
    )
    err = capsys.readouterr().err
    assert "dataset written to" in err and "18,565" in err and "redacted" in err


def test_min_confidence_reaches_the_link_stage(tmp_path: Path) -> None:
    """A hedged "Possibly duplicate of #9" scores about 0.38: the link stage's default 0.5
    leaves it unusable, and `--min-confidence 0.3` must make a pair of it (the option once
    stopped at the build's own filter, after the link stage had dropped the link at 0.5)."""
    store_dir = make_store(tmp_path / "store")
    hedged = raw_issue(GADGETS, 11, "Gadget problem 11", "When I run it, it breaks.")
    with Store.open(store_dir) as store:
        store.write_page(
            GADGETS,
            issues=issue_rows(GADGETS, [hedged]),
            comments=comment_rows(
                GADGETS, [raw_comment(GADGETS, 11, 5000, "Possibly duplicate of #9")]
            ),
        )
        scored = build_links(store, LinkConfig(min_confidence=0.0)).links.filter(
            pl.col("number") == 11
        )
    assert 0.3 <= scored["confidence"].item() < 0.5, (
        "the link rules moved: pick a wording scored in [0.3, 0.5)"
    )
    counts = {}
    for option in ("0.5", "0.3"):
        out = tmp_path / f"at-{option}"
        argv = [
            "build",
            "--quiet",
            "--store",
            str(store_dir),
            "--out",
            str(out),
            "--min-confidence",
            option,
        ]
        assert cli_exit_code(argv) == 0
        positives = _pairs(out).filter(pl.col("label") == 1)
        counts[option] = positives.height
        hedged_pair = positives.filter((pl.col("repo1") == GADGETS) & (pl.col("number1") == 11))
        assert hedged_pair.height == (option == "0.3")
        assert json.loads((out / "build_config.json").read_text())["links"][
            "min_confidence"
        ] == float(option)
        assert f"--min-confidence {option}" in (out / "README.md").read_text(encoding="utf-8")
    assert counts["0.3"] == counts["0.5"] + 1


class _Recorder:
    """A Reporter that writes down what a runner told it."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []

    def __enter__(self) -> _Recorder:
        self.calls.append(("enter", None))
        return self

    def __exit__(self, *exc: object) -> None:
        self.calls.append(("exit", None))

    def stage(self, name: str, total: int | None = None) -> None:
        self.calls.append(("stage", name))

    def advance(self, steps: int = 1, *, total: int | None = None, note: str | None = None) -> None:
        self.calls.append(("advance", steps))

    def notice(self, text: str) -> None:
        self.calls.append(("notice", text))

    def summary(self, *renderables: object) -> None:
        self.calls.append(("summary", renderables))


def test_the_build_reports_each_stage_to_the_reporter_it_is_given(
    store_dir: Path, tmp_path: Path
) -> None:
    recorder = _Recorder()
    summary = run_build(BuildConfig(store=store_dir, out=tmp_path / "out"), reporter=recorder)
    stages = [value for kind, value in recorder.calls if kind == "stage"]
    assert stages[0] == "extracting duplicate links" and "writing" in stages
    assert recorder.calls[0] == ("enter", None) and recorder.calls[-1] == ("exit", None)
    tokenized = sum(int(str(value)) for kind, value in recorder.calls if kind == "advance")
    assert tokenized > 0  # the tokenizer's counted line
    assert set(stages) - {"  tokenizing texts"} <= set(summary.timings)
