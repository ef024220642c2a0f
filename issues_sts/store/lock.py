"""One crawl at a time per store: an exclusive lock held by the operating system on
`crawl.lock` in the store folder. Two crawls writing one store would each trust checkpoints
the other moves; the kernel drops the lock when its process ends, however it ends (`kill -9`
included), so a stale lock can never block a resume."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from issues_sts.errors import StoreError, os_errors

LOCK_NAME = "crawl.lock"


class CrawlLock:
    """The store at `root`, held by this process between `acquire` and `release`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._fd: int | None = None

    def acquire(self) -> CrawlLock:
        """Hold the store; one another process holds is a StoreError (exit 3) naming it."""
        with os_errors(StoreError, f"the crawl store {self.root} cannot be locked for this crawl"):
            fd = os.open(self.root / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise StoreError(
                f"the crawl store {self.root} is in use by another crawl (PID {holder})",
                hint="a store takes one crawl at a time: wait for that one to end, or stop it "
                "(Ctrl-C, or kill that PID) and run this command again; it resumes",
            ) from None
        os.ftruncate(fd, 0)  # the holder's PID, for the next one refused
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # the lock goes with the descriptor
            self._fd = None
