"""One pass over a store's parts, feeding the stages that read the store a part at a time.

The link stage and the build's scan each need every issue and comment of the store, but never
more than one part at a time (a range of one repository's numbers, `Store.parts`: a thread
never spans two). `run_pass(store, consumers)` reads each part once, with the columns all its
consumers ask for, and hands the frames to each consumer's `per_part`; when every part is
done, each consumer's `finish` turns its parts' results (in the parts' order) into its output.

    links, scan = run_pass(store, [LinkConsumer.for_store(store, cfg), StoreScanner(recipe)])

`per_part` depends on its part alone (it may read more of the store by key, through
`frames.store`), so it runs wherever the pool puts it and the results are the same bytes.

The one worker-pool policy, for every pass:
- a pool only for a big store (at least `PARALLEL_MIN_ISSUES` issues and two parts): starting
  a worker costs a second or two (it imports polars), more than a small store's parts take;
- one worker per core this process may run on (`sched_getaffinity`: a container's limit, not
  the host's count), at most `MAX_WORKERS`: each holds a part, and more would add memory only;
- workers are spawned, not forked: the consumers run polars, whose thread pool a fork would copy
  mid-state from a parent that already used it; each opens its own read-only connection (SQLite's
  WAL lets readers share the file);
- the unit of work is a whole part, at most two per worker in flight: results are taken in the
  parts' order without piling up, and a worker hands its freed memory back after each part.
"""

from __future__ import annotations

import ctypes
import gc
import multiprocessing
import os
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, Protocol, TypeVar

import polars as pl

from issues_sts.store import Part, Store

P = TypeVar("P")
R = TypeVar("R")
P_co = TypeVar("P_co", covariant=True)
R_co = TypeVar("R_co", covariant=True)

# Below this many issues a pool's start costs more than it saves: the rust archive (30,650
# items) stays in one process.
PARALLEL_MIN_ISSUES = 60_000
MAX_WORKERS = 4


@dataclass(frozen=True)
class PartFrames:
    """One part as the pass read it: `issues` and `comments` hold the columns every consumer
    of the pass asked for (a consumer selects its own); `store` answers what a consumer reads
    by key (the link stage's events and the posting details of the threads it reads)."""

    store: Store
    part: Part
    issues: pl.DataFrame
    comments: pl.DataFrame

    @property
    def repo(self) -> str:
        return self.part[0]

    @property
    def span(self) -> tuple[int, int]:
        return (self.part[1], self.part[2])


class PartConsumer(Protocol[P_co]):
    """A stage that reads the store a part at a time. `issue_columns`: the issue columns it
    needs (None: every column); `comment_columns`: the comment columns (empty: none).
    `per_part` must depend on its part alone, and the consumer must pickle (it travels to the
    workers). `finish(store, results)` (in this process, once) is not part of the protocol's
    types: each consumer's result type is its own."""

    @property
    def issue_columns(self) -> tuple[str, ...] | None: ...

    @property
    def comment_columns(self) -> tuple[str, ...]: ...

    def per_part(self, frames: PartFrames) -> P_co: ...


class FinishingConsumer(PartConsumer[P], Protocol[P, R_co]):
    """A consumer that makes one output from its parts' results."""

    def finish(self, store: Store, results: list[P]) -> R_co: ...


def cores() -> int:
    """CPUs this process may run on (a container's limit, not the host's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def workers_for(parts: list[Part]) -> int:
    """How many worker processes a pass over these parts uses (0: none, work in this process)."""
    issues = sum(last - first + 1 for _, first, last in parts)  # numbers spanned: an upper bound
    n = min(MAX_WORKERS, cores(), len(parts))
    return n if n >= 2 and issues >= PARALLEL_MIN_ISSUES else 0


def _union(wanted: Iterable[tuple[str, ...] | None]) -> tuple[str, ...] | None:
    """The columns every consumer asked for, in the order first asked (None: every column)."""
    out: list[str] = []
    for columns in wanted:
        if columns is None:
            return None
        out += [c for c in columns if c not in out]
    return tuple(out)


def read_part(store: Store, part: Part, consumers: Sequence[PartConsumer[Any]]) -> PartFrames:
    """A part's issues and comments, read once with the columns its consumers need."""
    repo, first, last = part
    issue_columns = _union(c.issue_columns for c in consumers)
    comment_columns = _union(c.comment_columns for c in consumers) or ()
    issues = store.issues_frame(repo=repo, columns=issue_columns, span=(first, last))
    comments = (
        store.comments_frame(repo=repo, columns=comment_columns, span=(first, last))
        if comment_columns
        else pl.DataFrame()
    )
    return PartFrames(store, part, issues, comments)


def _per_part(store: Store, part: Part, consumers: Sequence[PartConsumer[Any]]) -> tuple[Any, ...]:
    frames = read_part(store, part, consumers)
    return tuple(consumer.per_part(frames) for consumer in consumers)


def run_pass(
    store: Store,
    consumers: Sequence[FinishingConsumer[Any, Any]],
    *,
    workers: int | None = None,
) -> list[Any]:
    """Each consumer's `finish` over its `per_part` results, from one reading of every part
    (`workers`: overrides `workers_for`; 0: this process)."""
    parts = store.parts()
    results: list[list[Any]] = [[] for _ in consumers]
    for per_consumer in _map(store, parts, consumers, workers):
        for found, result in zip(results, per_consumer, strict=True):
            found.append(result)
    return [c.finish(store, found) for c, found in zip(consumers, results, strict=True)]


def _map(
    store: Store,
    parts: list[Part],
    consumers: Sequence[PartConsumer[Any]],
    workers: int | None,
) -> Iterator[tuple[Any, ...]]:
    n = workers_for(parts) if workers is None else workers
    if n < 2:
        for part in parts:
            yield _per_part(store, part, consumers)
        return
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        n, mp_context=context, initializer=_open_worker, initargs=(store.root,)
    ) as pool:
        todo = iter(parts)
        pending = deque(pool.submit(_run, part, consumers) for part in islice(todo, 2 * n))
        while pending:
            result = pending.popleft().result()
            for part in islice(todo, 1):
                pending.append(pool.submit(_run, part, consumers))
            yield result


# -- in a worker -------------------------------------------------------------------------
_worker_store: Store | None = None


def _open_worker(root: Path) -> None:
    global _worker_store
    _worker_store = Store.open(root, readonly=True)


def _run(part: Part, consumers: Sequence[PartConsumer[Any]]) -> tuple[Any, ...]:
    assert _worker_store is not None, "the pool's initializer opens the store"
    try:
        return _per_part(_worker_store, part, consumers)
    finally:
        _give_back_memory()


def _give_back_memory() -> None:
    """Hand the freed memory of a finished part back to the system: without it, a worker's
    resident size only grows from part to part (glibc keeps freed heap; 0.3 -> 0.65 GB over
    a dozen parts of the paper world, about 0.3 GB with it), and with one worker per core
    that is most of a big build's peak."""
    gc.collect()
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def _libc() -> Any:
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim  # noqa: B018 - glibc only
    except (OSError, AttributeError):  # not glibc (macOS, musl): nothing to trim
        return None
    return libc


_LIBC = _libc()
