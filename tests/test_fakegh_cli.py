"""`issues-sts fake-github` serves until interrupted and prints what a crawler needs, months
later with `--grow N`."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from issues_sts.sandbox.github.server import GROW_PATH
from issues_sts.sandbox.worlds.generator import generate_world, preset

COMMAND = [sys.executable, "-m", "issues_sts.cli.app", "fake-github"]


@contextmanager
def serving(*args: str) -> Iterator[dict[str, str]]:
    """Start `fake-github ARGS`, yield what it printed (api url, token, ...), stop it with
    Ctrl-C; its exit status is checked on the way out, and its stderr lands in "stderr"."""
    proc = subprocess.Popen(
        [*COMMAND, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    fields: dict[str, str] = {}
    try:
        lines = [proc.stdout.readline() for _ in range(5)]  # type: ignore[union-attr]
        fields |= {key: value.strip() for key, value in (line.split(":", 1) for line in lines)}
        yield fields
    finally:
        proc.send_signal(signal.SIGINT)
        _, fields["stderr"] = proc.communicate(timeout=20)
    assert proc.returncode == 0 and "Traceback" not in fields["stderr"]


def test_serves_a_world_and_stops_on_ctrl_c() -> None:
    with serving("--world", "tiny", "--seed", "2") as fields:
        api_url, token = fields["api url"], fields["token"]
        repo = fields["repositories"].split()[0]
        answer = httpx.get(
            f"{api_url}/repos/{repo}/issues?state=all", headers={"Authorization": f"token {token}"}
        )
        assert answer.status_code == 200 and len(answer.json()) == 30
    assert "stopped after 1 requests" in fields["stderr"]


def test_serves_the_world_months_later() -> None:
    with serving("--world", "tiny", "--seed", "2", "--grow", "2", "--quiet") as fields:
        tiny = generate_world(preset("tiny", seed=2))
        assert len(fields["repositories"].split()) == len(tiny.repos) + 2  # a repository a month
        assert GROW_PATH in fields["grow it"]


def test_unknown_world_is_a_one_line_error() -> None:
    done = subprocess.run(
        [*COMMAND, "--world", "nowhere"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "unknown world 'nowhere'" in done.stderr and "Traceback" not in done.stderr


def test_a_token_no_crawl_could_send_is_refused() -> None:
    """The crawler refuses a token under 8 characters; a server accepting only such a token
    could not be crawled at all."""
    done = subprocess.run([*COMMAND, "--token", "tok"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 5
    assert "fewer than 8 characters" in done.stderr and "Traceback" not in done.stderr


def test_the_help_names_the_fault_kinds_the_server_has() -> None:
    """`--fault-rate`'s help lists the kinds from a copy in the CLI (so that the command module
    does not import the sandbox for every command): the copy is the server's list."""
    from issues_sts.cli import fake
    from issues_sts.sandbox.github.settings import FAULT_KINDS

    assert fake.FAULT_KINDS == FAULT_KINDS
