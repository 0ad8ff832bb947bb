"""One bucket per key (client IP, API token, ...), with idle buckets forgotten."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable

from throttle.bucket import TokenBucket
from throttle.clock import monotonic
from throttle.policy import Policy, parse_policy


@dataclass(frozen=True)
class Decision:
    allowed: bool
    remaining: int  # whole tokens left after this request
    retry_after: float  # seconds until the next request would be allowed (0 if allowed)


class KeyedLimiter:
    def __init__(self, policy: Policy | str, max_keys: int = 10_000,
                 clock: Callable[[], float] = monotonic) -> None:
        self.policy = parse_policy(policy) if isinstance(policy, str) else policy
        self.max_keys = max_keys
        self._clock = clock
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def _bucket(self, key: str) -> TokenBucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = TokenBucket(self.policy.rate, self.policy.capacity, self._clock)
            self._buckets[key] = bucket
            while len(self._buckets) > self.max_keys:
                # Forgetting the least recently used key only ever lets it start full again.
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        return bucket

    def check(self, key: str, cost: float = 1) -> Decision:
        bucket = self._bucket(key)
        if bucket.try_acquire(cost):
            return Decision(True, int(bucket.tokens), 0.0)
        return Decision(False, int(bucket.tokens), bucket.wait_time(cost))

    def __len__(self) -> int:
        return len(self._buckets)
