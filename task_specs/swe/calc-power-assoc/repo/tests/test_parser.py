import pytest

from exprcalc import ParseError, parse
from exprcalc.nodes import to_sexpr


@pytest.mark.parametrize(
    "text,tree",
    [
        ("1 + 2 * 3", "(+ 1 (* 2 3))"),
        ("(1 + 2) * 3", "(* (+ 1 2) 3)"),
        ("8 - 3 - 2", "(- (- 8 3) 2)"),
        ("-x * 2", "(* (- x) 2)"),
        ("max(1, y + 1)", "(max 1 (+ y 1))"),
    ],
    ids=["precedence", "parens", "left-assoc", "unary", "call"],
)
def test_tree_shape(text, tree):
    assert to_sexpr(parse(text)) == tree


@pytest.mark.parametrize(
    "text,pos",
    [("1 +", 3), ("(1 + 2", 6), ("2 $ 3", 2), ("1 2", 2)],
    ids=["dangling-op", "unclosed", "bad-char", "juxtaposed"],
)
def test_errors_report_position(text, pos):
    with pytest.raises(ParseError) as info:
        parse(text)
    assert info.value.position == pos
