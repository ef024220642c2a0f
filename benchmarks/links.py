"""Benchmark of the link stage on the whole rust issue archive (30k items, 147k comments), or
on any store: the stage's wall time, then where its time goes, per step and per rule.

    .venv/bin/python -m benchmarks.links [--archive PATH] [--cache DIR]
    .venv/bin/python -m benchmarks.links --store data/bench/build/replica-rust-x10 --parts 5

Target: the whole archive "well under a minute". Printed against a baseline measured in
the same run: reading the store's frames (what any stage must pay), so the ratio says
what the extraction itself costs on top. CPU seconds are printed next to wall seconds
because shared machines make wall time noisy.

`--steps` (on by default) then reads the threads again in this process, one step at a time:
making the threads (the vectorised cue screen, rows into Python), `extract_thread` over
them, and, over the posts the reader cleans and reads (those with a cue word), each of the
reader's regexes as the reader runs it (behind its words, `evidence.gated`) and as a plain
`finditer` over every such post: the per-rule cost, and what the gates save.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from issues_sts.annotations.archives import ARCHIVES, RUST_REPO_ALIASES, load_archive
from issues_sts.evidence import cues as C
from issues_sts.evidence import refs as R
from issues_sts.evidence.gated import Gated, lowered
from issues_sts.evidence.text import clean
from issues_sts.evidence.vocabulary import CUE
from issues_sts.links import LinkConfig, LinkConsumer, build_links
from issues_sts.links.extract import extract_thread
from issues_sts.links.model import Thread
from issues_sts.links.stage import iter_threads
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


def make_threads(store: Store, cfg: LinkConfig, parts: int) -> list[Thread]:
    threads: list[Thread] = []
    for repo, first, last in store.parts()[: parts or None]:
        issues = store.issues_frame(repo=repo, span=(first, last))
        threads += iter_threads(store, cfg, issues, repo=repo, span=(first, last))
    return threads


# the regexes the reader runs over a whole cleaned post (the rest run on a sentence or a
# few characters around a match)
WHOLE_TEXT = {
    "claim: duplicate keyword": C._KEYWORD,
    "claim: slash command": C._SLASH,
    "claim: wording": C._WORDING,
    "claim: same as": C._SAME,
    "claim: new pull request (PRs)": C._NEW_PR,
    "claim: rolled up (PRs)": C.ROLLED_UP,
    "claim: reported before": C.REPORTED_BEFORE,
    "tracked elsewhere": C._TRACKED_ELSEWHERE,
    "reference: #N": R._SHORT,
    "reference: bare number": R._BARE,
    "reference: URL": R._URL,
    "reference: markdown link": R._MD_LINK,
}


def per_rule(threads: list[Thread]) -> list[tuple[str, float, float]]:
    """(regex, CPU s as the reader runs it, CPU s as a plain finditer) over the cued posts."""
    texts = [clean(p.body) for t in threads for p in t.posts if p.may_cue and CUE.matches(p.body)]
    lows = [lowered(t) for t in texts]
    rows = []
    for name, pattern in WHOLE_TEXT.items():
        gate = Gated(pattern, min_run=1 if name.startswith("reference") else 3)
        _, gated, _ = timed(
            lambda g=gate: [list(g.finditer(t, low)) for t, low in zip(texts, lows, strict=True)]
        )
        _, plain, _ = timed(lambda p=pattern: [list(p.finditer(t)) for t in texts])
        rows.append((name, gated, plain))
    _, clean_cpu, _ = timed(lambda: [clean.__wrapped__(p.body) for t in threads for p in t.posts])
    rows.append(("clean (every post)", clean_cpu, float("nan")))
    return sorted(rows, key=lambda r: -r[1])


def steps(store: Store, cfg: LinkConfig, parts: int) -> None:
    cfg = LinkConsumer.for_store(store, cfg).cfg  # the store's renames added
    wall, cpu, threads = timed(lambda: make_threads(store, cfg, parts))
    posts = sum(len(t.posts) for t in threads)
    print(
        f"step  making threads      : {wall:6.2f}s wall {cpu:6.2f}s cpu  "
        f"({len(threads):,} threads, {posts:,} posts)"
    )
    wall, cpu, _ = timed(lambda: [extract_thread(t, cfg) for t in threads])
    print(
        f"step  extract_thread      : {wall:6.2f}s wall {cpu:6.2f}s cpu  "
        f"({1000 * cpu / max(1, len(threads)):.2f} ms a thread)"
    )
    print(
        "per rule, over the posts with a cue word (CPU s): as the reader runs it / plain finditer"
    )
    for name, gated, plain in per_rule(threads):
        print(f"  {name:32} {gated:6.2f}  {plain:6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--archive", type=Path, default=ARCHIVES["rust"].path)
    parser.add_argument("--cache", type=Path, default=ARCHIVES["rust"].cache)
    parser.add_argument("--store", type=Path, help="a store instead of the rust archive")
    parser.add_argument("--parts", type=int, default=0, help="--steps on the first N parts")
    parser.add_argument("--no-steps", action="store_true", help="the stage's time only")
    args = parser.parse_args()
    if args.store:
        load_wall, store = 0.0, Store.open(args.store)
    else:
        load_wall, _, store = timed(lambda: load_archive("rust", args.archive, args.cache))
    with store:
        base_wall, base_cpu, rows = timed(lambda: read_frames(store))
        cfg = LinkConfig(repo_aliases=RUST_REPO_ALIASES)
        wall, cpu, table = timed(lambda: build_links(store, cfg))
        print(f"store ready in {load_wall:.1f}s (cached after the first run); {rows} rows")
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
        if not args.no_steps:
            steps(store, cfg, args.parts)


if __name__ == "__main__":
    main()
