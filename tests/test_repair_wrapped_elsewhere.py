"""A value that lost the call the module makes on it elsewhere (repair/missing_calls.wrapped_elsewhere):
`self._word in SCALES` where the module reads `Decimal(self._word)` gets that call back first; a
local's call counts only in its own function, and a stored name, a callee, a literal and a value
already inside that call never get one. The engine finds the fix end to end."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from repofix.repair import Budget, repair
from repofix.repair.generate import mutations
from repofix.repair.missing_calls import ECHO_PRIOR, wrapped_elsewhere
from repofix.repair.scope import scope_of
from repofix.repair.source import SourceFile
from tests.test_repair_engine import project

# text2digits' planted bug (heldout31): a token's word compared with numbers before it became one
TOKEN = """\
from decimal import Decimal


class Token:
    SCALE_VALUES = [Decimal(100), Decimal(1000)]

    def __init__(self, word):
        self._word = word

    def text(self):
        return self._word.upper()

    def has_large_scale(self):
        return {value} in self.SCALE_VALUES

    def value(self):
        return Decimal(self._word)

    def scale(self):
        return Decimal(self._word) / 10
"""

LOCAL = """\
def longer(a, b):
    if len(a) > 3:
        return {value} > len(b)
    return False
"""

ANGLE = """\
import math


def _sin(x):
    return math.sin(math.radians(x))


def correction(mp, m):
    return 0.1 * _sin(mp + m) + 0.2 * {value}


def other(mp, m):
    return _sin(mp - m)
"""


def echoed(source: str) -> list[str]:
    """The programs the operator makes, each function's nodes with its scope (as the walker gives them)."""
    src = SourceFile("m.py", source)
    made = []
    for func in ast.walk(src.tree):
        if isinstance(func, ast.FunctionDef):
            scope = scope_of(func, src.tree)
            for parent in ast.walk(func):
                for node in ast.iter_child_nodes(parent):
                    made += [src.apply(m.edits) for m in wrapped_elsewhere(src, node, parent, scope)]
    return made


@pytest.mark.parametrize(
    ("buggy", "fixed"),
    [
        (TOKEN.format(value="self._word"), TOKEN.format(value="Decimal(self._word)")),
        (LOCAL.format(value="a"), LOCAL.format(value="len(a)")),
        (ANGLE.format(value="(mp - m)").replace("_sin(mp + m)", "_sin(mp - m)"), None),
    ],
    ids=["attribute-module-wide", "local-same-function", "operation-same-function"],
)
def test_a_value_gets_back_the_call_the_module_makes_on_it(buggy: str, fixed: str | None) -> None:
    fixed = fixed or buggy.replace("0.2 * (mp - m)", "0.2 * _sin((mp - m))")
    made = {ast.dump(ast.parse(text)) for text in echoed(buggy)}
    assert ast.dump(ast.parse(fixed)) in made


@pytest.mark.parametrize(
    ("source", "never"),
    [
        # `_sin(mp - m)` is another function's, whose `mp` and `m` are other values; `_sin(mp + m)` is
        # this one's
        (ANGLE.format(value="(mp - m) + (mp + m)"), "_sin((mp - m))"),
        (
            "def f(x):\n    y = g(x)\n    x = y\n    return x\n\n\ndef g(v):\n    return v\n",
            "g(x) = y",
        ),  # stored
        # a raise's class is raise_value's, and `text = clean(text)` has had its call
        (
            "def f(key):\n    if key < 0:\n        raise KeyError(key)\n    return g(key) + key\n\n\ndef g(v):\n    return v\n",
            "+ KeyError(key)",
        ),
        (
            "def f(text):\n    text = clean(text)\n    return text + g(text)\n\n\ndef clean(v):\n    return v\n\n\ndef g(v):\n    return v\n",
            "return clean(text)",
        ),
        (
            "def f(x):\n    y = g(x)\n    return x() + len(x)\n\n\ndef g(v):\n    return v\n",
            "g(x)()",
        ),  # callee
        ("def f(x):\n    return g(g(x)) + x\n\n\ndef g(v):\n    return v\n", "g(g(g(x)))"),  # inside it
        (
            "def f(n):\n    return g(1) + 1 + g(n) + n\n\n\ndef g(v):\n    return v\n",
            "g(1) + g(1)",
        ),  # a literal
    ],
    ids=[
        "another-functions-local",
        "stored",
        "raised-class",
        "updated",
        "callee",
        "already-inside",
        "literal",
    ],
)
def test_what_the_module_does_not_call_so_is_never_wrapped(source: str, never: str) -> None:
    made = echoed(source)
    assert made  # the same source's other value gets its echo: the check below is not of an empty list
    assert [text for text in made if never in text] == []


def test_the_generator_makes_it_at_the_echo_prior() -> None:
    """Not only a plain wrapper's guess (0.25 around a returned value; a compared operand gets none)."""
    src = SourceFile("m.py", TOKEN.format(value="self._word"))
    want = ast.dump(ast.parse(TOKEN.format(value="Decimal(self._word)")))
    priors = [m.prior for m in mutations(src) if ast.dump(ast.parse(src.apply(m.edits))) == want]
    assert max(priors) == ECHO_PRIOR


def test_the_engine_repairs_the_token_compared_before_it_became_a_number(
    make_sandbox, tmp_path: Path
) -> None:
    tests = (
        "from decimal import Decimal\n\nfrom token_words import Token\n\n\n"
        "def test_large_scale():\n    assert Token('100').has_large_scale()\n"
        "    assert not Token('7').has_large_scale()\n\n\n"
        "def test_value():\n    assert Token('7').value() == Decimal(7)\n\n\n"
        "def test_text():\n    assert Token('seven').text() == 'SEVEN'\n"
    )
    root = project(
        tmp_path, {"token_words.py": TOKEN.format(value="self._word"), "test_token_words.py": tests}
    )
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=240, test_timeout=2))
    assert result.status == "plausible", result.message
    assert "return Decimal(self._word) in self.SCALE_VALUES" in result.files["token_words.py"], (
        result.patch_diff
    )
