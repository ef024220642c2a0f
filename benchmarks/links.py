"""Benchmark of the link stage on the whole rust issue archive (30k items, 147k comments).

    .venv/bin/python -m benchmarks.links [--archive PATH] [--cache DIR]

Target: the whole archive "well under a minute". Printed against a baseline measured in
the same run: reading the store's frames (what any stage must pay), so the ratio says
what the extraction itself costs on top. CPU seconds are printed next to wall seconds
because shared machines make wall time noisy.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from issues_sts.links import LinkConfig, build_links
from issues_sts.links.archive import RUST_REPO_ALIASES, default_archive_path, load_rust_archive
from issues_sts.links.evaluate import DEFAULT_CACHE
from issues_sts.store import Store


def timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def read_frames(store: Store) -> int:
    frames = (
        store.issues_frame(),
        store.comments_frame(),
        store.events_frame(),
        store.redirects_frame(),
    )
    return sum(f.height for f in frames)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--archive", type=Path, default=default_archive_path())
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    load_wall, _, store = timed(lambda: load_rust_archive(args.archive, args.cache))
    with store:
        base_wall, base_cpu, rows = timed(lambda: read_frames(store))
        cfg = LinkConfig(repo_aliases=RUST_REPO_ALIASES)
        wall, cpu, table = timed(lambda: build_links(store, cfg))
    print(f"archive store ready in {load_wall:.1f}s (cached after the first run); {rows} rows")
    print(f"baseline  read frames : {base_wall:6.2f}s wall {base_cpu:6.2f}s cpu")
    print(
        f"link stage build_links: {wall:6.2f}s wall {cpu:6.2f}s cpu  "
        f"({table.counters.get('threads_read', 0)} threads, {table.links.height} links)"
    )
    print(
        f"ratio link stage / baseline: {wall / base_wall:.2f}x wall, "
        f"{cpu / max(base_cpu, 1e-9):.2f}x cpu"
    )
    print(f"target < 60 s: {'ok' if wall < 60 else 'MISSED'}")


if __name__ == "__main__":
    main()
