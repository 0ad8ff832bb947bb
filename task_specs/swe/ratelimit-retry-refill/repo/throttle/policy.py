"""Rate policies written as text: '10/s', '100/m', '5/10s', '1000/h burst 50'."""

from __future__ import annotations

import re
from dataclasses import dataclass

_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_POLICY_RE = re.compile(r"^\s*(\d+)\s*/\s*(\d*)\s*([smhd])\s*(?:burst\s+(\d+))?\s*$")


@dataclass(frozen=True)
class Policy:
    rate: float  # tokens added per second
    capacity: float  # largest burst

    def __post_init__(self) -> None:
        if self.rate <= 0 or self.capacity < 1:
            raise ValueError("rate must be positive and capacity at least 1")


def parse_policy(text: str) -> Policy:
    """'N/[K]unit [burst B]': N requests per K units; the burst defaults to N."""
    match = _POLICY_RE.match(text)
    if not match:
        raise ValueError(f"bad rate policy {text!r}; expected e.g. '10/s' or '100/5m burst 20'")
    count, span, unit, burst = match.groups()
    seconds = (int(span) if span else 1) * _UNITS[unit]
    return Policy(rate=int(count) / seconds, capacity=float(burst or count))
