"""kcache: in-memory LRU / TTL caches and a memoize decorator."""

from kcache.clock import ManualClock, monotonic_clock
from kcache.lru import LRUCache
from kcache.memoize import memoize
from kcache.ttl import TTLCache

__all__ = ["LRUCache", "ManualClock", "TTLCache", "memoize", "monotonic_clock"]
