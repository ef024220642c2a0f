"""The learning-rate schedule of fine-tuning and of RAN pretraining (one formula for both)."""

from __future__ import annotations

from collections.abc import Callable


def linear_schedule(warmup: int, total: int) -> Callable[[int], float]:
    """LR multiplier for `LambdaLR`: linear warmup to 1 over `warmup` steps, then linear
    decay to 0 at step `total`."""

    def factor(step: int) -> float:
        if step < warmup:
            return (step + 1) / max(1, warmup)
        return max(0.0, (total - step) / max(1, total - warmup))

    return factor
