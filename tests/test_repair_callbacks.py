"""A callable parameter nothing calls (repair/callbacks.py): its call comes back around a value the
function or a nested one uses, where its name or annotation says it is called; not for a parameter
that is read, nor for one named as data, and the engine finds the fix end to end."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from repofix.repair.callbacks import idle_callables
from repofix.repair.generate import mutations
from repofix.repair.source import SourceFile
from tests.test_repair_additions import assert_engine_repairs

CONDITIONAL = (
    "def if_(condition_func, validation_func):\n"
    "    def wrapper(obj, prop):\n"
    "        if not {test}:\n            return (True, None)\n"
    "        return validation_func(obj, prop)\n\n"
    "    return wrapper\n"
)


def idle_calls(
    source: str, names: tuple[str, ...] = ("condition_func", "step", "key", "fn", "func", "callback")
) -> list[str]:
    """The programs made by calling one of `names` (the sources' callable parameters) on a value."""
    src = SourceFile("m.py", source)
    return [
        src.apply(m.edits)
        for m in mutations(src)
        if m.op == "add-wrapper" and m.description.endswith(tuple(f" in {n}()" for n in names))
    ]


@pytest.mark.parametrize(
    ("source", "fixed"),
    [
        # styler-validation's if_ (heldout49): the nested function's condition
        (CONDITIONAL.format(test="obj"), CONDITIONAL.format(test="condition_func(obj)")),
        # an annotation says so, whatever the name
        (
            "from typing import Callable\n\n\ndef apply(items, step: Callable[[int], int]):\n"
            "    return [x for x in items]\n",
            "from typing import Callable\n\n\ndef apply(items, step: Callable[[int], int]):\n"
            "    return [step(x) for x in items]\n",
        ),
        # a returned value, a keyword-only callback
        (
            "def load(text, *, key=None):\n    value = text.strip()\n    return value\n",
            "def load(text, *, key=None):\n    value = text.strip()\n    return key(value)\n",
        ),
    ],
    ids=["nested-condition", "annotated", "returned"],
)
def test_an_idle_callable_is_called_again(source: str, fixed: str) -> None:
    assert fixed in idle_calls(source)


@pytest.mark.parametrize(
    "source",
    [
        # read: the function passes it on
        "def if_(condition_func, obj):\n    return run(obj, condition_func)\n",
        # named as data, not to be called
        "def scale(items, factor):\n    return [x for x in items]\n",
        # called already
        "def apply(items, fn):\n    return [fn(x) for x in items]\n",
        # rebound by the function itself
        "def apply(items, fn):\n    fn = len\n    return items\n",
        # a nested function's or a comprehension's own name: not the parameter, and not idle for sure
        "def outer(key):\n    def inner(x):\n        key = 1\n        return x\n    return inner\n",
        "def outer(key, ys):\n    return [x for key in ys for x in key]\n",
        # flags and data named like callables
        "def f(x, validate=True, api_key=None, check: bool = False):\n    return x\n",
    ],
    ids=["read", "data-name", "called", "rebound", "shadowed-local", "shadowed-comprehension", "flags"],
)
def test_no_idle_callable_where_the_parameter_is_used_or_is_data(source: str) -> None:
    assert idle_callables(ast.parse(source)) == []


@pytest.mark.parametrize(
    ("source", "hidden", "seen"),
    [
        # a nested function's parameter of that name: another value there
        ("def outer(key):\n    def inner(x, key=0):\n        return x\n    return inner\n", 3, 4),
        # a default in the header: the parameter is not bound there yet
        ("def f(a,\n      fn=sorted(a)):\n    return a\n", 2, 3),
    ],
    ids=["shadowed-by-a-parameter", "header"],
)
def test_an_idle_callable_is_called_only_where_its_name_is_it(source: str, hidden: int, seen: int) -> None:
    (idle,) = idle_callables(ast.parse(source))
    assert not idle.visible(hidden) and idle.visible(seen)


def test_the_innermost_idle_callables_come_first() -> None:
    source = (
        "def a(fn):\n    def b(func):\n        def c(callback):\n            return v\n"
        "        return c\n    return b\n"
    )
    made = idle_calls(source)
    assert "return callback(v)" in "".join(made) and "return func(v)" in "".join(made)
    assert "return fn(v)" not in "".join(made)  # two a value at most: the innermost


def test_the_engine_calls_the_idle_condition(make_sandbox, tmp_path: Path) -> None:
    tests = (
        "from validators import if_\n\n\n"
        "def positive(obj, prop):\n    return (obj[prop] > 0, None if obj[prop] > 0 else 'not positive')\n\n\n"
        "check = if_(lambda obj: obj.get('strict'), positive)\n\n\n"
        "def test_strict_and_positive():\n    assert check({'strict': True, 'n': 1}, 'n') == (True, None)\n\n\n"
        "def test_strict_and_negative():\n    assert check({'strict': True, 'n': -1}, 'n') == (False, 'not positive')\n\n\n"
        "def test_lenient_skips_the_check():\n    assert check({'strict': False, 'n': -1}, 'n') == (True, None)\n\n\n"
        "def test_no_flag_skips_the_check():\n    assert check({'n': -5}, 'n') == (True, None)\n"
    )
    assert_engine_repairs(
        make_sandbox,
        tmp_path,
        "validators",
        CONDITIONAL.format(test="obj"),
        tests,
        "if not condition_func(obj):",
    )
