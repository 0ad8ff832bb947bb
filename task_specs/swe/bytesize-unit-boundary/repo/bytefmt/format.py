"""Bytes -> text."""

from __future__ import annotations

from bytefmt.units import unit_table


def format_size(size: float, binary: bool = False, precision: int = 1) -> str:
    """'1.5 MB' (or '1.4 MiB' with binary=True). Plain bytes are shown without decimals.

    The largest unit is chosen in which the value is at least 1.
    """
    base, units = unit_table(binary)
    value = float(size)
    index = 0
    while abs(value) > base and index < len(units) - 1:
        value /= base
        index += 1
    if index == 0:
        return f"{int(size)} B"
    return f"{value:.{precision}f} {units[index]}"


def format_rate(bytes_per_second: float, binary: bool = False) -> str:
    return format_size(bytes_per_second, binary) + "/s"
