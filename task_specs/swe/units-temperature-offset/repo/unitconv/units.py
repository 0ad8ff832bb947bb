"""The unit table.

Every unit maps onto its dimension's base unit (metre, kilogram, second, litre, kelvin) by
    base = value * factor + offset
`offset` is zero for everything except temperature scales whose zero is not absolute zero.
"""

from __future__ import annotations

from dataclasses import dataclass


class UnknownUnit(KeyError):
    def __str__(self) -> str:
        return f"unknown unit: {self.args[0]!r}"


@dataclass(frozen=True)
class Unit:
    symbol: str
    dimension: str
    factor: float
    offset: float = 0.0


_UNITS = [
    Unit("m", "length", 1.0), Unit("km", "length", 1000.0), Unit("cm", "length", 0.01),
    Unit("mm", "length", 0.001), Unit("mi", "length", 1609.344), Unit("yd", "length", 0.9144),
    Unit("ft", "length", 0.3048), Unit("in", "length", 0.0254),
    Unit("kg", "mass", 1.0), Unit("g", "mass", 0.001), Unit("lb", "mass", 0.45359237),
    Unit("oz", "mass", 0.028349523125),
    Unit("s", "time", 1.0), Unit("min", "time", 60.0), Unit("h", "time", 3600.0), Unit("d", "time", 86400.0),
    Unit("l", "volume", 1.0), Unit("ml", "volume", 0.001), Unit("gal", "volume", 3.785411784),
    Unit("K", "temperature", 1.0),
    Unit("°C", "temperature", 1.0, 273.15),
    Unit("°F", "temperature", 5 / 9, 273.15 - 32 * 5 / 9),
]
UNITS = {u.symbol: u for u in _UNITS}

ALIASES = {
    "meter": "m", "metre": "m", "meters": "m", "metres": "m", "kilometer": "km", "kilometers": "km",
    "mile": "mi", "miles": "mi", "foot": "ft", "feet": "ft", "inch": "in", "inches": "in",
    "gram": "g", "grams": "g", "kilogram": "kg", "kilograms": "kg", "pound": "lb", "pounds": "lb",
    "lbs": "lb", "ounce": "oz", "ounces": "oz", "sec": "s", "second": "s", "seconds": "s",
    "minute": "min", "minutes": "min", "hour": "h", "hours": "h", "day": "d", "days": "d",
    "liter": "l", "litre": "l", "liters": "l", "litres": "l", "L": "l", "gallon": "gal", "gallons": "gal",
    "kelvin": "K", "C": "°C", "celsius": "°C", "degC": "°C", "F": "°F", "fahrenheit": "°F", "degF": "°F",
}


def get_unit(name: str) -> Unit:
    """Look a unit up by symbol or alias; aliases are case-insensitive, symbols are not
    (so 'm' and 'M' differ, but 'Miles' works)."""
    name = name.strip()
    if name in UNITS:
        return UNITS[name]
    symbol = ALIASES.get(name) or ALIASES.get(name.lower())
    if symbol is None:
        raise UnknownUnit(name)
    return UNITS[symbol]
