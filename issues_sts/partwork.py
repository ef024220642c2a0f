"""A stage's work on a store's parts (`Store.parts`), on every core, results in the parts' order.

The link stage and the build's scan read the store a part at a time (a range of one
repository's numbers, with its comments and events) and each part's result depends on that
part alone. `map_parts` runs `work(store, part, arg)` over the parts: in this process for a
small store, in a pool of worker processes (one per core, each with its own read-only
connection: SQLite's WAL lets readers share the file) for a big one. Results come back in
the parts' order whichever way they were computed, so the stages' outputs are the same bytes.

Workers are spawned, not forked: they run polars, whose thread pool a fork would copy
mid-state from a parent that already used it.
"""

from __future__ import annotations

import ctypes
import gc
import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from itertools import islice
from pathlib import Path
from typing import Any, TypeVar

from issues_sts.store import Part, Store

A = TypeVar("A")
R = TypeVar("R")

# Below this many issues a pool's start (a second or two per worker, importing polars) costs
# more than it saves: the rust archive (30,650 items) stays in one process, as before.
PARALLEL_MIN_ISSUES = 60_000
MAX_WORKERS = 4  # each holds one part; more would only add memory on this project's machines


def cores() -> int:
    """CPUs this process may run on (a container's limit, not the host's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def workers_for(parts: list[Part]) -> int:
    """How many worker processes `map_parts` uses for these parts (0: none, work in this
    process)."""
    issues = sum(last - first + 1 for _, first, last in parts)  # numbers spanned: an upper bound
    n = min(MAX_WORKERS, cores(), len(parts))
    return n if n >= 2 and issues >= PARALLEL_MIN_ISSUES else 0


_worker_store: Store | None = None


def _open_worker(root: Path) -> None:
    global _worker_store
    _worker_store = Store.open(root, readonly=True)


def _run(work: Callable[[Store, Part, Any], Any], part: Part, arg: Any) -> Any:
    assert _worker_store is not None, "the pool's initializer opens the store"
    try:
        return work(_worker_store, part, arg)
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


def map_parts(
    store: Store,
    parts: list[Part],
    work: Callable[[Store, Part, A], R],
    arg: A,
    *,
    workers: int | None = None,
) -> Iterator[R]:
    """`work(store, part, arg)` for every part, in order. `work` must be a module-level
    function and `arg` picklable (they travel to the workers); `workers` overrides
    `workers_for` (0: this process)."""
    n = workers_for(parts) if workers is None else workers
    if n < 2:
        for part in parts:
            yield work(store, part, arg)
        return
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        n, mp_context=context, initializer=_open_worker, initargs=(store.root,)
    ) as pool:
        # at most 2 parts per worker in flight: results wait in order without piling up
        todo = iter(parts)
        pending = deque(pool.submit(_run, work, part, arg) for part in islice(todo, 2 * n))
        while pending:
            result = pending.popleft().result()
            for part in islice(todo, 1):
                pending.append(pool.submit(_run, work, part, arg))
            yield result
