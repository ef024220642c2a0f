"""`issues-sts links extract|show|evaluate` end to end on small real files."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from issues_sts.annotations.archives import RUST_REPO
from issues_sts.crawl.rows import comment_rows, issue_rows
from issues_sts.store import Store
from tests.conftest import cli_exit_code
from tests.test_links_stage import comment, issue

_run = cli_exit_code


@pytest.fixture()
def store_dir(tmp_path: Path) -> Path:
    root = tmp_path / "store"
    with Store.open(root, create=True) as st:
        st.write_page(
            "acme/widgets",
            issues=issue_rows("acme/widgets", [issue(1), issue(2), issue(3)]),
            comments=comment_rows(
                "acme/widgets",
                [comment(2, "Duplicate of #1", cid=1), comment(3, "Related to #1", cid=2)],
            ),
        )
    return root


def test_extract_writes_links_and_counters(
    store_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert _run(["links", "extract", "--store", str(store_dir), "--out", str(out)]) == 0
    links = pl.read_parquet(out / "links.parquet")
    assert links.select("number", "target_number", "usable").rows() == [(2, 1, True)]
    counters = json.loads((out / "link_counters.json").read_text())
    assert counters["usable_links"] == 1 and counters["links_by_signal:duplicate_keyword"] == 1
    assert json.loads((out / "link_config.json").read_text())["min_confidence"] == 0.5
    assert "links_by_signal:duplicate_keyword" in capsys.readouterr().err


def test_show_one_issue(store_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["links", "show", "acme/widgets#2", "--store", str(store_dir), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["number"], r["target_number"], r["signal"]) for r in rows] == [
        (2, 1, "duplicate_keyword")
    ]
    assert _run(["links", "show", "acme/widgets#1", "--store", str(store_dir)]) == 0
    assert (
        "issuecomment-1" in capsys.readouterr().out
    )  # the canonical sees its duplicate's evidence


@pytest.mark.parametrize(
    "argv",
    [
        ["links", "show", "widgets-2"],
        ["links", "extract", "--alias", "nonsense"],
        ["links", "extract", "--min-confidence", "2"],
    ],
)
def test_bad_input_is_one_line_and_nonzero(
    argv: list[str], store_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run([*argv, "--store", str(store_dir)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "Traceback" not in err


def test_missing_store_is_a_store_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        _run(["links", "extract", "--store", str(tmp_path / "nope"), "--out", str(tmp_path / "o")])
        == 3
    )
    assert "no crawl store" in capsys.readouterr().err


def _archive(
    root: Path, items: list[dict[str, Any]], comments: dict[int, list[dict[str, Any]]]
) -> Path:
    root.mkdir()
    with gzip.open(root / "main.jsonl.gz", "wt") as fh:
        for item in items:
            fh.write(
                json.dumps({**item, "_meta": {"type": "pr" if "pull_request" in item else "issue"}})
                + "\n"
            )
    with gzip.open(root / "comments.jsonl.gz", "wt") as fh:
        for number, cs in comments.items():
            fh.write(json.dumps({"number": number, "comments": cs}) + "\n")
    return root


def _evaluate_json(
    ann: Path, archive: Path, cache: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[list[str], dict[str, Any]]:
    """`links evaluate ... --json` on one annotation file: its argv (without --json) and metrics."""
    argv = [
        "links",
        "evaluate",
        "--annotations",
        str(ann),
        "--archive",
        str(archive),
        "--cache",
        str(cache),
    ]
    assert _run([*argv, "--json"]) == 0
    return argv, json.loads(capsys.readouterr().out)


def test_evaluate_reports_precision_and_recall(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = [issue(n, repo=RUST_REPO) for n in range(1, 7)]
    comments = {
        2: [
            comment(2, "Dupe of https://github.com/mozilla/rust/issues/1", cid=1, repo=RUST_REPO)
        ],  # TP via alias
        3: [comment(3, "dupe of #1", cid=2, repo=RUST_REPO)],  # wrong target: FP + FN
        4: [comment(4, "See #1 for context", cid=3, repo=RUST_REPO)],  # hard negative: TN
        5: [comment(5, "Closing as dup of #2", cid=4, repo=RUST_REPO)],  # FP on a hard negative
    }
    archive = _archive(tmp_path / "archive", items, comments)
    ann = tmp_path / "ann.csv"
    ann.write_text(
        "repo,number,category,canonical_repo,canonical_number,note\n"
        "rust-lang/rust,2,duplicate,rust-lang/rust,1,url\n"
        "rust-lang/rust,3,duplicate,rust-lang/rust,2,retargeted\n"
        "rust-lang/rust,4,hard_negative,,,see\n"
        "rust-lang/rust,5,hard_negative,,,not-a-dup\n"
        "rust-lang/rust,6,duplicate,rust-lang/rust,1,missed\n"
    )
    argv, metrics = _evaluate_json(ann, archive, tmp_path / "c", capsys)
    assert (metrics["tp"], metrics["fp"], metrics["fn"], metrics["tn"]) == (1, 2, 2, 1)
    assert metrics["precision"] == pytest.approx(1 / 3) and metrics["recall"] == pytest.approx(
        1 / 3
    )
    assert _run(argv) == 0
    text = capsys.readouterr().out
    assert "FP #5: annotated - claimed 2" in text and "FN #6: annotated 1 claimed -" in text


def test_extract_from_an_archive(tmp_path: Path) -> None:
    items = [issue(n, repo=RUST_REPO) for n in (1, 2)]
    archive = _archive(
        tmp_path / "archive",
        items,
        {
            2: [
                comment(
                    2, "Dupe of https://github.com/mozilla/rust/issues/1", cid=1, repo=RUST_REPO
                )
            ]
        },
    )
    out = tmp_path / "out"
    assert (
        _run(
            [
                "links",
                "extract",
                "--archive",
                str(archive),
                "--cache",
                str(tmp_path / "c"),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    links = pl.read_parquet(out / "links.parquet")
    assert links.select("target_repo", "target_number", "usable").rows() == [(RUST_REPO, 1, True)]


def test_evaluate_rejects_bad_annotations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ann = tmp_path / "bad.csv"
    ann.write_text(
        "repo,number,category,canonical_repo,canonical_number,note\nrust-lang/rust,x,dup,,,\n"
    )
    archive = _archive(tmp_path / "archive", [issue(1, repo=RUST_REPO)], {})
    assert (
        _run(
            [
                "links",
                "evaluate",
                "--annotations",
                str(ann),
                "--archive",
                str(archive),
                "--cache",
                str(tmp_path / "c"),
            ]
        )
        == 2
    )
    assert "bad annotation row" in capsys.readouterr().err


def test_evaluate_subsets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    items = [issue(n, repo=RUST_REPO) for n in range(1, 5)]
    comments = {n: [comment(n, "Duplicate of #1", cid=n, repo=RUST_REPO)] for n in (2, 3, 4)}
    archive = _archive(tmp_path / "archive", items, comments)
    ann = tmp_path / "ann.csv"
    ann.write_text(
        "repo,number,category,canonical_repo,canonical_number,note\n"  # dev: 2, 4; test: 3
        "rust-lang/rust,4,hard_negative,,,ambiguous\n"
        "rust-lang/rust,3,duplicate,rust-lang/rust,1,keyword\n"
        "rust-lang/rust,2,duplicate,rust-lang/rust,1,keyword\n"
    )
    argv = [
        "links",
        "evaluate",
        "--annotations",
        str(ann),
        "--archive",
        str(archive),
        "--cache",
        str(tmp_path / "c"),
    ]
    assert _run([*argv, "--subset", "dev", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert (got["subset"], got["tp"], got["fp"]) == ("dev", 1, 1)
    assert got["subsets"]["dev"]["without_ambiguous"]["fp"] == 0
    assert (
        got["subsets"]["test"]["with_ambiguous"]["tp"] == 1
        and got["subsets"]["all"]["with_ambiguous"]["tp"] == 2
    )
    assert _run([*argv, "--subset", "dev"]) == 0
    text = capsys.readouterr().out
    assert "test   without ambiguous" in text and "FP #4: annotated - claimed 1" in text
    assert _run([*argv, "--subset", "train"]) == 2


def _onnx_archive(root: Path) -> Path:
    """A tiny archive shaped like ../shared/data/onnxruntime-issue-archive: REST issues (no
    closed_by, the 2022 relabelling dropped the duplicate label) and per-issue threads."""
    from issues_sts.annotations.archives import ONNX_REPO

    root.mkdir(parents=True)
    issues = [issue(n, repo=ONNX_REPO, closed_by=None) for n in (1, 2, 3, 4)]
    at = "2015-03-02T10:00:00Z"
    actor = {"login": "maint"}
    threads = [
        # a duplicate label in the history plus a maintainer's pointer: a duplicate of #1
        {
            "number": 2,
            "comments": [comment(2, "Please see #1", cid=1, repo=ONNX_REPO, created=at)],
            "timeline": [
                {
                    "event": "labeled",
                    "id": 11,
                    "actor": actor,
                    "created_at": at,
                    "label": {"name": "duplicate"},
                },
                {"event": "closed", "id": 12, "actor": actor, "created_at": "2015-03-02T10:01:00Z"},
            ],
            "events": [],
        },
        # the same pointer without the label: not a link
        {
            "number": 3,
            "comments": [comment(3, "Please see #1", cid=2, repo=ONNX_REPO, created=at)],
            "timeline": [
                {"event": "closed", "id": 13, "actor": actor, "created_at": "2015-03-02T10:01:00Z"}
            ],
            "events": [],
        },
        # a bot's suggestion nobody acted on: not a link
        {
            "number": 4,
            "comments": [
                comment(
                    4,
                    "Potential duplicates:\n- #1",
                    cid=3,
                    login="github-actions[bot]",
                    assoc="NONE",
                    repo=ONNX_REPO,
                    created=at,
                )
            ],
            "timeline": [
                {"event": "closed", "id": 14, "actor": {"login": "reporter"}, "created_at": at}
            ],
            "events": [],
        },
    ]
    for name, rows in (("issues.jsonl.gz", issues), ("threads.jsonl.gz", threads)):
        with gzip.open(root / name, "wt", encoding="utf-8") as fh:
            fh.writelines(json.dumps(r) + "\n" for r in rows)
    return root


def test_evaluate_the_modern_set_from_an_onnxruntime_shaped_archive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = _onnx_archive(tmp_path / "onnx")
    ann = tmp_path / "onnxruntime_duplicates.csv"
    ann.write_text(
        "repo,number,category,canonical_repo,canonical_number,note,round,split\n"
        "microsoft/onnxruntime,2,duplicate,microsoft/onnxruntime,1,label-pointer,onnx-1,test\n"
        "microsoft/onnxruntime,3,hard_negative,,,see,onnx-1,dev\n"
        "microsoft/onnxruntime,4,hard_negative,,,bot-suggestion,onnx-1,test\n"
    )
    argv, got = _evaluate_json(ann, archive, tmp_path / "c", capsys)
    assert (got["tp"], got["fp"], got["fn"], got["tn"]) == (1, 0, 0, 2)
    assert got["rounds"]["onnx-1"]["tp"] == 1 and "sets" in got
    assert _run(argv) == 0
    text = capsys.readouterr().out
    assert "round onnx-1" in text and "labels by AI assistant readers" in text
    with Store.open(tmp_path / "c") as st:  # what a crawl with timelines would have stored
        row = st.issues_frame(
            numbers=[2], repo="microsoft/onnxruntime", columns=("closed_by", "labels")
        ).row(0)
        assert row[0] == "maint" and "duplicate" not in row[1]  # relabelled away...
        events = st.events_frame(repo="microsoft/onnxruntime").filter(pl.col("number") == 2)
        assert "duplicate" in events["label"].to_list()  # ...but its history says it was one


def test_evaluate_refuses_archive_with_several_sets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ann = tmp_path / "a.csv"
    ann.write_text(
        "repo,number,category,canonical_repo,canonical_number,note\nrust-lang/rust,1,hard_negative,,,\n"
    )
    assert (
        _run(
            [
                "links",
                "evaluate",
                "--annotations",
                str(ann),
                "--annotations",
                str(ann),
                "--archive",
                str(tmp_path),
            ]
        )
        == 2
    )
    assert "single --annotations" in capsys.readouterr().err


def test_show_leaves_out_what_a_link_does_not_know(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "store"
    with Store.open(root, create=True) as st:  # GitHub's schema lets the association be null
        st.write_page(
            "acme/widgets",
            issues=issue_rows("acme/widgets", [issue(1), issue(2)]),
            comments=comment_rows(
                "acme/widgets",
                [comment(2, "Duplicate of #1", cid=1, assoc=None)],  # type: ignore[arg-type]
            ),
        )
    assert _run(["links", "show", "acme/widgets#2", "--store", str(root)]) == 0
    shown = capsys.readouterr().out
    assert "  by maint at 2015-03-02" in shown and "None" not in shown
