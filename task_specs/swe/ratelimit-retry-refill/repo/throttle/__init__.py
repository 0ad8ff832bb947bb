"""throttle: token-bucket rate limiting."""

from throttle.bucket import TokenBucket
from throttle.clock import FakeClock
from throttle.limiter import Decision, KeyedLimiter
from throttle.policy import Policy, parse_policy

__all__ = ["Decision", "FakeClock", "KeyedLimiter", "Policy", "TokenBucket", "parse_policy"]
