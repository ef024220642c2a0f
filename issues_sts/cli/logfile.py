"""`--log FILE`: the `issues_sts` logger as JSON lines, one object per record, for machines.

    {"time": "2025-01-01T12:00:00.123Z", "level": "info", "logger": "issues_sts.crawl",
     "message": "...", "event": "progress", "data": {"repos_done": 3, ...}}

`event` and `data` come from a record's `extra` (the crawl's `progress`, `wait` and `summary`
events); every line passes the process's scrubber, so no secret reaches the file.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from issues_sts.errors import OutputError, describe_os_error, os_errors
from issues_sts.secrets import SCRUB, ScrubFilter


class JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        line: dict[str, object] = {
            "time": f"{stamp}.{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key in ("event", "data"):
            if hasattr(record, key):
                line[key] = getattr(record, key)
        if record.exc_info:
            line["traceback"] = self.formatException(record.exc_info)
        return SCRUB(json.dumps(line, ensure_ascii=False, default=str))


class _LogFile(logging.FileHandler):
    """A log file that stops at its first failed write (a full disk) instead of printing the
    stdlib's traceback for every record; `json_log` reports the failure once, at the end."""

    failure: OSError | None = None

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - stdlib name
        error = sys.exc_info()[1]
        if self.failure is None and isinstance(error, OSError):
            self.failure = error

    def emit(self, record: logging.LogRecord) -> None:
        if self.failure is None:
            super().emit(record)


@contextmanager
def json_log(path: Path | None, logger: str = "issues_sts") -> Iterator[None]:
    """While inside, `logger` (debug and up) also goes to `path` as JSON lines. A file that
    cannot be opened, or written to the end, is an OutputError (exit 6)."""
    if path is None:
        yield
        return
    with os_errors(OutputError, f"--log {path} cannot be written"):
        handler = _LogFile(path, encoding="utf-8")
    handler.setFormatter(JsonLines())
    handler.addFilter(ScrubFilter(SCRUB))
    target = logging.getLogger(logger)
    level = target.level
    target.addHandler(handler)
    target.setLevel(logging.DEBUG)
    try:
        yield
    finally:
        target.removeHandler(handler)
        target.setLevel(level)
        with suppress(OSError):
            handler.close()  # flushing a full disk's file fails again
    if handler.failure is not None:
        raise OutputError(f"--log {path} stopped: {describe_os_error(handler.failure)}")
