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


def effective_warmup(warmup: int, total: int, *, warn: Callable[[str], None] | None = None) -> int:
    """`warmup` steps, or all `total` steps when there are fewer: a short run with the default
    100 warm-up steps would otherwise never reach its learning rate (4 steps of 100 peak at
    4 % of it). `warn` is told when it clamps."""
    if warmup <= total:
        return warmup
    if warn is not None:
        warn(
            f"--warmup-steps {warmup} is more than the run's {total} steps: warming up over "
            f"{total} steps instead, so the last step reaches the full learning rate"
        )
    return total
