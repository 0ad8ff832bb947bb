import pytest

from unitconv import IncompatibleUnits, convert, parse_quantity
from unitconv.__main__ import main


@pytest.mark.parametrize(
    "value,src,dst,expected",
    [(1, "mi", "km", 1.609344), (12, "in", "ft", 1), (1, "lb", "oz", 16), (90, "min", "h", 1.5),
     (1, "gal", "l", 3.785411784), (5, "K", "K", 5)],
    ids=["mi-km", "in-ft", "lb-oz", "min-h", "gal-l", "kelvin-identity"],
)
def test_convert(value, src, dst, expected):
    assert convert(value, src, dst) == pytest.approx(expected)


def test_incompatible():
    with pytest.raises(IncompatibleUnits):
        convert(1, "kg", "m")


def test_parse_and_format():
    q = parse_quantity("  2.5e3 g ")
    assert str(q.to("kg")) == "2.5 kg"
    assert str(parse_quantity("1 mi").to("km")) == "1.6093 km"
    with pytest.raises(ValueError):
        parse_quantity("km 5")


def test_cli(capsys):
    assert main(["10", "km", "to", "mi", "-d", "2"]) == 0
    assert capsys.readouterr().out == "6.21 mi\n"
    assert main(["3 ft", "in"]) == 0
    assert capsys.readouterr().out == "36 in\n"
    assert main(["3 ft to kg"]) == 2
