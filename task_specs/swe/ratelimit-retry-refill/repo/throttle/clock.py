"""Time sources. Buckets take any zero-argument callable returning seconds."""

from __future__ import annotations

import time


def monotonic() -> float:
    return time.monotonic()


class FakeClock:
    """Manual time for tests and simulations."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def tick(self, seconds: float) -> None:
        self.now += seconds
