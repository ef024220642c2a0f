"""Commands that only read a store work on one the process cannot write (read-only media, an
archived copy): `status`, `build` and `links show` open it read-only (SQLite `mode=ro`, or
`immutable=1` where not even the `-shm` file can be made) and change nothing.

Read-only to the process means what the kernel enforces: the store's folder and files are
made read-only, and where the tests run as root (whom permissions do not stop) the commands
run without the capabilities that let root ignore them."""

from __future__ import annotations

import ctypes
import os
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from issues_sts.sandbox.github.server import FakeGitHub
from issues_sts.store import DB_NAME, Store
from tests.cli_process import Outcome, env, script
from tests.crawl_support import crawl, small_world

# capabilities that let root write what permissions forbid (linux/capability.h)
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH, _CAP_FOWNER = 1, 2, 3
_PR_CAPBSET_DROP = 24


def _unprivileged() -> Callable[[], None] | None:
    """Before exec, drop what lets root ignore permissions (the command then runs as a root
    that file modes stop, as any user); None when not root (modes stop it already)."""
    if os.geteuid() != 0:
        return None
    libc = ctypes.CDLL(None, use_errno=True)

    def drop() -> None:
        for cap in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH, _CAP_FOWNER):
            if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")

    return drop


@pytest.fixture(scope="module")
def archived(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, str]]:
    """A finished crawl's store made read-only (folder and files), a folder to write in, and
    an issue of the store that has a link."""
    root = tmp_path_factory.mktemp("archived")
    work = tmp_path_factory.mktemp("work")
    store = root / "store"
    with FakeGitHub(small_world(seed=3, repos=2, issues=150)) as gh:
        assert crawl(gh, store).ok
    with Store.open(store) as db:
        frame = db.events_frame().drop_nulls("canonical_number")
        row = frame.row(0, named=True)
    assert not list(store.glob("*-wal")) and not list(store.glob("*-shm"))  # closed cleanly
    for path in store.iterdir():
        path.chmod(0o444)
    store.chmod(0o555)
    try:
        yield store, work, f"{row['repo']}#{row['number']}"
    finally:
        store.chmod(0o755)


def _run_readonly(args: list[str], home: Path) -> Outcome:
    done = subprocess.run(
        [script(), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env(HOME=str(home), MPLCONFIGDIR=str(home / "mpl")),
        cwd=home,
        stdin=subprocess.DEVNULL,
        preexec_fn=_unprivileged(),
    )
    return Outcome(done.returncode, done.stdout, done.stderr, 0.0)


def _unchanged(store: Path) -> dict[str, tuple[int, int]]:
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in store.iterdir()}


def test_the_store_is_really_read_only_to_the_commands(archived: tuple[Path, Path, str]) -> None:
    store, work, _ = archived
    probe = _run_readonly(["crawl", "--repo", "a/b", "--store", str(store), "--quiet"], work)
    assert probe.code == 3, probe.err  # a crawl, which writes, is refused by the kernel


@pytest.mark.parametrize(
    "command",
    [
        ["status"],
        ["status", "--json"],
        ["build", "--out", "{work}/dataset", "--quiet"],
        ["links", "show", "{issue}"],
    ],
)
def test_read_only_commands_work_on_a_read_only_store(
    command: list[str], archived: tuple[Path, Path, str]
) -> None:
    store, work, issue = archived
    before = _unchanged(store)
    args = [a.format(work=work, issue=issue) for a in command]
    result = _run_readonly([*args, "--store", str(store)], work)
    assert result.code == 0, result.err[-2000:]  # exit 3: "cannot be opened for writing"
    assert _unchanged(store) == before  # no -wal, no -shm, nothing written


def test_a_writable_store_opened_read_only_refuses_writes(tmp_path: Path) -> None:
    with FakeGitHub(small_world(repos=1, issues=20)) as gh:
        crawl(gh, tmp_path)
    with Store.open(tmp_path, readonly=True) as db:
        assert db.read_query == "mode=ro"  # immutable only where not even -shm can be made
        assert db.repo_counts()[0]["issues"] > 0
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            db.upsert_repo("x/y", status="ok")


def test_an_unreplayable_write_ahead_log_is_refused_not_missed(tmp_path: Path) -> None:
    with FakeGitHub(small_world(repos=1, issues=20)) as gh:
        crawl(gh, tmp_path)
    (tmp_path / f"{DB_NAME}-wal").write_bytes(b"\0" * 64)  # pages the file does not hold
    tmp_path.chmod(stat.S_IRUSR | stat.S_IXUSR)
    probe = "from issues_sts.store import Store; Store.open({!r}, readonly=True)"
    try:
        done = subprocess.run(
            [sys.executable, "-c", probe.format(str(tmp_path))],
            capture_output=True,
            text=True,
            timeout=120,
            preexec_fn=_unprivileged(),
        )
    finally:
        tmp_path.chmod(0o755)
    assert done.returncode != 0 and "write-ahead log" in done.stderr, done.stderr[-2000:]
