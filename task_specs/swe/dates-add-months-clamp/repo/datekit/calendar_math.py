"""Gregorian calendar facts."""

from __future__ import annotations

import datetime as dt

_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def days_in_month(year: int, month: int) -> int:
    if not 1 <= month <= 12:
        raise ValueError(f"month must be in 1..12, got {month}")
    if month == 2 and is_leap(year):
        return 29
    return _DAYS[month - 1]


def last_day_of_month(day: dt.date) -> dt.date:
    return day.replace(day=days_in_month(day.year, day.month))
