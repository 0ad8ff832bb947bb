"""Upcoming run times of an expression."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

from cronlite.expression import CronExpression

MAX_DAYS = 366 * 5  # '0 0 29 2 1' (Feb 29 on a Monday) can take years; give up after five


def _expr(expr: CronExpression | str) -> CronExpression:
    return expr if isinstance(expr, CronExpression) else CronExpression.parse(expr)


def next_run(expr: CronExpression | str, after: dt.datetime) -> dt.datetime:
    """The first matching minute strictly after `after` (seconds are dropped)."""
    expr = _expr(expr)
    start = after.replace(second=0, microsecond=0) + dt.timedelta(minutes=1)
    day = start.date()
    for _ in range(MAX_DAYS):
        if expr.matches_day(day):
            first_hour = start.hour if day == start.date() else 0
            for hour in sorted(h for h in expr.hour.values if h >= first_hour):
                first_minute = start.minute if (day == start.date() and hour == start.hour) else 0
                minutes = sorted(m for m in expr.minute.values if m >= first_minute)
                if minutes:
                    return dt.datetime.combine(day, dt.time(hour, minutes[0]), tzinfo=after.tzinfo)
        day += dt.timedelta(days=1)
    raise ValueError(f"{expr.source!r} does not match within {MAX_DAYS} days of {after}")


def upcoming(expr: CronExpression | str, after: dt.datetime, count: int) -> Iterator[dt.datetime]:
    expr = _expr(expr)
    moment = after
    for _ in range(count):
        moment = next_run(expr, moment)
        yield moment
