import pytest

from mdlite import render_inline


@pytest.mark.parametrize(
    "source,html",
    [
        ("*hi* and _there_", "<em>hi</em> and <em>there</em>"),
        ("**bold** text", "<strong>bold</strong> text"),
        ("snake_case_name stays", "snake_case_name stays"),
        ("use `pip install`", "use <code>pip install</code>"),
        ("``a ` b``", "<code>a ` b</code>"),
        ("[docs](https://example.org/a?b=1&c=2)", '<a href="https://example.org/a?b=1&amp;c=2">docs</a>'),
        ("1 < 2 & 3", "1 &lt; 2 &amp; 3"),
        (r"\*not em\*", "*not em*"),
    ],
    ids=["em", "strong", "intraword-underscore", "code", "code-with-backtick", "link", "escape", "backslash"],
)
def test_inline(source, html):
    assert render_inline(source) == html


def test_unsafe_link_scheme_is_neutralised():
    assert render_inline("[x](javascript:alert(1))") == '<a href="#">x</a>)'
