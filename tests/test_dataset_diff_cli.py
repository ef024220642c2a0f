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


def test_a_damaged_or_wrong_parquet_is_a_dataset_error_on_one_line(
    builds: dict[int, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """diff, build --previous and links show read a build's Parquet files: a damaged one, or
    pairs.parquet given where links.parquet belongs, is exit 6 and one line (a polars error
    with exit 1 before)."""
    import shutil

    damaged = tmp_path / "damaged"
    shutil.copytree(builds[42], damaged)
    pairs = damaged / "pairs.parquet"
    pairs.write_bytes(pairs.read_bytes()[:100])
    store = builds[42].parent / "store"
    for argv in (
        ["diff", str(builds[42]), str(damaged)],
        ["build", "--store", str(store), "--out", str(tmp_path / "v2"), "--previous", str(damaged)],
        ["links", "show", "o/r#1", "--links", str(pairs)],
        ["links", "show", "o/r#1", "--links", str(builds[42] / "pairs.parquet")],
    ):
        capsys.readouterr()
        assert cli_exit_code(argv) == 6, argv
        error = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
        assert len(error) == 1 and "cannot be read as a build's Parquet file" in error[0], error
    assert not (tmp_path / "v2").exists()


def test_an_output_folder_that_cannot_be_replaced_keeps_the_earlier_build(
    builds: dict[int, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last step of a build renames its finished folder into place; a folder that refuses
    (made immutable, on another mount) is exit 6 with the earlier build where it was."""
    import shutil

    from issues_sts.dataset import export
    from issues_sts.errors import OutputDirError

    out = tmp_path / "out"
    shutil.copytree(builds[42], out)
    before = sorted(p.name for p in out.iterdir())
    real_rename = Path.rename

    def refusing(self: Path, target: Path) -> Path:
        if Path(target) == out and ".partial-" in self.name:  # the new build into place
            raise PermissionError(1, "Operation not permitted")
        return real_rename(self, target)

    monkeypatch.setattr(Path, "rename", refusing)
    with (
        pytest.raises(OutputDirError, match="cannot be replaced") as info,
        export.staged_output(out) as tmp,
    ):
        (tmp / "new.txt").write_text("new")
    assert info.value.exit_code == 6
    monkeypatch.undo()
    assert sorted(p.name for p in out.iterdir()) == before
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no partial or old folder left
