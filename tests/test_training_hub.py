"""Training from a dataset Hub id: the real `huggingface_hub`/`datasets` clients in a fresh
`issues-sts train` process, against the loopback fake Hub holding a copy shaped exactly like
the release (README configs `default` {text1, text2, label} and `positive` {anchor,
positive}, splits train/valid/test)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from issues_sts.dataset.build import run_build
from issues_sts.dataset.config import BuildConfig
from issues_sts.sandbox.hub import LFS_SUFFIXES, StoredFile, serve_fake_hub
from tests.dataset_store import make_store
from tests.test_training_support import tiny_encoder

REPO = "tester/github-issue-similarity"
ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow  # a fresh interpreter importing torch and datasets
def test_train_from_a_hub_dataset_id(tmp_path: Path) -> None:
    built = tmp_path / "dataset"
    run_build(BuildConfig(store=make_store(tmp_path / "store"), out=built))
    files = {
        p.relative_to(built).as_posix(): p.read_bytes() for p in built.rglob("*") if p.is_file()
    }
    assert {
        "data/train-00000-of-00001.parquet",
        "positive/test-00000-of-00001.parquet",
        "README.md",
    } <= set(files)
    tiny_encoder("avg").save(tmp_path / "tiny")
    with serve_fake_hub() as hub:
        repo = hub.create("dataset", REPO, private=False)
        snapshot = dict(repo.commits[-1][1])
        snapshot.update(
            {
                path: StoredFile(data, lfs=path.endswith(LFS_SUFFIXES))
                for path, data in files.items()
            }
        )
        repo.commits.append((hashlib.sha1(b"release").hexdigest(), snapshot))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING"))}
        env |= {
            "HF_ENDPOINT": hub.url,
            "HF_HOME": str(tmp_path / "hf-home"),
            "HF_HUB_OFFLINE": "0",
            "HF_DATASETS_OFFLINE": "0",
            "HF_HUB_DISABLE_PROGRESS_BARS": "1",
            "HF_HUB_DISABLE_TELEMETRY": "1",
            "HF_HUB_DISABLE_XET": "1",
            "NO_COLOR": "1",
        }
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "issues_sts.cli.app",
                "train",
                "--dataset",
                REPO,
                "--model",
                str(tmp_path / "tiny"),
                "--out",
                str(tmp_path / "run"),
                "--max-length",
                "32",
                "--batch-size",
                "4",
                "--max-steps",
                "2",
                "--max-train-pairs",
                "16",
                "--max-pairs",
                "16",
                "--quiet",
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        unknown = list(hub.unknown)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "trained 2 steps" in run.stdout and "best valid Spearman" in run.stdout
    assert not unknown, unknown
    saved = json.loads((tmp_path / "run" / "train_config.json").read_text())
    assert saved["data"] == REPO
    records = json.loads((tmp_path / "run" / "metrics.json").read_text())
    valid_rows = pl.read_parquet(built / "data" / "valid-00000-of-00001.parquet").height
    assert any(
        r["kind"] == "eval" and r["split"] == "valid" and r["pairs"] == min(16, valid_rows)
        for r in records
    )
