"""Which module functions and classes take exactly one argument (facts.takes_one): the missing
wrapper operator offers them as calls around a value (`normalize(name)`), named by their argument."""

from __future__ import annotations

import ast

import pytest

from repofix.repair.facts import argument_name, module_facts, takes_one
from repofix.repair.generate import mutations
from repofix.repair.source import SourceFile


@pytest.mark.parametrize(
    ("definition", "argument"),
    [
        ("def f(text): pass", "text"),
        ("def f(text, /): pass", "text"),  # positional-only
        ("def f(text, /, strict=False): pass", "text"),
        ("def f(text, *, strict=False): pass", "text"),  # keyword-only with a default
        ("async def f(text): pass", "text"),
        ("class C:\n    def __init__(self, value, /): pass", "value"),
        ("class C:\n    def __init__(self, value, *, base=10): pass", "value"),
        ("def f(text, *, strict): pass", None),  # f(x) raises TypeError: strict is required
        ("def f(text, other): pass", None),
        ("def f(text, other, /): pass", None),
        ("def f(): pass", None),
        ("def f(self): pass", None),
        ("class C:\n    def __init__(self, value, *, base): pass", None),
        ("class C:\n    pass", None),
        ("class Bad(Exception):\n    def __init__(self, value): pass", None),
    ],
)
def test_what_takes_one_argument(definition: str, argument: str | None) -> None:
    node = ast.parse(definition).body[0]
    assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    assert takes_one(node, ["Bad"]) == (argument is not None)
    if argument is not None:
        assert argument_name(node) == argument


NAMES = """\
def normalize(name, /):
    return name.strip().lower()


def same(a, b):
    return a == b
"""
FIXED = NAMES.replace("return a == b", "return normalize(a) == normalize(b)")


def test_a_positional_only_function_is_a_wrapper_of_its_module() -> None:
    assert module_facts(ast.parse(NAMES)).single == ["normalize"]
    src = SourceFile("names.py", NAMES.replace("return a == b", "return normalize(a) == b"))
    line = NAMES.splitlines().index("    return a == b") + 1
    want = ast.dump(ast.parse(FIXED))
    made = [m for m in mutations(src, [line]) if ast.dump(ast.parse(src.apply(m.edits))) == want]
    assert made, "the missing normalize(...) around b is not offered"
