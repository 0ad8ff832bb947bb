"""The missing `type(...)` (repair/instances.py) on its own minimal cases: where code shows a class
is meant (a class attribute read from an instance, the instance called, compared by identity with
a class, bound to or passed as a name that says class), `type(value)` is made with a prior above
the plain wrappers'; nowhere else; and the engine repairs one end to end."""

from __future__ import annotations

from pathlib import Path

import pytest

from repofix.repair import Budget, repair
from repofix.repair.facts import names_a_class
from repofix.repair.generate import mutations
from repofix.repair.source import SourceFile
from tests.test_repair_engine import project

CODE = """\
def _shadowed(klass, attr):
    return klass.__dict__.get(attr)


class Token:
    def name(self):
        return {name}

    def fresh(self):
        return {fresh}

    def same(self, other):
        return {same}


def kind_of(value):
    {bind}
    return typ


class Request:
    pass


def check(entry):
    if {compare}:
        return {passed}, "x")
    return cls.__name__
"""

FIXED = {
    "name": "type(self).__name__",
    "fresh": "type(self)()",
    "same": "type(self) is type(other)",
    "bind": "typ = type(value)",
    "compare": "type(entry) is Request",
    "passed": "_shadowed(type(entry)",
}


def typed(field: str, planted: str) -> list[tuple[float, str]]:
    """(prior, the line as it leaves it) of every `type(...)` made on `field`'s line, with `field`
    planted as `planted` and every other field fixed."""
    fields = {**FIXED, field: planted}
    source = CODE.format(**fields)
    src = SourceFile("m.py", source)
    fixed = CODE.format(**FIXED).splitlines()
    line = next(n for n, text in enumerate(fixed, 1) if FIXED[field] in text)
    return [
        (m.prior, src.apply(m.edits).splitlines()[line - 1].strip())
        for m in mutations(src, [line])
        if m.description.endswith("in type()")
    ]


@pytest.mark.parametrize(
    ("field", "planted", "prior"),
    [
        ("name", "self.__name__", 0.45),  # an instance has no __name__: almost surely its class's
        ("fresh", "self()", 0.45),  # an instance called to make another
        ("same", "self is type(other)", 0.35),  # identity with a class
        ("bind", "typ = value", 0.35),  # a name that says it holds a class
        ("compare", "entry is Request", 0.35),
        ("passed", "_shadowed(entry", 0.35),  # passed where the callee's parameter is `klass`
    ],
)
def test_a_missing_type_is_made_where_a_class_is_meant(field: str, planted: str, prior: float) -> None:
    made = typed(field, planted)
    fixed = CODE.format(**FIXED).splitlines()
    want = next(text.strip() for text in fixed if FIXED[field] in text)
    assert (prior, want) in made, made
    assert prior > 0.3  # above any builtin wrapper's prior (wrappers.add_wrapper: 0.25, 0.3)


@pytest.mark.parametrize(
    "source",
    [
        "def f(cls):\n    return cls.__name__\n",  # a name that says class: it is one
        "def f(x, Thing):\n    return Thing.__name__\n",  # a CapWords name: a class
        "def f(x):\n    return x.__doc__\n",  # not an attribute only classes have
        "def f(a, b):\n    return a is b\n",  # identity of two instances
        "def f(value):\n    name = value\n    return name\n",  # a name that does not say class
        "def f(guessed):\n    content_type = guessed\n    return content_type\n",  # `*_type` is text
        "def f(result):\n    return result is NotImplemented\n",  # a protocol's answer, no class
        "Undefined = object()\n\ndef f(x):\n    return x is Undefined\n",  # a sentinel, no class
        "def f(func):\n    return func.__name__\n",  # a function has a name too
        "class A:\n    def f(self, other):\n        self.__name__ = other\n",  # written, not read
        "def g(item):\n    return item\n\ndef f(x):\n    return g(x)\n",  # a parameter not for a class
    ],
)
def test_no_type_where_nothing_says_a_class_is_meant(source: str) -> None:
    """Only the plain wrappers' `type(...)` (wrap_operand's, at 0.25), none ranked as meant."""
    src = SourceFile("m.py", source)
    lines = range(1, len(source.splitlines()) + 1)
    made = [m for m in mutations(src, lines) if m.description.endswith("in type()")]
    assert [m.description for m in made if m.prior > 0.25] == []


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("klass", True),
        ("typ", True),
        ("type_", True),
        ("base_cls", True),
        ("kind", False),
        ("entry", False),
        ("content_type", False),
        ("type_name", False),
    ],
)
def test_names_that_say_class(name: str, says: bool) -> None:
    assert names_a_class(name) is says


MODULE = """\
class Node:
    def __init__(self, children=()):
        self.children = list(children)

    def copy(self):
        new = self()
        new.children = [c.copy() for c in self.children]
        return new

    def describe(self):
        return f"{type(self).__name__} of {len(self.children)}"


class Leaf(Node):
    pass
"""

TESTS = """\
from nodes import Leaf, Node

def test_a_copy_is_of_the_same_class():
    tree = Node([Leaf(), Node([Leaf()])])
    copied = tree.copy()
    assert type(copied.children[0]) is Leaf
    assert copied.describe() == "Node of 2"

def test_describe():
    assert Leaf().describe() == "Leaf of 0"
"""


def test_the_engine_repairs_an_instance_called_for_its_class(make_sandbox, tmp_path: Path) -> None:
    root = project(tmp_path, {"nodes.py": MODULE, "test_nodes.py": TESTS})
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=240, test_timeout=2))
    assert result.status == "plausible", result.message
    assert "new = type(self)()" in result.files["nodes.py"], result.patch_diff
