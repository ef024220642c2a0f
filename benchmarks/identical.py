"""Are builds byte-identical? A fingerprint of what the product makes, for refactors that must
not change it (issue 34: "builds are byte-identical before and after every step").

    .venv/bin/python -m benchmarks.identical --save data/bench/identical.json     # before
    .venv/bin/python -m benchmarks.identical --against data/bench/identical.json  # after

It records the SHA-256 of every file of:
- the demo world (`--world`, default `small`), crawled afresh through the fake GitHub by the
  real crawler, then built: the crawl's part of a refactor is covered too;
- the rust archive's build (`../shared/data/rust-issue-archive`, its store cached under --work);
- the replica of the real archives (`--replica-copies`, default 2: the shape of the 10x
  replica at a fifth of the time);
- `issues-sts links evaluate --json` over every annotation file whose archive is present.

Builds run inside --work with relative paths, so fingerprints made with different --work
folders compare (the card records the paths it was given). Parts whose input is missing (no
../shared) are reported as skipped, never as equal.
`--against` prints each difference and exits 1 when any file differs or is missing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"


def file_hashes(folder: Path) -> dict[str, str]:
    """Relative path -> SHA-256 of every file under `folder`."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def cli(*args: str, cwd: Path = ROOT) -> str:
    """`issues-sts ARGS --quiet` run in `cwd`, its standard output (the command line is the
    contract a refactor keeps)."""
    run = subprocess.run(
        [str(Path(sys.executable).parent / "issues-sts"), *args, "--quiet"],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )
    if run.returncode != 0:
        raise SystemExit(f"issues-sts {args[0]} failed ({run.returncode}): {run.stderr.strip()}")
    return run.stdout


def build_hashes(store: Path, out: Path, aliases: tuple[str, ...] = ()) -> dict[str, str]:
    """Build `store` into `out` (both in one folder), run in that folder with relative paths:
    the card and build_config.json record the paths as given, so any --work fingerprints the
    same."""
    shutil.rmtree(out, ignore_errors=True)
    work = out.parent
    store_arg = str(store.relative_to(work))
    aliases_args = (f"--alias={a}" for a in aliases)
    cli("build", "--store", store_arg, "--out", out.name, *aliases_args, cwd=work)
    return file_hashes(out)


def demo_part(work: Path, world: str) -> dict[str, str]:
    """The demo world crawled by the real crawler into a fresh store, then built."""
    from issues_sts.crawl import CrawlConfig, run_crawl
    from issues_sts.sandbox.github.server import FakeGitHub
    from issues_sts.sandbox.github.settings import FakeSettings
    from issues_sts.sandbox.worlds.generator import generate_world, preset

    store = work / f"demo-{world}-store"
    shutil.rmtree(store, ignore_errors=True)
    corpus = generate_world(preset(world, seed=0))
    token = "fingerprint-token"
    with FakeGitHub(corpus, FakeSettings(tokens=frozenset({token}))) as github:
        summary = run_crawl(
            CrawlConfig(
                repos=tuple(corpus.repos),
                token=token,  # type: ignore[arg-type]  # pydantic makes the SecretStr
                api_url=github.api_url,
                store=store,
            )
        )
    if not summary.ok:
        raise SystemExit("the demo crawl did not finish")
    return build_hashes(store, work / f"demo-{world}-build")


def rust_part(work: Path) -> dict[str, str] | None:
    from issues_sts.annotations.archives import load_archive

    archive = SHARED / "rust-issue-archive"
    if not archive.exists():
        return None
    store = work / "rust-archive-store"
    load_archive("rust", archive, store).close()
    return build_hashes(store, work / "rust-build", ("mozilla/rust=rust-lang/rust",))


def replica_part(work: Path, copies: int) -> dict[str, str] | None:
    from benchmarks.build import ensure_replica_store

    if not all((SHARED / f"{a}-issue-archive").exists() for a in ("rust", "onnxruntime")):
        return None
    store, _ = ensure_replica_store(work, copies, ("rust", "onnxruntime"))
    return build_hashes(store, work / f"replica-x{copies}-build")


def links_part() -> dict[str, str] | None:
    if not SHARED.exists():
        return None
    out = cli("links", "evaluate", "--json")
    return {"links-evaluate.json": hashlib.sha256(out.encode()).hexdigest()}


def fingerprint(args: argparse.Namespace) -> dict[str, dict[str, str] | None]:
    args.work.mkdir(parents=True, exist_ok=True)
    parts: dict[str, dict[str, str] | None] = {}
    wanted = set(args.parts.split(","))
    if "demo" in wanted:
        parts[f"demo-{args.world}"] = demo_part(args.work, args.world)
    if "rust" in wanted:
        parts["rust"] = rust_part(args.work)
    if "replica" in wanted:
        parts[f"replica-x{args.replica_copies}"] = replica_part(args.work, args.replica_copies)
    if "links" in wanted:
        parts["links"] = links_part()
    return parts


def compare(now: dict[str, dict[str, str] | None], before: dict[str, Any]) -> list[str]:
    """One line per difference between two fingerprints (parts present in both)."""
    lines = []
    for part, files in now.items():
        if files is None or before.get(part) is None:
            lines.append(f"{part}: skipped (its input is missing), not compared")
            continue
        old = before[part]
        for name in sorted(set(files) | set(old)):
            if files.get(name) != old.get(name):
                state = (
                    "missing now" if name not in files else "new" if name not in old else "differs"
                )
                lines.append(f"DIFF {part}/{name}: {state}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--work", type=Path, default=ROOT / "data" / "bench" / "identical")
    parser.add_argument("--world", default="small", help="demo world preset")
    parser.add_argument("--replica-copies", type=int, default=2)
    parser.add_argument("--parts", default="demo,rust,replica,links")
    parser.add_argument("--save", type=Path, help="write the fingerprint here")
    parser.add_argument("--against", type=Path, help="compare with a saved fingerprint")
    args = parser.parse_args()
    now = fingerprint(args)
    if args.save:
        args.save.parent.mkdir(parents=True, exist_ok=True)
        args.save.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n")
    for part, files in now.items():
        print(f"{part}: " + ("skipped (input missing)" if files is None else f"{len(files)} files"))
    if args.against:
        lines = compare(now, json.loads(args.against.read_text()))
        print("\n".join(lines) or "identical: every file of every part")
        if any(line.startswith("DIFF") for line in lines):
            raise SystemExit(1)


if __name__ == "__main__":
    main()
