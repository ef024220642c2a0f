"""`python -m benchmarks NAME [args...]` runs benchmarks/NAME.py; `all` runs every one in turn
with its defaults: one that needs an argument (a module-level `NEEDS`) is skipped with a line
saying what to pass, and one that fails does not stop the others (the exit status is 1 then)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# the modules with a main() (figures.py, report.py and naive_crawler.py are helpers)
NAMES = sorted(
    p.stem
    for p in HERE.glob("*.py")
    if not p.stem.startswith("_") and "\ndef main(" in p.read_text()
)


def run(name: str, argv: list[str]) -> int:
    """benchmarks/NAME.py's main() with `argv`; its exit status (a main() may return one)."""
    module = importlib.import_module(f"benchmarks.{name}")
    saved = sys.argv
    sys.argv = [f"benchmarks.{name}", *argv]  # benchmarks whose main() reads sys.argv
    try:
        return int(module.main() or 0)
    except SystemExit as exc:  # argparse's errors, and a main() that exits
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.argv = saved


def run_all(names: list[str]) -> int:
    """Every benchmark in `names` with its defaults, each whatever the ones before it did."""
    failed, skipped = [], []
    for name in names:
        needs = getattr(importlib.import_module(f"benchmarks.{name}"), "NEEDS", None)
        if needs:
            print(f"== benchmarks.{name}: skipped, it needs {needs}", flush=True)
            skipped.append(name)
            continue
        print(f"== benchmarks.{name}", flush=True)
        try:
            if run(name, []) != 0:
                failed.append(name)
        except Exception as exc:  # noqa: BLE001 - one benchmark's failure is reported, not fatal
            print(f"benchmarks.{name} failed: {type(exc).__name__}: {exc}", flush=True)
            failed.append(name)
    ran = len(names) - len(skipped)
    print(
        f"== {ran - len(failed)} of {ran} benchmarks finished"
        + (f"; failed: {', '.join(failed)}" if failed else "")
        + (f"; skipped: {', '.join(skipped)}" if skipped else ""),
        flush=True,
    )
    return 1 if failed else 0


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in (*NAMES, "all"):
        print(f"usage: python -m benchmarks {{{'|'.join((*NAMES, 'all'))}}} [args...]")
        return 2
    if sys.argv[1] == "all":
        return run_all(NAMES)
    print(f"== benchmarks.{sys.argv[1]}", flush=True)
    return run(sys.argv[1], sys.argv[2:])


if __name__ == "__main__":
    raise SystemExit(main())
