"""`python -m benchmarks NAME [args...]` runs benchmarks/NAME.py; `all` runs every one in turn."""

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


def run(name: str, argv: list[str]) -> None:
    module = importlib.import_module(f"benchmarks.{name}")
    saved = sys.argv
    sys.argv = [f"benchmarks.{name}", *argv]  # benchmarks whose main() reads sys.argv
    try:
        module.main()
    finally:
        sys.argv = saved


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in (*NAMES, "all"):
        print(f"usage: python -m benchmarks {{{'|'.join((*NAMES, 'all'))}}} [args...]")
        return 2
    for name in NAMES if sys.argv[1] == "all" else [sys.argv[1]]:
        print(f"== benchmarks.{name}", flush=True)
        run(name, sys.argv[2:] if sys.argv[1] != "all" else [])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
