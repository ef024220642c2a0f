"""Every documented exit status, produced by the installed console script in its own process.

Each row is a bad input or a situation a user meets, the status the process must end with,
and the words its one error line must carry. The README's exit-code table is checked
against `issues_sts.errors.EXIT_CODES`, the table the code exits by. Status 1 is a bug: it is
produced through `app.run` (what the console script calls) with a command that fails the way
no check foresaw.

Operating-system failures are made in ways that fail for root too (CI may run as root, for
whom a read-only mode is no obstacle): a path under a regular file (ENOTDIR) and /dev/full
(ENOSPC, a full disk).
"""

from __future__ import annotations

import json
import re
import signal
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer

from issues_sts.cli.app import run as run_app
from issues_sts.cli.common import dropped_secret_note, resume_command
from issues_sts.errors import EXIT_CODES
from issues_sts.sandbox.github.server import FakeGitHub
from issues_sts.sandbox.github.settings import FakeSettings
from issues_sts.store import CRAWL_CONFIG, Store
from tests.cli_process import free_port, run, run_and_signal
from tests.crawl_support import TOKEN, small_world
from tests.dataset_store import make_store
from tests.test_training_support import make_pairs_folder, tiny_encoder

FULL_DISK = Path("/dev/full")
needs_full_disk = pytest.mark.skipif(not FULL_DISK.exists(), reason="no /dev/full here")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub(small_world(repos=1, issues=40)) as gh:
        yield gh


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A small pair dataset and a tiny saved encoder: train and evaluate in seconds."""
    root = tmp_path_factory.mktemp("pairs")
    tiny_encoder().save(root / "model")
    return {
        "data": make_pairs_folder(root / "data", {"train": 8, "valid": 8, "test": 8}),
        "model": root / "model",
        "file": _regular_file(root),
    }


def _regular_file(root: Path) -> Path:
    path = root / "a-file"
    path.write_text("not a folder\n")
    return path


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
    incomplete = make_store(root / "incomplete")
    with Store.open(incomplete) as store:
        store.upsert_repo("acme/gadgets", status="pending")  # its crawl stopped half-way
    (incomplete / CRAWL_CONFIG).write_text(
        json.dumps({"repos": ["acme/widgets", "acme/gadgets", "acme/never"]})
    )
    return {
        "good": good,
        "nodups": nodups,
        "empty": empty,
        "damaged": damaged,
        "incomplete": incomplete,
        "file": _regular_file(root),
        "root": root,
    }


def _crawl(gh: FakeGitHub, store: Path) -> list[str]:
    """A quiet crawl of the fake's first repository into `store`."""
    repo = next(iter(gh.corpus.repos))
    return ["crawl", "--quiet", "--api-url", gh.api_url, "--repo", repo, "--store", str(store)]


def _one_error_line(err: str, *needles: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in err, err[-3000:]
    for needle in needles:
        assert needle in errors[0], errors[0]


def test_0_success() -> None:
    result = run(["--version"])
    assert result.code == 0 and result.out.startswith("issues-sts ")


def _failing_app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def root(debug: bool = typer.Option(False, "--debug")) -> None:
        """As the program's own: --debug before the command."""

    @app.command("bug")
    def bug() -> None:
        raise RuntimeError("an invariant that does not hold")

    @app.command("os")
    def os_failure() -> None:
        raise OSError(5, "Input/output error", "/somewhere/unforeseen")

    return app


@pytest.mark.parametrize(("command", "needle"), [("bug", "RuntimeError"), ("os", "/somewhere")])
def test_1_an_unexpected_failure_is_one_line_and_debug_keeps_the_status(
    command: str, needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_app(_failing_app(), [command], "issues-sts") == 1
    err = capsys.readouterr().err
    _one_error_line(err, needle, "--debug")
    assert run_app(_failing_app(), ["--debug", command], "issues-sts") == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and len([x for x in err.splitlines() if x.startswith("error:")]) == 1


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


@pytest.mark.parametrize("split", ["nonsense", "validation"])
def test_2_a_split_the_dataset_lacks_is_a_usage_error(split: str, pairs: dict[str, Path]) -> None:
    args = ["evaluate", "--dataset", str(pairs["data"]), "--model", str(pairs["model"])]
    result = run([*args, "--split", split])
    assert result.code == 2  # was 8, and `validation` was quietly read as `valid`
    _one_error_line(result.err, f"no split '{split}'", "(it has train, ", "valid", "--split")
    debug = run(["--debug", *args, "--split", split])
    assert debug.code == 2 and "Traceback" in debug.err


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


@pytest.mark.parametrize(
    "command",
    [
        ["crawl", "--repo", "a/b"],
        ["status"],
        ["build", "--out", "{root}/o-file"],
        ["links", "extract", "--out", "{root}/l-file"],
        ["links", "show", "a/b#1"],
        ["pretrain-ran", "--out", "{root}/r-file", "--model", "ran-tiny"],
    ],
    ids=lambda c: " ".join(c[:2]),
)
def test_3_a_store_that_is_a_regular_file_is_3_everywhere(
    command: list[str], stores: dict[str, Path]
) -> None:
    args = [a.format(**stores) for a in command]
    result = run([*args, "--store", str(stores["file"])], GITHUB_TOKEN=TOKEN)
    assert result.code == 3  # crawl said 1, status and build 3
    _one_error_line(result.err, "is a file, not a crawl store folder")


def test_3_the_store_cannot_be_created(stores: dict[str, Path]) -> None:
    store = stores["file"] / "store"  # under a regular file: ENOTDIR, also for root
    result = run(["crawl", "--repo", "a/b", "--store", str(store)], GITHUB_TOKEN=TOKEN)
    assert result.code == 3  # was 1
    _one_error_line(result.err, "cannot be created", "Not a directory")


def test_3_build_refuses_an_incomplete_store(stores: dict[str, Path], tmp_path: Path) -> None:
    result = run(["build", "--store", str(stores["incomplete"]), "--out", str(tmp_path / "o")])
    assert result.code == 3
    _one_error_line(
        result.err,
        "incomplete: 2 repositories",
        "acme/gadgets (pending)",
        "acme/never (never started)",
        "--allow-incomplete",
    )
    assert not (tmp_path / "o").exists()


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


@pytest.mark.parametrize("variable", ["GITHUB_TOKEN", "GH_TOKEN"])
def test_5_a_rejected_token(github: FakeGitHub, tmp_path: Path, variable: str) -> None:
    wrong = "ghp_" + "x" * 36
    result = run(_crawl(github, tmp_path / "s"), **{variable: wrong})
    assert result.code == 5
    _one_error_line(result.err, "token was rejected", f"check the token from {variable}")
    assert wrong not in result.out + result.err


@pytest.mark.parametrize(
    ("command", "needle"),
    [
        (["links", "extract", "--store", "{good}", "--out", "{file}/links"], "--out"),
        (["demo", "--no-train", "--world", "tiny", "--out", "{file}/demo"], "--out"),
        (["crawl", "--repo", "a/b", "--store", "{root}/s6", "--log", "{root}"], "--log"),
    ],
    ids=lambda c: " ".join(c[:2]) if isinstance(c, list) else c,
)
def test_6_an_output_the_os_refuses(
    command: list[str], needle: str, stores: dict[str, Path]
) -> None:
    result = run([a.format(**stores) for a in command])
    assert result.code == 6  # links extract said 1, crawl's --log 1
    _one_error_line(result.err, needle, "cannot be written")


@needs_full_disk
def test_6_a_full_disk_under_a_log_or_a_metrics_file(
    github: FakeGitHub, pairs: dict[str, Path], tmp_path: Path
) -> None:
    result = run([*_crawl(github, tmp_path / "s"), "--log", str(FULL_DISK)], GITHUB_TOKEN=TOKEN)
    assert result.code == 6
    _one_error_line(result.err, "--log /dev/full stopped", "No space left on device")
    evaluate = ["evaluate", "--dataset", str(pairs["data"]), "--model", str(pairs["model"])]
    result = run([*evaluate, "--json-out", str(FULL_DISK)])
    assert result.code == 6  # evaluate said 1
    _one_error_line(result.err, "--json-out /dev/full cannot be written", "No space left")
    result = run([*evaluate, "--plot", str(pairs["file"] / "density.png")])
    assert result.code == 6
    _one_error_line(result.err, "--plot", "cannot be written", str(pairs["file"]))


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


def test_6_a_dataset_that_cannot_be_read(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = run(["train", "--dataset", str(tmp_path / "empty"), "--out", str(tmp_path / "run")])
    assert result.code == 6  # was 8; diff, push and build --previous said 6
    _one_error_line(result.err, "cannot load pairs")


def test_8_a_run_folder_the_os_refuses(pairs: dict[str, Path]) -> None:
    args = ["train", "--dataset", str(pairs["data"]), "--model", str(pairs["model"])]
    result = run([*args, "--out", str(pairs["file"] / "run"), "--max-length", "16", "--quiet"])
    assert result.code == 8  # train said 1
    _one_error_line(result.err, "training cannot read or write", "Not a directory")


def test_8_a_sample_of_one_label(pairs: dict[str, Path], tmp_path: Path) -> None:
    one_label = make_pairs_folder(tmp_path / "d", {"train": 4, "test": 1})
    args = ["evaluate", "--dataset", str(one_label), "--model", str(pairs["model"])]
    result = run([*args, "--json"])
    assert result.code == 8 and result.out == ""  # was NaN in "JSON" and exit 0
    _one_error_line(result.err, "only label 1 pairs", "need both labels")


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


@pytest.mark.parametrize(
    ("args", "variable"),
    [
        (["crawl", "--repo", "a/b", "--token", "ghp_secret", "--store", "s"], "GITHUB_TOKEN"),
        (["--debug", "crawl", "--token=ghp_secret", "--store", "s"], "GITHUB_TOKEN"),
        (["push", "--repo-id", "me/x", "--token", "ghp_secret", "--dataset", "d"], "HF_TOKEN"),
    ],
)
def test_the_resume_line_drops_the_token_and_says_where_to_put_it(
    args: list[str], variable: str
) -> None:
    line = resume_command("issues-sts", args)
    assert "ghp_secret" not in line and "--token" not in line
    assert line.endswith("--store s") or line.endswith("--dataset d")
    assert dropped_secret_note(args) == (
        f"--token is left out of this line: export {variable}=... first"
    )


def test_the_resume_line_of_a_run_without_a_token_option_has_no_note() -> None:
    args = ["crawl", "--repo", "a/b", "--store", "s"]
    assert resume_command("issues-sts", args) == "issues-sts crawl --repo a/b --store s"
    assert dropped_secret_note(args) is None


def test_the_readme_table_is_the_codes_table() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `(\d+)` \| (.+?) \|$", readme, flags=re.M))
    assert {int(code): text for code, text in rows.items()} == dict(EXIT_CODES)
