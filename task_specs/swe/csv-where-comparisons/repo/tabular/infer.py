"""Column type inference: every non-empty value of a column decides its type."""

from __future__ import annotations

from typing import Any, Callable

_TRUE = {"true", "yes"}
_FALSE = {"false", "no"}


def _is_int(text: str) -> bool:
    digits = text[1:] if text[:1] in "+-" else text
    # '007' is an identifier (zip code, account number), not the number 7.
    return digits.isdigit() and (digits == "0" or not digits.startswith("0"))


def _is_float(text: str) -> bool:
    digits = text[1:] if text[:1] in "+-" else text
    if len(digits) > 1 and digits[0] == "0" and digits[1].isdigit():
        return False  # leading zero: an identifier, as for ints
    try:
        float(text)
    except ValueError:
        return False
    return text.strip().lower() not in ("nan", "inf", "-inf", "infinity")


def _to_bool(text: str) -> bool:
    return text.lower() in _TRUE


CONVERTERS: dict[str, Callable[[str], Any]] = {"int": int, "float": float, "bool": _to_bool, "str": str}


def infer_type(values: list[str]) -> str:
    present = [v for v in values if v != ""]
    if not present:
        return "str"
    if all(_is_int(v) for v in present):
        return "int"
    if all(_is_int(v) or _is_float(v) for v in present):
        return "float"
    if all(v.lower() in _TRUE | _FALSE for v in present):
        return "bool"
    return "str"


def convert(value: str, type_name: str) -> Any:
    """Convert one cell; empty cells become None whatever the type."""
    if value == "":
        return None
    return CONVERTERS[type_name](value)
