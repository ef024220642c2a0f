"""Seeded fault injection: which request fails, and how."""

from __future__ import annotations

import random
import threading

from issues_sts.sandbox.github.settings import FakeSettings

# Faults after which the request was served (and so counted against the limit).
SERVED_FAULTS = frozenset({"truncate", "short_body", "slow"})


class FaultPlan:
    """Decides, request by request, whether to inject a fault; deterministic in arrival order."""

    def __init__(self, settings: FakeSettings) -> None:
        self.rate = settings.fault_rate
        self.kinds = settings.fault_kinds
        self._rng = random.Random(settings.fault_seed)
        self._lock = threading.Lock()

    def next_fault(self) -> str | None:
        if self.rate <= 0 or not self.kinds:
            return None
        with self._lock:
            hit = self._rng.random() < self.rate
            kind = self._rng.choice(self.kinds)
        return kind if hit else None


def tamper(body: bytes, fault: str | None) -> tuple[bytes, int]:
    """(bytes to send, Content-Length to announce) for a served fault."""
    if fault == "truncate":
        cut = body[: max(1, len(body) // 2)]
        return cut, len(cut)
    if fault == "short_body":
        return body[: max(1, len(body) // 2)], len(body)
    return body, len(body)
