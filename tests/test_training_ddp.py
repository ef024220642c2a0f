"""Two CPU processes under DDP (gloo), spawned like torchrun would: rows gathered across
processes, in-batch negatives across processes, and weights kept in sync."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest
import torch
import torch.multiprocessing as mp

WORLD = 2


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _worker(rank: int, port: int, data: str, output: str) -> None:
    os.environ.update(
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(port),
        RANK=str(rank),
        WORLD_SIZE=str(WORLD),
        LOCAL_RANK=str(rank),
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
    )
    torch.set_num_threads(1)
    from tests.test_training_support import tiny_encoder
    from training import distributed
    from training.config import TrainConfig
    from training.losses import LossConfig
    from training.trainer import Trainer

    distributed.setup("cpu")
    rows = torch.full((rank + 1, 2), float(rank), requires_grad=True)  # ranks hold 1 and 2 rows
    gathered = distributed.gather_rows(rows)
    gathered.sum().backward()
    config = TrainConfig(
        data=data,
        output=Path(output),
        batch_size=4,
        max_length=16,
        epochs=2,
        max_steps=3,
        warmup_steps=1,
        learning_rate=1e-3,
        valid_split=None,
        progress=False,
        loss=LossConfig(gather_across_processes=True),
    )
    trainer = Trainer(config, tiny_encoder("avg"))
    result = trainer.fit()
    checksum = sum(float(p.detach().double().sum()) for p in trainer.encoder.parameters())
    report = {
        "gathered": gathered.tolist(),
        "local_grad": rows.grad.tolist(),
        "steps": result.steps,
        "world": trainer.process.world_size,
        "checksum": checksum,
    }
    Path(output, f"rank{rank}.json").write_text(json.dumps(report))
    distributed.teardown()


@pytest.mark.slow
def test_two_process_gloo_training(tmp_path: Path) -> None:
    from tests.test_training_support import make_pairs_folder

    data = make_pairs_folder(tmp_path / "pairs", {"train": 16})
    mp.spawn(
        _worker, args=(_free_port(), str(data), str(tmp_path / "run")), nprocs=WORLD, join=True
    )
    reports = [json.loads((tmp_path / "run" / f"rank{r}.json").read_text()) for r in range(WORLD)]
    assert reports[0]["gathered"] == reports[1]["gathered"] == [[0.0, 0.0], [1.0, 1.0], [1.0, 1.0]]
    assert reports[1]["local_grad"] == [[1.0, 1.0], [1.0, 1.0]]  # gradient reaches the local rows
    assert all(r["world"] == WORLD and r["steps"] == 3 for r in reports)
    assert reports[0]["checksum"] == pytest.approx(
        reports[1]["checksum"], rel=1e-6
    )  # DDP kept them in sync
    assert (tmp_path / "run" / "last" / "model.safetensors").is_file()
