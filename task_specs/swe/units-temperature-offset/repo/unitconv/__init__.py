"""unitconv: unit conversion for everyday quantities."""

from unitconv.convert import IncompatibleUnits, convert
from unitconv.quantity import Quantity, parse_quantity
from unitconv.units import UnknownUnit, get_unit

__all__ = ["IncompatibleUnits", "Quantity", "UnknownUnit", "convert", "get_unit", "parse_quantity"]
