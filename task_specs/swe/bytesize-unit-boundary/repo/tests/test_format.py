import pytest

from bytefmt import format_size
from bytefmt.format import format_rate


@pytest.mark.parametrize(
    "size,binary,text",
    [(0, False, "0 B"), (999, False, "999 B"), (1500, False, "1.5 kB"), (1536, True, "1.5 KiB"),
     (5 * 1024**3, True, "5.0 GiB"), (-2048, True, "-2.0 KiB")],
    ids=["zero", "bytes", "kilo", "kibi", "gibi", "negative"],
)
def test_format_size(size, binary, text):
    assert format_size(size, binary) == text


def test_precision():
    assert format_size(1_234_567, precision=3) == "1.235 MB"


def test_huge_values_stay_in_the_largest_unit():
    assert format_size(5 * 1000**7) == "5000.0 EB"


def test_rate():
    assert format_rate(1_200_000) == "1.2 MB/s"
