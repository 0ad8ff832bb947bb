"""Text -> bytes."""

from __future__ import annotations

import re

from bytefmt.units import multipliers

_SIZE_RE = re.compile(r"^\s*([-+]?\d+(?:\.\d+)?|[-+]?\.\d+)\s*([A-Za-z]*)\s*$")


def parse_size(text: str) -> int:
    """'10MB' -> 10_000_000, '1.5 KiB' -> 1536, '42' -> 42. Units are case-insensitive;
    fractional results are rounded to whole bytes."""
    match = _SIZE_RE.match(text)
    if not match:
        raise ValueError(f"not a size: {text!r}")
    number, unit = match.groups()
    table = multipliers()
    factor = table.get(unit.lower() or "b")
    if factor is None:
        raise ValueError(f"unknown size unit {unit!r} in {text!r}")
    return round(float(number) * factor)
