"""A five-field cron expression: minute hour day-of-month month day-of-week."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from cronlite.fields import DAY, HOUR, MINUTE, MONTH, WEEKDAY, CronSyntaxError, Field, parse_field

ALIASES = {
    "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}

__all__ = ["CronExpression", "CronSyntaxError"]


@dataclass(frozen=True)
class CronExpression:
    source: str
    minute: Field
    hour: Field
    day: Field
    month: Field
    weekday: Field

    @classmethod
    def parse(cls, text: str) -> CronExpression:
        expanded = ALIASES.get(text.strip().lower(), text)
        parts = expanded.split()
        if len(parts) != 5:
            raise CronSyntaxError(f"expected 5 fields, got {len(parts)} in {text!r}")
        specs = (MINUTE, HOUR, DAY, MONTH, WEEKDAY)
        fields = [parse_field(part, spec) for part, spec in zip(parts, specs)]
        return cls(text, *fields)

    def matches_day(self, day: dt.date) -> bool:
        """Does the expression allow any time on `day`?"""
        if day.month not in self.month:
            return False
        cron_weekday = (day.weekday() + 1) % 7  # cron counts from Sunday = 0
        return day.day in self.day and cron_weekday in self.weekday

    def matches(self, moment: dt.datetime) -> bool:
        return (self.matches_day(moment.date()) and moment.hour in self.hour
                and moment.minute in self.minute)
