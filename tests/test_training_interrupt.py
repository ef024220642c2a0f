"""`issues-sts train` interrupted by Ctrl-C (a real SIGINT) checkpoints the steps done, says
how to resume, exits 130; the same command then finishes the run with the weights of an
uninterrupted one."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
import torch

from issues_sts.cli.app import app, run
from tests.test_training_support import make_pairs_folder, tiny_encoder
from training.checkpoint import read_progress
from training.models import load_encoder
from training.trainer import Trainer


def test_ctrl_c_checkpoints_and_the_same_command_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = make_pairs_folder(tmp_path / "pairs", {"train": 24})
    tiny_encoder("avg").save(tmp_path / "tiny")

    def command(out: Path) -> list[str]:
        return [
            "train",
            "--dataset",
            str(data),
            "--model",
            str(tmp_path / "tiny"),
            "--out",
            str(out),
            "--max-length",
            "16",
            "--batch-size",
            "4",
            "--max-steps",
            "5",
            "--warmup-steps",
            "1",
            "--lr",
            "1e-3",
            "--valid-split",
            "",
            "--quiet",
        ]

    assert run(app, command(tmp_path / "straight"), "issues-sts") == 0

    interrupted = command(tmp_path / "run")
    real_step = Trainer._optimizer_step

    def step_then_ctrl_c(self: Trainer, group):  # the user presses Ctrl-C during step 2
        result = real_step(self, group)
        if self.progress.step == 1:
            os.kill(os.getpid(), signal.SIGINT)
        return result

    monkeypatch.setattr(Trainer, "_optimizer_step", step_then_ctrl_c)
    assert run(app, interrupted, "issues-sts") == 130
    err = capsys.readouterr().err
    assert "a checkpoint after step 2 of 5" in err
    assert f"to resume: issues-sts train --dataset {data}" in err
    assert (
        read_progress(tmp_path / "run" / "last").step == 2
    )  # the step in flight was finished, not lost
    assert signal.getsignal(signal.SIGINT) is not None  # our handler is gone again
    monkeypatch.setattr(Trainer, "_optimizer_step", real_step)

    assert run(app, interrupted, "issues-sts") == 0  # the printed command, run again
    assert read_progress(tmp_path / "run" / "last").step == 5
    a, b = (load_encoder(tmp_path / name / "last").state_dict() for name in ("straight", "run"))
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
