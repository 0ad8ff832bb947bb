import pytest

from bytefmt import parse_size
from bytefmt.__main__ import main


@pytest.mark.parametrize(
    "text,size",
    [("42", 42), ("10MB", 10_000_000), ("1.5 KiB", 1536), ("2g", 2_000_000_000), ("3 mi", 3 * 1024**2)],
    ids=["plain", "si", "iec", "bare-prefix", "short-iec"],
)
def test_parse_size(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "MB", "10 XB", "1..5 MB"], ids=["empty", "no-number", "bad-unit", "bad-number"])
def test_parse_errors(text):
    with pytest.raises(ValueError):
        parse_size(text)


def test_cli(capsys):
    assert main(["1536", "--binary"]) == 0
    assert main(["--parse", "1.5 kB"]) == 0
    assert capsys.readouterr().out.split("\n")[:2] == ["1.5 KiB", "1500"]
    assert main(["lots"]) == 2
