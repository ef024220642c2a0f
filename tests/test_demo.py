"""The README's first command, end to end (a tiny world here; the README runs the full one)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _demo(directory: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "COLUMNS": "120"}
    cmd = [
        sys.executable,
        "-m",
        "issues_sts.cli.app",
        "demo",
        "--out",
        str(directory),
        "--quiet",
        *extra,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)


@pytest.mark.slow
def test_demo_runs_the_whole_pipeline_and_is_idempotent(tmp_path: Path) -> None:
    directory = tmp_path / "demo"
    first = _demo(directory, "--world", "tiny")
    assert first.returncode == 0, first.stderr[-3000:]
    summary = json.loads((directory / "demo_summary.json").read_text())
    assert summary["crawl"]["complete"] is True
    assert summary["world"]["issues"] > 0
    assert sum(summary["dataset"]["sizes"]["default"].values()) > 0
    assert summary["before"]["spearman"] is not None and summary["after"]["spearman"] is not None
    for name in ("crawl store", "dataset card", "pairs with provenance", "fine-tuned model"):
        assert Path(summary["artefacts"][name]).exists(), name
    assert "test Spearman x100: before" in first.stderr
    assert "issues-sts crawl --token" in first.stderr
    similar = summary["similar"]  # which issue ranks where depends on the world's texts
    assert (
        similar["indexed"] > 0
        and Path(summary["artefacts"]["vector index (issues-sts similar)"]).is_dir()
    )
    if "duplicate" in similar:
        assert similar["rank"] is None or 1 <= similar["rank"] <= 10
        assert f"issues-sts similar {similar['duplicate']}" in first.stderr
        assert f"the canonical #{similar['canonical']} was " in first.stderr

    import datasets

    loaded = datasets.load_dataset(str(directory / "dataset"))
    assert set(loaded) == {"train", "valid", "test"}
    assert loaded["train"].features["label"].dtype == "int64"

    second = _demo(directory, "--world", "tiny", "--no-train")  # re-run over its own output
    assert second.returncode == 0, second.stderr[-3000:]
    assert not (directory / "model").exists()


def test_demo_refuses_a_directory_it_did_not_write(tmp_path: Path) -> None:
    (tmp_path / "precious.txt").write_text("keep me")
    result = _demo(tmp_path, "--world", "tiny", "--no-train")
    assert result.returncode != 0
    assert "not written by `issues-sts demo`" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert (tmp_path / "precious.txt").read_text() == "keep me"


def test_a_saturated_spearman_is_explained_not_left_looking_like_no_training() -> None:
    from issues_sts.cli.demo import score_lines

    perfect = {"spearman": 86.62, "pearson": 90.54, "roc_auc": 1.0}
    lines = score_lines(perfect, perfect | {"pearson": 98.35})
    assert "before 86.62 -> after 86.62" in lines[0] and "90.54 -> 98.35" in lines[0]
    assert len(lines) == 2 and "ceiling" in lines[1]
    harder = score_lines(perfect | {"roc_auc": 0.8712}, perfect | {"roc_auc": 0.9104})
    assert len(harder) == 1 and "ROC AUC: 0.871 -> 0.910" in harder[0]
