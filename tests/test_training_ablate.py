"""Ablations and baselines as one table; the CLI's evaluate/train commands end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from issues_sts.cli.app import app, run
from issues_sts.errors import ConfigError
from tests.test_training_support import make_pairs_folder, tiny_encoder
from training.ablate import AblationConfig, expand_variants, run_ablation
from training.config import TrainConfig


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("ablate")
    tiny_encoder("avg").save(root / "tiny")
    return make_pairs_folder(root / "pairs", {"train": 16, "valid": 8, "test": 8}), root / "tiny"


def test_variant_groups_expand_to_the_papers_table() -> None:
    assert expand_variants(["baselines"]) == ["backbone", "only-cos", "all"]
    paper = expand_variants(["paper"])
    assert {
        "all",
        "wo-ibn",
        "wo-angle",
        "only-cos",
        "only-ibn",
        "only-angle",
        "pool-cls-avg",
        "pool-max",
    } <= set(paper)
    with pytest.raises(ConfigError, match="unknown ablation variant") as info:
        expand_variants(["w/o-everything"])
    assert info.value.exit_code == 2  # a usage error, found before any training


def test_baselines_and_ablations_in_one_table(setup: tuple[Path, Path], tmp_path: Path) -> None:
    data, model = setup
    base = TrainConfig(
        data=str(data),
        output=tmp_path / "ab",
        model=str(model),
        max_length=16,
        batch_size=4,
        max_steps=2,
        warmup_steps=1,
        learning_rate=1e-3,
        valid_split=None,
        progress=False,
    )
    result = run_ablation(AblationConfig(base=base, variants=["backbone", "only-cos", "pool-max"]))
    rows = {row["variant"]: row for row in result.rows}
    assert rows["backbone"]["steps"] == 0 and rows["only-cos"]["steps"] == 2
    assert (
        json.loads((tmp_path / "ab" / "pool-max" / "last" / "encoder.json").read_text())["pooling"]
        == "max"
    )
    trained = json.loads((tmp_path / "ab" / "only-cos" / "train_config.json").read_text())
    assert (trained["loss"]["w_ibn"], trained["loss"]["w_angle"]) == (0.0, 0.0)
    table = result.table_path.read_text()
    assert "only cosine (CoSENT)" in table and "backbone" in table
    assert (tmp_path / "ab" / "ablation.csv").is_file()
    assert (tmp_path / "ab" / "only-cos" / "test-density.png").is_file()


def test_cli_train_then_evaluate_a_run_folder(
    setup: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, model = setup
    assert (
        run(
            app,
            [
                "train",
                "--dataset",
                str(data),
                "--model",
                str(model),
                "--out",
                str(tmp_path / "run"),
                "--max-length",
                "16",
                "--batch-size",
                "4",
                "--max-steps",
                "2",
                "--quiet",
            ],
            "issues-sts",
        )
        == 0
    )
    assert "trained 2 steps" in capsys.readouterr().out
    # the run folder itself stands for its best checkpoint
    assert (
        run(
            app,
            [
                "evaluate",
                "--model",
                str(tmp_path / "run"),
                "--dataset",
                str(data),
                "--split",
                "test",
                "--plot",
                str(tmp_path / "t.png"),
                "--out",
                str(tmp_path / "t.json"),
            ],
            "issues-sts",
        )
        == 0
    )
    saved = json.loads((tmp_path / "t.json").read_text())
    assert (tmp_path / "t.png").is_file()
    assert (
        run(
            app,
            [
                "evaluate",
                "--model",
                str(tmp_path / "run" / "best"),
                "--dataset",
                str(data),
                "--json",
            ],
            "issues-sts",
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])[
        "spearman"
    ] == pytest.approx(saved["spearman"])


def test_training_options_follow_the_issues_sts_conventions() -> None:
    import click
    import typer.main

    group = typer.main.get_command(app)

    def options_of(name: str) -> set[str]:
        command = group.get_command(click.Context(group), name)  # type: ignore[attr-defined]
        assert command is not None, name
        assert all(getattr(param, "help", None) for param in command.params), (
            f"an option of {name} lacks help"
        )
        return {opt for param in command.params for opt in getattr(param, "opts", [])}

    for name in ("train", "ablate", "pretrain-ran"):  # a run folder is --out, as elsewhere
        options = options_of(name)
        assert "--out" in options and not {"--output", "--data", "--progress"} & options, name
    for name in ("train", "ablate"):  # the two pair limits, named alike
        assert {"--dataset", "--max-train-pairs", "--max-eval-pairs"} <= options_of(name), name
    # evaluate writes files, not a folder: --json-out and --plot; its pair limit is named as
    # train's and ablate's
    evaluate = options_of("evaluate")
    assert {"--dataset", "--max-eval-pairs", "--json-out", "--plot"} <= evaluate
    assert "--out" not in evaluate
