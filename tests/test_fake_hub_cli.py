"""`issues-sts fake-hub`: the loopback Hub as a command, and a push to it the way the README
tells (HF_ENDPOINT). The push and a download of what was pushed, written to a file as a
scheduler's log would be, carry no progress bar of huggingface_hub's (they were full of ANSI
escapes; `diff ... --quiet` still said "Fetching 5 files")."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from issues_sts.dataset.build import BuildConfig, run_build
from tests.cli_process import script
from tests.dataset_store import make_store

TOKEN = "hf_fake_token"


@pytest.fixture(scope="module")
def hub_url() -> Iterator[str]:
    proc = subprocess.Popen(
        [script(), "fake-hub", "--port", "0", "--token", TOKEN],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()
    assert first.startswith("hub url: http://127.0.0.1:"), first + proc.stderr.read()
    yield first.split(": ", 1)[1].strip()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    assert "stopped; 1 repositories were pushed to" in proc.stderr.read()


def _into_file(args: list[str], log: Path, url: str, home: Path) -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING"))}
    env |= {
        "HF_ENDPOINT": url,
        "HF_HUB_DISABLE_XET": "1",
        "HF_TOKEN": TOKEN,
        "HF_HOME": str(home),
        "HF_HUB_OFFLINE": "0",
    }
    with log.open("w") as sink:
        code = subprocess.run(
            [script(), *args], stdout=sink, stderr=subprocess.STDOUT, env=env, timeout=300
        ).returncode
    return code, log.read_text()


def test_push_to_the_fake_hub_command_writes_no_bars_into_a_file(
    hub_url: str, tmp_path: Path
) -> None:
    dataset = tmp_path / "dataset"
    run_build(BuildConfig(store=make_store(tmp_path / "store"), out=dataset))
    home = tmp_path / "hf"
    code, text = _into_file(
        ["push", "--dataset", str(dataset), "--repo-id", "me/gis", "--tag", "t1"],
        tmp_path / "push.log",
        hub_url,
        home,
    )
    assert code == 0, text
    assert "me/gis" in text and "\x1b[" not in text and "%|" not in text, text
    code, text = _into_file(
        ["diff", str(dataset), "me/gis@t1", "--quiet"], tmp_path / "diff.log", hub_url, home
    )
    assert code == 0, text
    assert "Fetching" not in text and "\x1b[" not in text, text
