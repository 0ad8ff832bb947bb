from wraptext import align, justify
from wraptext.__main__ import main


def test_align():
    assert align("ab", 6, "right") == "    ab"
    assert align("ab", 7, "center") == "  ab   "


def test_justify_stretches_all_but_last_line():
    lines = justify("the quick brown fox jumps over the lazy dog", 13)
    assert lines == ["the     quick", "brown     fox", "jumps    over", "the lazy dog"]


def test_cli(tmp_path, capsys):
    path = tmp_path / "in.txt"
    path.write_text("aa bb cc dd\n\nee")
    assert main(["-w", "6", str(path)]) == 0
    assert capsys.readouterr().out == "aa bb\ncc dd\n\nee\n"
