"""Business days: Monday to Friday, minus an optional set of holidays."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection

_NO_HOLIDAYS: frozenset = frozenset()


def is_business_day(day: dt.date, holidays: Collection[dt.date] = _NO_HOLIDAYS) -> bool:
    return day.weekday() < 5 and day not in holidays


def add_business_days(day: dt.date, count: int, holidays: Collection[dt.date] = _NO_HOLIDAYS) -> dt.date:
    """Move `count` business days forward (or back when negative); 0 returns `day`."""
    step = dt.timedelta(days=1 if count >= 0 else -1)
    remaining = abs(count)
    while remaining:
        day += step
        if is_business_day(day, holidays):
            remaining -= 1
    return day
