"""DDP plumbing: one process per device under `torchrun` / `accelerate launch`.

The trainer calls `setup()` once; it initialises the process group from the launcher's
environment (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR/PORT), picking NCCL on CUDA and gloo
on CPU. Without those variables everything runs in one process and the helpers below are
no-ops.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch
import torch.distributed as dist

from issues_sts.errors import ConfigError


@dataclass(frozen=True)
class Process:
    rank: int
    world_size: int
    device: torch.device

    @property
    def is_main(self) -> bool:
        return self.rank == 0


def is_distributed() -> bool:
    return dist.is_available() and dist.is_initialized()


def world_size() -> int:
    return dist.get_world_size() if is_distributed() else 1


def rank() -> int:
    return dist.get_rank() if is_distributed() else 0


def setup(device: str | None = None) -> Process:
    """Join the launcher's process group (if any) and choose this process's device."""
    if device is not None and device.startswith("cuda") and not torch.cuda.is_available():
        raise ConfigError(  # torch's own AssertionError read as a bug (exit 1)
            f"--device {device}: this torch has no CUDA device to use",
            hint="leave --device out to train on the CPU",
        )
    launched = int(os.environ.get("WORLD_SIZE", "1")) > 1
    cuda = torch.cuda.is_available() and device in (None, "cuda")
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    if launched and not is_distributed():
        dist.init_process_group(backend="nccl" if cuda else "gloo")
    if cuda:
        torch.cuda.set_device(local_rank)
        chosen = torch.device("cuda", local_rank)
    else:
        chosen = torch.device(device or "cpu")
    return Process(rank=rank(), world_size=world_size(), device=chosen)


def teardown() -> None:
    if is_distributed():
        dist.destroy_process_group()


def gather_rows(tensor: torch.Tensor) -> torch.Tensor:
    """Concatenate every rank's rows (ranks may hold different counts), in rank order.

    The local rows keep their autograd graph, so gradients flow to this rank's encoder;
    rows from other ranks are constants here (their own rank back-propagates them).
    """
    if not is_distributed():
        return tensor
    count = torch.tensor([tensor.shape[0]], device=tensor.device)
    counts = [torch.zeros_like(count) for _ in range(world_size())]
    dist.all_gather(counts, count)
    longest = int(max(int(c.item()) for c in counts))
    padded = torch.zeros((longest, *tensor.shape[1:]), dtype=tensor.dtype, device=tensor.device)
    padded[: tensor.shape[0]] = tensor.detach()
    gathered = [torch.zeros_like(padded) for _ in range(world_size())]
    dist.all_gather(gathered, padded)
    pieces = [g[: int(c.item())] for g, c in zip(gathered, counts, strict=True)]
    pieces[rank()] = tensor
    return torch.cat(pieces, dim=0)


def all_reduce_mean(value: float, device: torch.device) -> float:
    if not is_distributed():
        return value
    tensor = torch.tensor([value], device=device, dtype=torch.float64)
    dist.all_reduce(tensor)
    return float(tensor.item()) / world_size()
