import pytest

from unitconv import UnknownUnit, get_unit


def test_lookup_by_symbol_and_alias():
    assert get_unit("km").factor == 1000
    assert get_unit("Miles").symbol == "mi"
    assert get_unit("celsius").symbol == "°C"


def test_symbols_are_case_sensitive():
    with pytest.raises(UnknownUnit):
        get_unit("M")


def test_every_alias_points_to_a_unit():
    from unitconv.units import ALIASES, UNITS

    assert set(ALIASES.values()) <= set(UNITS)
