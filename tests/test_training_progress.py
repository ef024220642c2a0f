"""`issues-sts train > train.log 2>&1`: the log shows the run at once and then a timestamped
line (step, loss, pairs/s, ETA) at least every `--progress-every` seconds, and a resumed run
says that it resumed (the log stayed empty for a minute, and the bar appeared at the end)."""

from __future__ import annotations

import re
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.cli_process import env, script
from tests.test_training_support import make_pairs_folder, tiny_encoder

STAMP = re.compile(r"^\[\d\d:\d\d:\d\d\] ")
STEP_LINE = re.compile(r"^\[\d\d:\d\d:\d\d\] train step \d+/16 loss \S+ \S+ pairs/s (ETA|done)")


def _follow(args: list[str], log: Path) -> tuple[int, list[tuple[float, str]]]:
    """Run the console script into `log` as `> log 2>&1` does; when each line appeared."""
    seen: list[tuple[float, str]] = []
    plain = {k: v for k, v in env().items() if k != "PYTHONUNBUFFERED"}
    with log.open("w") as sink:
        started = time.monotonic()
        proc = subprocess.Popen([script(), *args], stdout=sink, stderr=sink, env=plain)
        done = threading.Event()

        def watch() -> None:
            while not done.is_set():
                lines = log.read_text().splitlines()
                seen.extend((time.monotonic() - started, ln) for ln in lines[len(seen) :])
                done.wait(0.05)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        code = proc.wait(timeout=600)
        done.set()
        watcher.join()
    lines = log.read_text().splitlines()
    seen.extend((time.monotonic() - started, ln) for ln in lines[len(seen) :])
    return code, seen


@pytest.mark.slow  # two real training processes (torch loads twice)
def test_a_run_into_a_log_file_writes_a_line_every_progress_every_seconds(
    tmp_path: Path,
) -> None:
    data = make_pairs_folder(tmp_path / "pairs", {"train": 64})
    tiny_encoder("avg").save(tmp_path / "tiny")
    args = ["train", "--dataset", str(data), "--model", str(tmp_path / "tiny")]
    args += ["--out", str(tmp_path / "run"), "--max-length", "16", "--batch-size", "4"]
    args += ["--warmup-steps", "1", "--valid-split", "", "--device", "cpu"]  # 16 steps
    code, first = _follow([*args, "--stop-after-steps", "2"], tmp_path / "first.log")
    assert code == 0, first
    code, seen = _follow([*args, "--progress-every", "1"], tmp_path / "train.log")
    text = "\n".join(line for _, line in seen)
    assert code == 0, text[-3000:]
    assert any("resuming" in line and "step 2" in line for _, line in seen), text[-3000:]
    steps = [line for _, line in seen if STEP_LINE.match(line)]
    assert steps[0].split()[3] == "2/16" and steps[-1].split()[3] == "16/16", text[-3000:]
    assert steps[-1].endswith("done") and any("ETA" in line for line in steps)
    # a stamped line every second or so from the first to the last, loading included (slack
    # for a busy 2-core machine)
    times = [t for t, line in seen if STAMP.match(line)]
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert len(steps) >= 2 and max(gaps) < 3, (gaps, text[-3000:])
