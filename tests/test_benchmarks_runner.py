"""`python -m benchmarks all` runs what it can with defaults: a benchmark that needs an
argument is skipped with a line saying what to pass, one that fails does not stop the rest,
and the exit status says whether any failed."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

import benchmarks.__main__ as runner

ROOT = Path(__file__).resolve().parents[1]


def test_every_benchmark_with_a_required_argument_says_what_it_needs() -> None:
    for name in runner.NAMES:
        source = (ROOT / "benchmarks" / f"{name}.py").read_text(encoding="utf-8")
        if re.search(r"required\s*=\s*True", source):
            assert re.search(r"^NEEDS = ", source, flags=re.M), f"benchmarks/{name}.py"


def _module(monkeypatch: pytest.MonkeyPatch, name: str, main: object, needs: str | None) -> None:
    module = types.ModuleType(f"benchmarks.{name}")
    module.main = main  # type: ignore[attr-defined]
    if needs:
        module.NEEDS = needs  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, f"benchmarks.{name}", module)


def test_all_skips_what_needs_an_argument_and_goes_on_after_a_failure(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ran: list[str] = []

    def ok() -> None:
        ran.append("ok")

    def exits() -> None:
        raise SystemExit(2)  # argparse's way

    def raises() -> None:
        raise RuntimeError("boom")

    def returns() -> int:
        ran.append("returns")
        return 1

    _module(monkeypatch, "zz_needs", lambda: ran.append("needs"), "--dataset DIR")
    _module(monkeypatch, "zz_exits", exits, None)
    _module(monkeypatch, "zz_raises", raises, None)
    _module(monkeypatch, "zz_returns", returns, None)
    _module(monkeypatch, "zz_ok", ok, None)
    names = ["zz_needs", "zz_exits", "zz_raises", "zz_returns", "zz_ok"]
    assert runner.run_all(names) == 1
    out = capsys.readouterr().out
    assert ran == ["returns", "ok"]
    assert "benchmarks.zz_needs: skipped, it needs --dataset DIR" in out
    assert "zz_raises failed: RuntimeError: boom" in out
    assert out.rstrip().endswith(
        "1 of 4 benchmarks finished; failed: zz_exits, zz_raises, zz_returns; skipped: zz_needs"
    )
    monkeypatch.setattr(sys, "argv", ["benchmarks", "zz_returns"])
    monkeypatch.setattr(runner, "NAMES", names)
    assert runner.main() == 1


def test_all_exits_0_when_every_benchmark_finished(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _module(monkeypatch, "zz_fine", lambda: None, None)
    assert runner.run_all(["zz_fine"]) == 0
    assert "1 of 1 benchmarks finished" in capsys.readouterr().out
