"""@memoize(cache): cache a function's results in any cache with get/set."""

from __future__ import annotations

import functools
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, Callable

_MISSING = object()


@dataclass
class CacheInfo:
    hits: int = 0
    misses: int = 0


def default_key(*args: Any, **kwargs: Any) -> Hashable:
    if kwargs:
        return (args, tuple(sorted(kwargs.items())))
    return args


def memoize(cache: Any, key: Callable[..., Hashable] = default_key) -> Callable:
    def decorate(func: Callable) -> Callable:
        info = CacheInfo()

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            k = key(*args, **kwargs)
            value = cache.get(k, _MISSING)
            if value is not _MISSING:
                info.hits += 1
                return value
            info.misses += 1
            value = func(*args, **kwargs)
            cache.set(k, value)
            return value

        wrapper.cache = cache
        wrapper.cache_info = lambda: CacheInfo(info.hits, info.misses)
        return wrapper

    return decorate
