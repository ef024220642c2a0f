"""A short training run (loss falls, checkpoints, metrics), exact resume, data loading, CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from issues_sts.errors import ConfigError, DatasetError, TrainingError
from tests.conftest import cli_exit_code
from tests.test_training_support import make_pairs_folder, tiny_encoder
from training.config import RESUME_KEYS, TrainConfig
from training.data import ZigzagCollator, load_pairs
from training.losses import AnglELoss
from training.models import load_encoder
from training.schedule import effective_warmup, linear_schedule
from training.trainer import train

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def pairs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_pairs_folder(tmp_path_factory.mktemp("pairs"))


def recipe(data: Path, output: Path, **changes) -> TrainConfig:
    settings = {
        "data": str(data),
        "output": output,
        "batch_size": 8,
        "max_length": 16,
        "learning_rate": 2e-3,
        "warmup_steps": 2,
        "logging_steps": 1,
        "progress": False,
        "eval_batch_size": 32,
    }
    return TrainConfig(**{**settings, **changes})


def batch_loss(encoder, data: Path) -> float:
    pairs = load_pairs(str(data), "train")
    batch = ZigzagCollator(pairs, encoder.tokenize, 16)(list(range(len(pairs))))
    encoder.eval()
    with torch.no_grad():
        return float(AnglELoss(encoder)(batch.features, batch.labels, batch.text_ids))


def test_training_lowers_the_loss_and_writes_a_usable_run(pairs_dir: Path, tmp_path: Path) -> None:
    # Mean pooling: a random tiny BERT's [CLS] vector barely depends on the text.
    before = batch_loss(tiny_encoder("avg"), pairs_dir)
    result = train(recipe(pairs_dir, tmp_path / "run", epochs=3), tiny_encoder("avg"))
    after = batch_loss(load_encoder(result.model_dir), pairs_dir)
    assert after < before * 0.7
    assert result.steps == 18 and result.best_metric is not None
    assert result.model_dir == tmp_path / "run" / "best"
    records = json.loads((tmp_path / "run" / "metrics.json").read_text())
    evals = [r for r in records if r["kind"] == "eval"]
    assert len(evals) == 3 and max(r["spearman"] for r in evals) == pytest.approx(
        result.best_metric
    )
    header = (tmp_path / "run" / "metrics.csv").read_text().splitlines()[0].split(",")
    assert {"step", "loss", "cos", "ibn", "angle", "lr", "pairs_per_s", "spearman"} <= set(header)
    saved = json.loads((tmp_path / "run" / "train_config.json").read_text())
    assert saved["loss"]["angle_tau"] == 1.0


def test_interrupted_run_resumes_to_identical_weights(pairs_dir: Path, tmp_path: Path) -> None:
    straight = train(
        recipe(pairs_dir, tmp_path / "straight", max_steps=5, valid_split=None), tiny_encoder()
    )
    first = train(
        recipe(pairs_dir, tmp_path / "resumed", max_steps=5, valid_split=None, stop_after_steps=3),
        tiny_encoder(),
    )
    assert first.steps == 3
    resumed = train(recipe(pairs_dir, tmp_path / "resumed", max_steps=5, valid_split=None))
    assert resumed.steps == straight.steps == 5
    a = load_encoder(straight.model_dir).state_dict()
    b = load_encoder(resumed.model_dir).state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    lrs = [r["lr"] for r in json.loads((tmp_path / "resumed" / "metrics.json").read_text())]
    assert len(lrs) == 5  # the log continues across the restart


def test_resume_refuses_a_changed_recipe(pairs_dir: Path, tmp_path: Path) -> None:
    train(recipe(pairs_dir, tmp_path / "run", max_steps=1, valid_split=None), tiny_encoder())
    with pytest.raises(TrainingError, match="different learning_rate"):
        train(
            recipe(pairs_dir, tmp_path / "run", max_steps=2, valid_split=None, learning_rate=1e-4)
        )


def test_resume_keys_are_the_recipe_fields_of_the_config() -> None:
    """Derived from the fields marked RESUME in TrainConfig, not a second list."""
    assert set(RESUME_KEYS) == {
        "data",
        "model",
        "pooling",
        "max_length",
        "batch_size",
        "grad_accumulation",
        "learning_rate",
        "warmup_steps",
        "seed",
        "loss",
        "max_train_pairs",
    }


def test_schedule_warms_up_then_decays_to_zero() -> None:
    factor = linear_schedule(warmup=2, total=6)
    assert [round(factor(s), 3) for s in range(7)] == [0.5, 1.0, 1.0, 0.75, 0.5, 0.25, 0.0]


@pytest.mark.parametrize(("warmup", "total", "effective"), [(100, 4, 4), (2, 4, 2), (4, 4, 4)])
def test_warmup_is_clamped_to_the_run(warmup: int, total: int, effective: int) -> None:
    told: list[str] = []
    assert effective_warmup(warmup, total, warn=told.append) == effective
    assert len(told) == (warmup > total)


def test_a_run_shorter_than_its_warmup_warns_and_reaches_its_learning_rate(
    pairs_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = recipe(pairs_dir, tmp_path / "run", max_steps=4, warmup_steps=100, valid_split=None)
    train(config, tiny_encoder())
    err = capsys.readouterr().err
    assert "warning: --warmup-steps 100 is more than the run's 4 steps" in err
    lrs = [r["lr"] for r in json.loads((tmp_path / "run" / "metrics.json").read_text())]
    # the last step runs at the full rate (the log shows the rate after each step)
    assert max(lrs) == pytest.approx(config.learning_rate)


def test_rerunning_a_finished_run_trains_nothing_and_says_so(
    pairs_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "tiny"
    tiny_encoder().save(model)
    args = ["train", "--dataset", str(pairs_dir), "--model", str(model), "--out", str(tmp_path)]
    args += ["--max-steps", "2", "--max-length", "16", "--batch-size", "8", "--valid-split", ""]
    assert cli_exit_code(args) == 0
    first = capsys.readouterr()
    assert "trained 2 steps" in first.out
    assert cli_exit_code(args) == 0
    again = capsys.readouterr()
    assert "already complete (2 steps" in again.out and "nothing trained" in again.out
    assert "nan" not in (again.out + again.err).lower() and "0.0 pairs/s" not in again.out


def test_collator_builds_zigzag_batches_with_identical_text_ids(tmp_path: Path) -> None:
    data = make_pairs_folder(tmp_path / "d", {"train": 4})
    pairs = load_pairs(str(data), "train")
    pairs.text2[1] = pairs.text1[0]
    batch = ZigzagCollator(pairs, tiny_encoder().tokenize, 16)([0, 1])
    assert batch.labels.tolist() == [1.0, 1.0, 0.0, 0.0]
    assert batch.text_ids[0] == batch.text_ids[3] and batch.text_ids[0] != batch.text_ids[1]
    assert batch.features["input_ids"].shape[0] == 4


def test_loading_save_to_disk_and_bad_sources(tmp_path: Path) -> None:
    import datasets

    data = make_pairs_folder(tmp_path / "hub", {"train": 4, "valid": 2})
    loaded = datasets.load_dataset(str(data))
    loaded.save_to_disk(str(tmp_path / "disk"))
    assert load_pairs(str(tmp_path / "disk"), "valid").text1 == load_pairs(str(data), "valid").text1
    # only the splits the dataset has: `validation` is not quietly taken for `valid`
    for missing in ("validation", "test"):
        with pytest.raises(ConfigError, match=f"no split '{missing}' .*it has train, valid"):
            load_pairs(str(data), missing)
    datasets.Dataset.from_dict({"text": ["a"]}).save_to_disk(str(tmp_path / "bad"))
    with pytest.raises(DatasetError, match="lacks columns"):
        load_pairs(str(tmp_path / "bad"), "train")


@pytest.mark.slow  # a fresh interpreter importing torch: tens of seconds on a loaded machine
def test_cli_reports_bad_input_in_one_line(tmp_path: Path) -> None:
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "issues_sts",
            "train",
            "--dataset",
            str(tmp_path / "nothing"),
            "--out",
            str(tmp_path / "o"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "PATH": "/usr/bin:/bin"},
    )
    assert run.returncode == DatasetError.exit_code  # a missing dataset: 6 in every command
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: cannot load pairs")
