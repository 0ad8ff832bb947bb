"""An LRU cache whose entries also expire after a time-to-live."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from kcache.clock import Clock, monotonic_clock
from kcache.lru import LRUCache

_MISSING = object()


class TTLCache:
    """Entries live for `ttl` seconds: a value set at time t is returned until, but not at,
    t + ttl. A ttl of 0 therefore caches nothing, which is handy to switch caching off
    through configuration. Expired entries are dropped lazily, or all at once by expire().
    """

    def __init__(self, maxsize: int = 128, ttl: float = 60.0, clock: Clock | None = None) -> None:
        if ttl < 0:
            raise ValueError("ttl must not be negative")
        self.ttl = ttl
        self._clock = clock or monotonic_clock
        # Values are stored as (value, expires_at).
        self._lru = LRUCache(maxsize)

    def _expired(self, expires_at: float, now: float) -> bool:
        return now > expires_at

    def __len__(self) -> int:
        return len(self._lru)

    def __contains__(self, key: Hashable) -> bool:
        return self.get(key, _MISSING) is not _MISSING

    def get(self, key: Hashable, default: Any = None) -> Any:
        entry = self._lru.get(key, _MISSING)
        if entry is _MISSING:
            return default
        value, expires_at = entry
        if self._expired(expires_at, self._clock()):
            self._lru.pop(key)
            return default
        return value

    def set(self, key: Hashable, value: Any, ttl: float | None = None) -> None:
        lifetime = self.ttl if ttl is None else ttl
        self._lru.set(key, (value, self._clock() + lifetime))

    def remaining(self, key: Hashable) -> float | None:
        """Seconds until `key` expires, or None if it is not cached."""
        entry = self._lru.peek(key, _MISSING)
        if entry is _MISSING:
            return None
        now = self._clock()
        if self._expired(entry[1], now):
            return None
        return entry[1] - now

    def expire(self) -> int:
        """Drop every expired entry; return how many were dropped."""
        now = self._clock()
        dead = [k for k in self._lru if self._expired(self._lru.peek(k)[1], now)]
        for key in dead:
            self._lru.pop(key)
        return len(dead)

    def clear(self) -> None:
        self._lru.clear()
