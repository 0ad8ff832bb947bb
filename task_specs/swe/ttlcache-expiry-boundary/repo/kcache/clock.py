"""Clocks: a cache asks a zero-argument callable for the current time in seconds."""

from __future__ import annotations

import time
from typing import Callable

Clock = Callable[[], float]


def monotonic_clock() -> float:
    return time.monotonic()


class ManualClock:
    """A clock that only moves when told to; handy in tests and simulations."""

    def __init__(self, start: float = 0.0) -> None:
        self.now = float(start)

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("time does not go backwards")
        self.now += seconds
