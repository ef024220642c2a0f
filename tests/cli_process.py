"""Run the installed `issues-sts` console script as a separate process, the way a scheduler
or a shell script does: exit statuses, signals and one-line errors are the process's own."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

SCRIPT = shutil.which("issues-sts", path=str(Path(sys.executable).parent))


@dataclass(frozen=True)
class Outcome:
    code: int
    out: str
    err: str
    seconds: float

    @property
    def error_lines(self) -> list[str]:
        return [line for line in self.err.splitlines() if line.startswith("error:")]

    @property
    def text(self) -> str:
        return " ".join((self.out + "\n" + self.err).split())


def script() -> str:
    if SCRIPT is None:  # pragma: no cover - the package is installed by `make install`
        raise RuntimeError("the issues-sts console script is not installed next to this Python")
    return SCRIPT


def env(**extra: str) -> dict[str, str]:
    """A quiet, offline environment without tokens, plus `extra`."""
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GITHUB_TOKEN", "GH_TOKEN", "HF_TOKEN", "HUGGING"))
    }
    base |= {"NO_COLOR": "1", "COLUMNS": "200", "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}
    return base | extra


def run(args: list[str], *, cwd: Path | None = None, timeout: float = 240, **extra: str) -> Outcome:
    started = time.monotonic()
    done = subprocess.run(
        [script(), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=env(**extra),
        stdin=subprocess.DEVNULL,
    )
    return Outcome(done.returncode, done.stdout, done.stderr, time.monotonic() - started)


def run_and_signal(
    args: list[str], marker: str, signum: int = signal.SIGINT, *, timeout: float = 240, **extra: str
) -> tuple[Outcome, float]:
    """Start the command, send `signum` once `marker` appears on stderr; return the outcome and
    the seconds from the signal to the process's end."""
    proc = subprocess.Popen(
        [script(), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(**extra),
        stdin=subprocess.DEVNULL,
        preexec_fn=_default_sigint,
    )
    err: list[str] = []
    seen = threading.Event()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            err.append(line)
            if marker in line:
                seen.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    started = time.monotonic()
    if not seen.wait(timeout):
        proc.kill()
        raise AssertionError(f"{marker!r} never appeared: {''.join(err)[-2000:]}")
    signalled = time.monotonic()
    proc.send_signal(signum)
    out = proc.stdout.read() if proc.stdout is not None else ""
    proc.wait(timeout=60)
    reader.join(timeout=10)
    ended = time.monotonic()
    return Outcome(proc.returncode, out, "".join(err), ended - started), ended - signalled


def _default_sigint() -> None:
    # A test runner started in the background inherits an ignored SIGINT (shells do that to
    # background jobs) and Python keeps it ignored; a user's terminal does not. The same for
    # SIGHUP under nohup.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def raw_server(reply: bytes, *, stall: float = 0.0) -> Iterator[str]:
    """A TCP server on 127.0.0.1 that answers every connection with `reply` (any bytes, not
    necessarily HTTP), then holds the connection for `stall` seconds before closing it."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            with conn:
                try:
                    conn.recv(65536)
                    conn.sendall(reply)
                    stop.wait(stall)
                except OSError:
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(timeout=5)
        listener.close()
