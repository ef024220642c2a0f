"""Every documented exit status, produced by the installed console script in its own process.

Each row is a bad input or a situation a user meets, the status the process must end with,
and the words its one error line must carry. The README's exit-code table is checked
against `issues_sts.errors.EXIT_CODES`, the table the code exits by.
"""

from __future__ import annotations

import re
import signal
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from issues_sts.errors import EXIT_CODES
from issues_sts.sandbox.github.server import FakeGitHub
from issues_sts.sandbox.github.settings import FakeSettings
from issues_sts.store import Store
from tests.cli_process import free_port, run, run_and_signal
from tests.crawl_support import TOKEN, small_world
from tests.dataset_store import make_store

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub(small_world(repos=1, issues=40)) as gh:
        yield gh


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("stores")
    good = make_store(root / "good")
    nodups = make_store(root / "nodups", with_duplicates=False)
    empty = root / "empty"
    Store.open(empty, create=True).close()
    damaged = root / "damaged"
    make_store(damaged)
    db = next(damaged.glob("*.sqlite*"))
    with sqlite3.connect(db) as conn:  # fold the WAL in, so the damage below hits real pages
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        # the pages of the issues the build reads (dbstat is SQLite's own page map)
        page = conn.execute(
            "SELECT max(pageno) FROM dbstat WHERE name='issues' AND pagetype='leaf'"
        ).fetchone()[0]
    data = bytearray(db.read_bytes())
    start = (page - 1) * size
    data[start : start + size] = b"\xa5" * size
    db.write_bytes(bytes(data))
    return {"good": good, "nodups": nodups, "empty": empty, "damaged": damaged, "root": root}


def _one_error_line(err: str, *needles: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in err, err[-3000:]
    for needle in needles:
        assert needle in errors[0], errors[0]


def test_0_success() -> None:
    result = run(["--version"])
    assert result.code == 0 and result.out.startswith("issues-sts ")


def test_1_an_operating_system_failure_is_one_line(tmp_path: Path) -> None:
    # No check foresees a log "file" that is a folder: the OS refuses, the user gets one line.
    result = run(["crawl", "--repo", "a/b", "--store", str(tmp_path / "s"), "--log", str(tmp_path)])
    assert result.code == 1
    _one_error_line(result.err, "Is a directory", str(tmp_path))


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["crawl", "--repos", "{root}/bad.yaml", "--store", "{root}/s2"], "bad.yaml"),
        (["crawl", "--repo", "a/b", "--api-url", "http://", "--store", "{root}/s2"], "--api-url"),
        (["build", "--store", "{good}", "--seed", "-1", "--out", "{root}/o"], "--seed"),
        (
            [
                "build",
                "--store",
                "{good}",
                "--tokenizer",
                "./no-such-tokenizer",
                "--out",
                "{root}/o",
            ],
            "no tokenizer",
        ),
        (
            [
                "build",
                "--store",
                "{good}",
                "--tokenizer",
                "nobody/no-such-tokenizer",
                "--out",
                "{root}/o",
            ],
            "local cache",
        ),
        (["push", "--repo-id", "not-a-repo-id", "--dataset", "{root}"], "--repo-id"),
    ],
)
def test_2_bad_configuration(args: list[str], needle: str, stores: dict[str, Path]) -> None:
    (stores["root"] / "bad.yaml").write_text("repos: [rust-lang/rust\n  - : :\n")
    result = run([a.format(**stores) for a in args])
    assert result.code == 2
    _one_error_line(result.err, needle)
    assert not (stores["root"] / "o").exists()


def test_2_usage_errors_show_the_usage() -> None:
    result = run(["build", "--no-such-option"])
    assert result.code == 2 and "No such option" in result.err and "Traceback" not in result.err


@pytest.mark.parametrize(
    ("command", "store", "needle"),
    [
        ("status", "missing", "no crawl store"),
        ("status", "damaged", "crawl store"),
        ("build", "damaged", "crawl store"),
        ("build", "empty", "holds no issues"),
    ],
)
def test_3_store_problems(command: str, store: str, needle: str, stores: dict[str, Path]) -> None:
    path = stores.get(store, stores["root"] / "missing")
    extra = ["--out", str(stores["root"] / "o3")] if command == "build" else []
    result = run([command, "--store", str(path), *extra])
    assert result.code == 3
    _one_error_line(result.err, needle)


def test_4_a_repository_that_does_not_exist(github: FakeGitHub, tmp_path: Path) -> None:
    real = next(iter(github.corpus.repos))
    result = run(
        [
            "crawl",
            "--quiet",
            "--api-url",
            github.api_url,
            "--repo",
            real,
            "--repo",
            "nobody/nothing",
            "--store",
            str(tmp_path / "s"),
        ],
        GITHUB_TOKEN=TOKEN,
    )
    assert result.code == 4
    _one_error_line(result.err, "nobody/nothing (missing)")
    assert Store.open(tmp_path / "s").repo_counts()[0]["issues"] > 0  # the real one was crawled


def test_4_a_closed_port_fails_within_seconds(tmp_path: Path) -> None:
    result = run(
        [
            "crawl",
            "--quiet",
            "--api-url",
            f"http://127.0.0.1:{free_port()}",
            "--repo",
            "a/b",
            "--store",
            str(tmp_path / "s"),
        ],
        GITHUB_TOKEN=TOKEN,
    )
    assert result.code == 4
    _one_error_line(result.err, "cannot reach", "Connection refused")
    assert result.seconds < 60  # was 243 s of silence


def test_5_a_rejected_token(github: FakeGitHub, tmp_path: Path) -> None:
    wrong = "ghp_" + "x" * 36
    result = run(
        [
            "crawl",
            "--quiet",
            "--api-url",
            github.api_url,
            "--repo",
            next(iter(github.corpus.repos)),
            "--store",
            str(tmp_path / "s"),
        ],
        GITHUB_TOKEN=wrong,
    )
    assert result.code == 5
    _one_error_line(result.err, "token was rejected")
    assert wrong not in result.out + result.err


def test_6_dataset_problems(stores: dict[str, Path], tmp_path: Path) -> None:
    result = run(["build", "--store", str(stores["nodups"]), "--out", str(tmp_path / "o")])
    assert result.code == 6
    _one_error_line(result.err, "no usable duplicate links")
    (tmp_path / "readonly").mkdir(mode=0o555)
    result = run(["build", "--store", str(stores["good"]), "--out", str(tmp_path / "readonly")])
    assert result.code == 6
    _one_error_line(result.err, "read-only")
    assert (tmp_path / "readonly").stat().st_mode & 0o777 == 0o555  # not replaced
    assert result.seconds < 60  # refused before the build, not after it


def test_7_an_unreachable_hub(stores: dict[str, Path], tmp_path: Path) -> None:
    built = tmp_path / "ds"
    assert run(["build", "--quiet", "--store", str(stores["good"]), "--out", str(built)]).code == 0
    result = run(
        ["push", "--repo-id", "me/ds", "--dataset", str(built)],
        HF_ENDPOINT=f"http://127.0.0.1:{free_port()}",
        HF_TOKEN="hf_" + "y" * 30,
        HF_HUB_OFFLINE="0",
        HF_HOME=str(tmp_path / "hf"),
    )
    assert result.code == 7
    _one_error_line(result.err, "cannot reach the Hub")


def test_8_training_data_that_cannot_be_used(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = run(["train", "--dataset", str(tmp_path / "empty"), "--out", str(tmp_path / "run")])
    assert result.code == 8
    _one_error_line(result.err, "cannot load pairs")


@pytest.mark.parametrize(
    ("signum", "code", "word"),
    [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated (SIGTERM)")],
)
def test_130_and_143_stop_a_rate_limit_wait_at_once(
    signum: int, code: int, word: str, tmp_path: Path
) -> None:
    settings = FakeSettings(unauthenticated_limit=3, reset_seconds=3600)
    with FakeGitHub(small_world(repos=1, issues=400), settings) as gh:
        args = [
            "crawl",
            "--api-url",
            gh.api_url,
            "--repo",
            next(iter(gh.corpus.repos)),
            "--store",
            str(tmp_path / "s"),
            "--quiet",
        ]
        result, after = run_and_signal(args, "waiting", signum, timeout=120)
    assert result.code == code and after < 15
    assert "no token" in result.err and "until" in result.err  # the wait said why, and until when
    assert f"{word}: " in result.err and "pages committed" in result.err
    resume = next(line for line in result.err.splitlines() if line.startswith("to resume:"))
    assert resume.split(":", 1)[1].split("(")[0].strip() == "issues-sts " + " ".join(args)


def test_the_readme_table_is_the_codes_table() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `(\d+)` \| (.+?) \|$", readme, flags=re.M))
    assert {int(code): text for code, text in rows.items()} == dict(EXIT_CODES)
