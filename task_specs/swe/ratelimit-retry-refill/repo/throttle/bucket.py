"""The token bucket: `capacity` tokens at most, refilled at `rate` tokens per second."""

from __future__ import annotations

from typing import Callable

from throttle.clock import monotonic


class TokenBucket:
    def __init__(self, rate: float, capacity: float, clock: Callable[[], float] = monotonic) -> None:
        if rate <= 0 or capacity <= 0:
            raise ValueError("rate and capacity must be positive")
        self.rate = rate
        self.capacity = capacity
        self._clock = clock
        self._tokens = capacity  # a new bucket starts full
        self._last = clock()

    def _refill(self) -> float:
        """Add the tokens earned since the last update; return the current time."""
        now = self._clock()
        elapsed = max(0.0, now - self._last)
        self._tokens = min(self.capacity, self._tokens + elapsed * self.rate)
        return now

    @property
    def tokens(self) -> float:
        self._refill()
        return self._tokens

    @property
    def idle_since(self) -> float:
        return self._last

    def try_acquire(self, n: float = 1) -> bool:
        """Take `n` tokens if available; never blocks."""
        if n > self.capacity:
            raise ValueError(f"cannot take {n} tokens from a bucket of {self.capacity}")
        now = self._refill()
        if self._tokens >= n:
            self._tokens -= n
            self._last = now
            return True
        return False

    def wait_time(self, n: float = 1) -> float:
        """Seconds until `n` tokens will be available (0 if they are now)."""
        self._refill()
        missing = n - self._tokens
        return max(0.0, missing / self.rate)
