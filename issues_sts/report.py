"""How a runner tells a person what it is doing, without knowing whether one is watching.

Runners (`run_crawl`, `run_build`, the demo) take a `Reporter` and call four verbs on it:

    stage(name, total)      a new unit of work starts (a repository, a build stage)
    advance(n, total, note, milestone)
                            it moved on; `total` when it became known, `note` a short status;
                            a `milestone` (a repository starts or ends) is a line of its own
                            in a log, whatever the pace of the other lines
    notice(text)            a line that must be seen even with --quiet (waits, retries)
    summary(*renderables)   the result, printed once at the end

Python callers get `SILENT` by default: nothing is drawn and notices go to the
`issues_sts` logger. The CLI passes a rich one (`issues_sts.cli.report.RichReporter`).
"""

from __future__ import annotations

import logging
from types import TracebackType
from typing import Protocol

log = logging.getLogger("issues_sts")


class Reporter(Protocol):
    """Progress of a runner; a context manager around the run (bars start and stop)."""

    def __enter__(self) -> Reporter: ...

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...

    def stage(self, name: str, total: int | None = None) -> None: ...

    def advance(
        self,
        steps: int = 1,
        *,
        total: int | None = None,
        note: str | None = None,
        milestone: bool = False,
    ) -> None: ...

    def notice(self, text: str) -> None: ...

    def summary(self, *renderables: object) -> None: ...


class SilentReporter:
    """Draws nothing; notices are logged (a Python caller still finds the waits in its logs)."""

    def __enter__(self) -> SilentReporter:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        return None

    def stage(self, name: str, total: int | None = None) -> None:
        return None

    def advance(
        self,
        steps: int = 1,
        *,
        total: int | None = None,
        note: str | None = None,
        milestone: bool = False,
    ) -> None:
        return None

    def notice(self, text: str) -> None:
        log.info("%s", text)

    def summary(self, *renderables: object) -> None:
        return None


SILENT: Reporter = SilentReporter()
