"""Secrets never leave the process: one scrubber for every text the process writes.

    SCRUB.add(token)                 the CLI registers every secret it is given
    with scrubbed_output(): ...      stdout and stderr pass through SCRUB (errors, warnings,
                                     progress, --debug tracebacks)
    logging handlers                 carry `ScrubFilter(SCRUB)` (the crawl's --log)

`Scrubber([token])` alone serves a Python caller (the crawler's client scrubs the URLs and
reasons it puts in errors). A secret is known in every shape it may have been given in:
stripped (`--token "$(cat tokfile)"` keeps the file's newline), with any whitespace inside,
and each long whitespace-separated piece of one that has whitespace inside (such a token is
refused, but its pieces must not be printed while refusing it). Surrounding whitespace stays
out of what is masked: masking "token\\n" would eat the end of a line.
"""

from __future__ import annotations

import io
import logging
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from typing import TextIO

MASK = "***"
# Pieces shorter than this of a token with whitespace inside are left alone: a real token's
# pieces are longer, and short ones ("ghp", "is") would mask ordinary words.
_MIN_PIECE = 8
# A "secret" this short ("e", "0") is refused as a token before anything is sent; masked, it
# would turn ordinary letters of every line (and digits of the JSON log) into `***`.
_MIN_SECRET = 4


class Scrubber:
    """Replaces every known secret in a text by `***`."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        self.secrets: list[str] = []
        for secret in secrets:
            self.add(secret)

    def add(self, secret: str | None) -> None:
        if not secret or len(secret.strip()) < _MIN_SECRET:
            return
        # never the surrounding whitespace: masking "token\n" would eat a line's end
        shapes = {secret.strip()}
        pieces = secret.split()
        if len(pieces) > 1:
            shapes |= {piece for piece in pieces if len(piece) >= _MIN_PIECE}
        # longest first: a stripped token inside the raw one is masked as one
        self.secrets = sorted(set(self.secrets) | shapes, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        return text


SCRUB = Scrubber()
"""The process's scrubber: what `scrubbed_output` and the CLI's log handlers apply."""


class ScrubbedStream(io.TextIOBase):
    """A text stream that scrubs what it is given and hands it to `inner`. Writers here (rich,
    logging, traceback) write whole lines or whole renderings, so a secret is never cut in two
    between calls."""

    def __init__(self, inner: TextIO, scrub: Scrubber) -> None:
        super().__init__()
        self.inner = inner
        self.scrub = scrub

    def write(self, text: str) -> int:
        self.inner.write(self.scrub(text))
        return len(text)

    def flush(self) -> None:
        self.inner.flush()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def fileno(self) -> int:
        return self.inner.fileno()

    def writable(self) -> bool:
        return True

    @property
    def buffer(self) -> object:
        # for libraries that write bytes straight to the binary layer (not our messages)
        return self.inner.buffer

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.inner, "encoding", "utf-8")

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.inner, "errors", None)


@contextmanager
def scrubbed_output(scrub: Scrubber = SCRUB) -> Iterator[None]:
    """Route sys.stdout and sys.stderr through `scrub` for the duration (flushed on the way
    out: a log file shows everything the process said)."""
    saved = sys.stdout, sys.stderr
    sys.stdout = ScrubbedStream(saved[0], scrub)  # type: ignore[assignment]
    sys.stderr = ScrubbedStream(saved[1], scrub)  # type: ignore[assignment]
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            with suppress(OSError, ValueError):
                stream.flush()
        sys.stdout, sys.stderr = saved


class ScrubFilter(logging.Filter):
    """A logging filter that scrubs each record's message (arguments merged in first)."""

    def __init__(self, scrub: Scrubber = SCRUB) -> None:
        super().__init__()
        self.scrub = scrub

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = self.scrub(record.getMessage())
        record.args = ()
        return True
