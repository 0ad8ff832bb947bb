"""Calendar shifts: whole months and years."""

from __future__ import annotations

import datetime as dt

from datekit.calendar_math import days_in_month


def _month_index(day: dt.date) -> int:
    # Months since year 0, so that shifting is plain integer arithmetic.
    return day.year * 12 + day.month - 1


def add_months(day: dt.date, months: int) -> dt.date:
    """Shift `day` by a whole number of months (negative goes back).

    The day of the month is kept; when the target month is shorter, the result is that
    month's last day (Jan 31 + 1 month = Feb 28, or Feb 29 in a leap year).
    Works for datetimes too; the time of day is kept.
    """
    year, month0 = divmod(_month_index(day) + months, 12)
    return day.replace(year=year, month=month0 + 1)


def add_years(day: dt.date, years: int) -> dt.date:
    """Shift by whole years; Feb 29 becomes Feb 28 in a non-leap target year."""
    year = day.year + years
    return day.replace(year=year, day=min(day.day, days_in_month(year, day.month)))


def months_between(start: dt.date, end: dt.date) -> int:
    """Whole months from `start` to `end` (negative when `end` is earlier)."""
    months = _month_index(end) - _month_index(start)
    if months > 0 and end.day < start.day:
        months -= 1
    elif months < 0 and end.day > start.day:
        months += 1
    return months
