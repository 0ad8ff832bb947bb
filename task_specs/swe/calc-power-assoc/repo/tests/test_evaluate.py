import math

import pytest

from exprcalc import EvalError, calc
from exprcalc.__main__ import main


def test_arithmetic():
    assert calc("1 + 2 * 3 - 4 / 2") == 5
    assert calc("7 % 4") == 3
    assert calc("2 ** 10") == 1024


def test_variables_and_functions():
    assert calc("sqrt(x) + max(1, 2, y)", x=16, y=5) == 9
    assert calc("2 * pi") == pytest.approx(2 * math.pi)


@pytest.mark.parametrize(
    "text", ["1 / 0", "nope + 1", "foo(1)", "sqrt(-1)"], ids=["div-zero", "unknown-var", "unknown-func", "domain"]
)
def test_eval_errors(text):
    with pytest.raises(EvalError):
        calc(text)


def test_cli(capsys):
    assert main(["2 * x + 1", "-D", "x=4"]) == 0
    assert capsys.readouterr().out.strip() == "9"
    assert main(["1 +"]) == 1
