import pytest

from wraptext import fill, wrap

FOX = "the quick brown fox jumps over the lazy dog"


def test_wrap_basic():
    assert wrap(FOX, 13) == ["the quick", "brown fox", "jumps over", "the lazy dog"]


def test_lines_never_exceed_width():
    for width in (8, 11, 17, 23):
        assert all(len(line) <= width for line in wrap(FOX * 3, width))


def test_whitespace_is_normalised():
    assert wrap("  a\tb\n c  ", 20) == ["a b c"]


def test_indents():
    lines = wrap(FOX, 15, initial_indent="* ", subsequent_indent="  ")
    assert lines == ["* the quick", "  brown fox", "  jumps over", "  the lazy dog"]


def test_long_words():
    assert wrap("a supercalifragilistic b", 8) == ["a", "supercal", "ifragili", "stic b"]
    assert wrap("a supercalifragilistic b", 8, break_long_words=False) == ["a", "supercalifragilistic", "b"]


def test_bad_arguments():
    with pytest.raises(ValueError):
        wrap(FOX, 0)
    with pytest.raises(ValueError):
        wrap(FOX, 4, initial_indent="    ")


def test_fill_paragraphs():
    assert fill("one two\n\n\nthree", 40) == "one two\n\nthree"
