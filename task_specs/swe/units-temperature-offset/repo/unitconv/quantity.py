"""Quantities: a number with a unit, parsed from and formatted to text."""

from __future__ import annotations

import re
from dataclasses import dataclass

from unitconv.convert import convert
from unitconv.units import Unit, get_unit

_QUANTITY_RE = re.compile(r"^\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*(\S.*?)\s*$")


@dataclass(frozen=True)
class Quantity:
    value: float
    unit: Unit

    def to(self, unit: Unit | str) -> Quantity:
        target = unit if isinstance(unit, Unit) else get_unit(unit)
        return Quantity(convert(self.value, self.unit, target), target)

    def format(self, digits: int = 4) -> str:
        """Round to `digits` decimals and drop trailing zeros: '1.6093 km', '212 °F'."""
        text = f"{self.value:.{digits}f}".rstrip("0").rstrip(".")
        if text in ("-0", ""):
            text = "0"
        return f"{text} {self.unit.symbol}"

    def __str__(self) -> str:
        return self.format()


def parse_quantity(text: str) -> Quantity:
    """'12.5 km', '3e2 g', '-40 F', '100°C' -> Quantity."""
    match = _QUANTITY_RE.match(text)
    if not match:
        raise ValueError(f"not a quantity: {text!r}")
    return Quantity(float(match.group(1)), get_unit(match.group(2)))
