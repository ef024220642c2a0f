"""The exit table of `test_exit_codes.py`, driven through every command (issue 33): a parser
error, a dataset or store that is not there, and an output the operating system refuses each
end with the table's status and exactly one `error:` line on stderr; and the outputs nobody can
use (an empty split, a score over no rows) are errors, never exit 0.

Each runs the installed console script in its own process. An unwritable output is a path under
a regular file (ENOTDIR), which fails for root too.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from issues_sts.cli.app import app
from issues_sts.cli.app import run as run_app
from issues_sts.sandbox.stores import raw_comment, raw_issue, write_store
from tests.cli_process import run
from tests.crawl_support import TOKEN
from tests.dataset_store import make_store
from tests.test_training_support import make_pairs_folder, tiny_encoder


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A good store, its build, a small pair dataset, a tiny encoder and a regular file."""
    root = tmp_path_factory.mktemp("every-command")
    tiny_encoder().save(root / "model")
    (root / "a-file").write_text("not a folder\n")
    return {
        "root": root,
        "good": make_store(root / "good"),
        "data": make_pairs_folder(root / "data", {"train": 8, "valid": 8, "test": 8}),
        "model": root / "model",
        "file": root / "a-file",
        "missing": root / "no such folder",
    }


def _ids(value: Any) -> str:
    return " ".join(value[:2]) if isinstance(value, list) else str(value)


def _only_error_line(err: str, *needles: str) -> None:
    """stderr is exactly one `error:` line (no click Usage/Try block, no note, no traceback)."""
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), err[-3000:]
    for needle in needles:
        assert needle in lines[0], lines[0]


# Every command with a mistake its parser catches: a range, a choice, a missing value, an
# unknown option or argument. Each was click's four-line Usage/Try/Error block, or exit 1 or 8.
PARSER_ERRORS = [
    (["crawl", "--max-requests", "0"], "--max-requests"),
    (["crawl", "--per-page", "-5"], "--per-page"),
    (["status", "--store"], "--store"),
    (["build", "--seed", "many"], "--seed"),
    (["diff", "only-one"], "new"),
    (["push", "--dataset", "x"], "--repo-id"),
    (["fake-github", "--port", "-1"], "--port"),  # was exit 1, "unexpected OverflowError"
    (["fake-github", "--port", "70000"], "--port"),
    (["demo", "--world", "huge"], "--world"),
    (["train", "--pooling", "bogus"], "--pooling"),  # was 8
    (["evaluate", "--pooling", "bogus"], "--pooling"),  # was 8
    (["evaluate", "--max-length", "0"], "--max-length"),
    (["ablate", "--no-such-option"], "No such option"),
    (["pretrain-ran", "--max-steps", "0", "--dataset", "x"], "--max-steps"),  # was 8
    (["links", "extract", "--min-confidence", "2"], "--min-confidence"),
    (["links", "show"], "Missing argument"),
    (["links", "evaluate", "--subset"], "--subset"),
    (["no-such-command"], "no-such-command"),
]


@pytest.mark.parametrize(("args", "needle"), PARSER_ERRORS, ids=_ids)
def test_2_a_parser_error_is_one_line_in_every_command(
    args: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # in this process, through `app.run` as the console script calls it: nothing runs past
    # the parser, and a process per case would cost seconds each
    assert run_app(app, args, "issues-sts") == 2
    command = args[0] if args[0] != "links" else " ".join(args[:2])
    where = "issues-sts --help" if command == "no-such-command" else f"issues-sts {command} --help"
    _only_error_line(capsys.readouterr().err, needle, f"(see `{where}`)")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["pretrain-ran", "--set", "bogus=1", "--dataset", "{data}"], "bad --set 'bogus=1'"),
        (["pretrain-ran", "--lr", "0", "--dataset", "{data}"], "--lr must be > 0"),
    ],
    ids=_ids,
)
def test_2_a_bad_option_value_found_after_parsing(
    args: list[str], needle: str, paths: dict[str, Path]
) -> None:
    result = run([a.format(**paths) for a in args])
    assert result.code == 2  # was 8, a "training problem"
    _only_error_line(result.err, needle)


# A dataset folder that is not there is 6 (a dataset problem) in every command that reads
# one; a crawl store that is not there is 3. evaluate and train said 8, pretrain-ran 8.
MISSING_INPUTS = [
    (["evaluate", "--dataset", "{missing}"], 6),
    (["train", "--dataset", "{missing}", "--out", "{root}/run"], 6),
    (["ablate", "--dataset", "{missing}", "--out", "{root}/abl"], 6),
    (["pretrain-ran", "--dataset", "{missing}", "--out", "{root}/ran"], 6),
    (["diff", "{missing}", "{missing}"], 6),
    (["build", "--store", "{good}", "--previous", "{missing}", "--out", "{root}/o"], 6),
    (["push", "--repo-id", "me/x", "--dataset", "{missing}"], 6),
    (["status", "--store", "{missing}"], 3),
    (["build", "--store", "{missing}", "--out", "{root}/o"], 3),
    (["links", "extract", "--store", "{missing}", "--out", "{root}/l"], 3),
    (["links", "show", "a/b#1", "--store", "{missing}"], 3),
    (["pretrain-ran", "--store", "{missing}", "--out", "{root}/ran"], 3),
    (["links", "evaluate", "--annotations", "{missing}"], 2),  # a file of the user's, as repos
    (["links", "evaluate-excerpts", "{missing}"], 2),  # the user's round folder
]


@pytest.mark.parametrize(("args", "code"), MISSING_INPUTS, ids=_ids)
def test_a_missing_dataset_or_store_is_one_status_everywhere(
    args: list[str], code: int, paths: dict[str, Path]
) -> None:
    result = run([a.format(**paths) for a in args], HF_TOKEN="hf_" + "y" * 30)
    assert result.code == code
    _only_error_line(result.err)


# An output the operating system refuses (a path under a regular file: ENOTDIR, also for
# root), in every command that writes one: 6, or 8 for a run folder (the table's training row).
UNWRITABLE_OUTPUTS = [
    (["build", "--store", "{good}", "--out", "{file}/o"], 6),
    (["diff", "{built}", "{built}", "--json-out", "{file}/c.json"], 6),
    (["evaluate", "--dataset", "{data}", "--model", "{model}", "--json-out", "{file}/m.json"], 6),
    (["crawl", "--repo", "a/b", "--store", "{file}/store"], 3),  # the store is its output
    (["train", "--dataset", "{data}", "--model", "{model}", "--out", "{file}/run"], 8),
    (["ablate", "--dataset", "{data}", "--model", "{model}", "--out", "{file}/abl"], 8),
    (["pretrain-ran", "--dataset", "{data}", "--model", "ran-tiny", "--out", "{file}/r"], 8),
]


@pytest.mark.parametrize(("args", "code"), UNWRITABLE_OUTPUTS, ids=_ids)
def test_an_unwritable_output_is_one_line_everywhere(
    args: list[str], code: int, paths: dict[str, Path]
) -> None:
    built = paths["root"] / "built"
    if not built.exists():
        assert (
            run(["build", "--quiet", "--store", str(paths["good"]), "--out", str(built)]).code == 0
        )
    training = args[0] in ("train", "ablate", "pretrain-ran")
    fast = ["--max-length", "16", "--max-steps", "1", "--warmup-steps", "0", "--quiet"]
    fast = fast if training else []
    result = run([*(a.format(**paths, built=built) for a in args), *fast], GITHUB_TOKEN=TOKEN)
    assert result.code == code
    _only_error_line(result.err, str(paths["file"]))


def _one_cluster_store(root: Path) -> Path:
    """One duplicate pair: one cluster, so one split; valid and test stay empty."""
    repo = "acme/tiny"
    issues = [
        raw_issue(repo, n, f"Crash {n}", f"It crashes on input {n} with flag x")
        for n in range(1, 7)
    ]
    write_store(
        root, {repo: issues}, {repo: [raw_comment(repo, 3, 5001, "Duplicate of #1")]}
    ).close()
    return root


def test_6_a_build_with_an_empty_split_is_refused(tmp_path: Path) -> None:
    store = _one_cluster_store(tmp_path / "s")
    result = run(["build", "--quiet", "--store", str(store), "--out", str(tmp_path / "o")])
    assert result.code == 6  # was exit 0 with valid 0 and test 0, and a card that did not load
    _only_error_line(
        result.err, "train 2, valid 0, test 0", "crawl more repositories", "--allow-empty-splits"
    )
    assert not (tmp_path / "o").exists()


def test_allow_empty_splits_writes_what_load_dataset_loads(
    tmp_path: Path, paths: dict[str, Path]
) -> None:
    import datasets

    store = _one_cluster_store(tmp_path / "s")
    out = tmp_path / "with space"
    args = ["build", "--quiet", "--store", str(store), "--out", str(out), "--allow-empty-splits"]
    result = run(args)
    assert result.code == 0
    hint = " ".join(result.err.split())  # the summary wraps long lines
    assert "--dataset " + shlex.quote(str(out)) + "`" in hint  # the next: hint is quoted
    datasets.disable_progress_bars()
    for config in ("default", "positive"):  # the card's own recipe
        loaded = datasets.load_dataset(str(out), config)
        assert list(loaded) == ["train"] and len(loaded["train"]) > 0
    assert sorted(p.name for p in (out / "data").iterdir()) == ["train-00000-of-00001.parquet"]
    assert json.loads((out / "build_config.json").read_text())["allow_empty_splits"] is True
    assert "--allow-empty-splits" in (out / "README.md").read_text()  # the repeating command
    evaluate = run(["evaluate", "--dataset", str(out), "--model", str(paths["model"])])
    assert evaluate.code == 2  # the default split, test, is the empty one: named as such
    _only_error_line(evaluate.err, "no split 'test'", "is empty", "--allow-empty-splits")


def test_evaluate_names_an_empty_split_of_an_older_build(tmp_path: Path) -> None:
    data = make_pairs_folder(tmp_path / "d", {"train": 4, "test": 4})
    empty = data / "data" / "valid-00000-of-00001.parquet"
    pq.write_table(pq.read_table(next((data / "data").glob("test-*.parquet"))).slice(0, 0), empty)
    result = run(["evaluate", "--dataset", str(data), "--split", "test"])
    assert result.code == 6  # was 8, "BatchSize must be greater than 0"
    _only_error_line(result.err, "valid hold no pairs", "--allow-empty-splits")


def test_2_links_evaluate_of_a_subset_without_rows(tmp_path: Path) -> None:
    annotations = tmp_path / "dev-only.csv"
    annotations.write_text(
        "repo,number,category,canonical_repo,canonical_number,note,split\n"
        "rust-lang/rust,5,duplicate,rust-lang/rust,3,,dev\n"
    )
    result = run(["links", "evaluate", "--annotations", str(annotations), "--subset", "test"])
    assert result.code == 2  # was "precision 1.0000 recall 1.0000 (TP 0 FP 0 FN 0 TN 0)"
    _only_error_line(result.err, "no annotated threads in --subset test", "dev 1, test 0")


def test_messages_name_what_the_user_typed(tmp_path: Path) -> None:
    result = run(
        [
            "crawl",
            "--repo",
            "acme/widgets",
            "--repo",
            "ACME/Widgets",
            "--store",
            str(tmp_path / "s"),
        ]
    )
    assert result.code == 2
    _only_error_line(result.err, "--repo: ACME/Widgets is given twice")  # said --repos
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "crawl.sqlite").write_bytes(b"this is not sqlite" * 100)
    result = run(["status", "--store", str(tmp_path / "bad")])
    assert result.code == 3  # the advice said a crawl "resumes from whatever is intact": nothing
    _only_error_line(result.err, "corrupt", "crawl again into a new folder")
