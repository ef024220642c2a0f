"""`issues-sts fake-github` serves until interrupted and prints what a crawler needs."""

from __future__ import annotations

import signal
import subprocess
import sys

import httpx

COMMAND = [sys.executable, "-m", "issues_sts.cli.app", "fake-github"]


def test_serves_a_world_and_stops_on_ctrl_c() -> None:
    proc = subprocess.Popen(
        [*COMMAND, "--world", "tiny", "--seed", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = [proc.stdout.readline() for _ in range(4)]  # type: ignore[union-attr]
        fields = dict(line.split(":", 1) for line in lines)
        api_url, token = fields["api url"].strip(), fields["token"].strip()
        repo = fields["repositories"].split()[0]
        answer = httpx.get(
            f"{api_url}/repos/{repo}/issues?state=all", headers={"Authorization": f"token {token}"}
        )
        assert answer.status_code == 200 and len(answer.json()) == 30
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0
    assert "stopped after 1 requests" in err


def test_unknown_world_is_a_one_line_error() -> None:
    done = subprocess.run(
        [*COMMAND, "--world", "nowhere"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "unknown world 'nowhere'" in done.stderr and "Traceback" not in done.stderr
