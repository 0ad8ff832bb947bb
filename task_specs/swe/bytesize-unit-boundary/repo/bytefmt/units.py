"""Unit tables. SI prefixes step by 1000, IEC (binary) prefixes by 1024."""

from __future__ import annotations

SI_UNITS = ("B", "kB", "MB", "GB", "TB", "PB", "EB")
IEC_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")


def unit_table(binary: bool) -> tuple[int, tuple[str, ...]]:
    return (1024, IEC_UNITS) if binary else (1000, SI_UNITS)


def multipliers() -> dict[str, int]:
    """Every accepted unit spelling (lower-cased) -> bytes."""
    table = {"b": 1, "byte": 1, "bytes": 1}
    for power, (si, iec) in enumerate(zip(SI_UNITS, IEC_UNITS)):
        if power == 0:
            continue
        table[si.lower()] = 1000**power
        table[si[0].lower()] = 1000**power  # bare 'k', 'm', 'g' ...
        table[iec.lower()] = 1024**power
        table[iec[:2].lower()] = 1024**power  # 'ki', 'mi' ...
    return table
