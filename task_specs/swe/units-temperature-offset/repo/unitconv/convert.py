"""Converting values between units of the same dimension."""

from __future__ import annotations

from unitconv.units import Unit, get_unit


class IncompatibleUnits(ValueError):
    pass


def _unit(u: Unit | str) -> Unit:
    return u if isinstance(u, Unit) else get_unit(u)


def conversion_factor(src: Unit | str, dst: Unit | str) -> float:
    """How many `dst` make one `src` (for units of the same dimension)."""
    src, dst = _unit(src), _unit(dst)
    if src.dimension != dst.dimension:
        raise IncompatibleUnits(f"cannot convert {src.dimension} ({src.symbol}) to {dst.dimension} ({dst.symbol})")
    return src.factor / dst.factor


def convert(value: float, src: Unit | str, dst: Unit | str) -> float:
    """Convert `value` in unit `src` to unit `dst`."""
    return value * conversion_factor(src, dst)
