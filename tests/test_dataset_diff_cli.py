"""`issues-sts diff` between two builds of one store: the table on stdout, `--json` valid JSON
on stdout, `--json-out` a file, and a note when the builds drew their splits with different
seeds (issues then change split without anything being wrong)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from issues_sts.dataset.build import run_build
from issues_sts.dataset.config import BuildConfig
from tests.conftest import cli_exit_code
from tests.dataset_store import make_store


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    root = tmp_path_factory.mktemp("diff")
    store = make_store(root / "store")
    out = {}
    for seed in (42, 7):
        out[seed] = root / f"seed{seed}"
        run_build(BuildConfig(store=store, out=out[seed], seed=seed))
    return out


def test_different_seeds_are_named(
    builds: dict[int, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_exit_code(["diff", str(builds[42]), str(builds[7])]) == 0
    shown = capsys.readouterr().out
    assert "issues that changed split" in shown
    assert "different seeds (42 and 7)" in shown and "expected" in shown


def test_the_same_seed_says_nothing_of_seeds(
    builds: dict[int, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        cli_exit_code(
            ["diff", str(builds[7]), str(builds[7]), "--json-out", str(tmp_path / "d.json")]
        )
        == 0
    )
    shown = capsys.readouterr()
    assert "seeds" not in shown.out and "issues that changed split: 0" in shown.out
    report = json.loads((tmp_path / "d.json").read_text())
    assert report["old_seed"] == report["new_seed"] == 7


def test_json_is_a_flag_printing_only_json(
    builds: dict[int, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_exit_code(["diff", str(builds[42]), str(builds[7]), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["old_seed"], report["new_seed"]) == (42, 7)
