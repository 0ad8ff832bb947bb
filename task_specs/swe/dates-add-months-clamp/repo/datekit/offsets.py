"""Relative offsets such as '+3d', '-2w', '+1m', '+1y', '+5b' (business days)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from datekit.business import add_business_days
from datekit.shift import add_months, add_years

_OFFSET_RE = re.compile(r"^\s*([+-])\s*(\d+)\s*([dwmyb])\s*$")


@dataclass(frozen=True)
class Offset:
    amount: int
    unit: str  # d, w, m, y or b


def parse_offset(text: str) -> Offset:
    match = _OFFSET_RE.match(text)
    if not match:
        raise ValueError(f"bad offset {text!r}; expected e.g. +3d, -2w, +1m, +1y, +5b")
    sign, amount, unit = match.groups()
    return Offset(int(amount) * (-1 if sign == "-" else 1), unit)


def apply_offset(day: dt.date, offset: Offset | str) -> dt.date:
    if isinstance(offset, str):
        offset = parse_offset(offset)
    if offset.unit == "d":
        return day + dt.timedelta(days=offset.amount)
    if offset.unit == "w":
        return day + dt.timedelta(weeks=offset.amount)
    if offset.unit == "m":
        return add_months(day, offset.amount)
    if offset.unit == "y":
        return add_years(day, offset.amount)
    return add_business_days(day, offset.amount)
