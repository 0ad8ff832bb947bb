import pytest

from confini import ParseError
from confini.parser import parse_ini


def test_sections_keys_and_comments():
    text = "# top\n[server]\nHost = example.org\nport: 8080\n; note\n"
    assert parse_ini(text) == {"DEFAULT": {}, "server": {"host": "example.org", "port": "8080"}}


def test_value_may_contain_separators():
    sections = parse_ini("[db]\nurl = postgres://u:p@h/db?ssl=1\n")
    assert sections["db"]["url"] == "postgres://u:p@h/db?ssl=1"


def test_continuation_lines():
    sections = parse_ini("[app]\nplugins = a\n  b\n  c\n")
    assert sections["app"]["plugins"] == "a\nb\nc"


@pytest.mark.parametrize("text,lineno", [("x = 1\n", 1), ("[a]\n[b\n", 2), ("[a]\njunk\n", 2)],
                         ids=["no-section", "bad-header", "no-separator"])
def test_parse_errors(text, lineno):
    with pytest.raises(ParseError) as info:
        parse_ini(text, source="app.ini")
    assert info.value.lineno == lineno
    assert str(info.value).startswith(f"app.ini:{lineno}:")
