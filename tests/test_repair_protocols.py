"""A special method that returns a value of the wrong kind (repair/protocols.py): the call its
protocol demands put back around the returned value."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from repofix.repair.generate import mutations
from repofix.repair.protocols import PRIOR, SLICED
from repofix.repair.source import SourceFile
from tests.test_repair_additions import assert_engine_repairs


def protocol_wraps(source: str) -> dict[str, float]:
    src = SourceFile("m.py", source)
    made = {}
    for m in mutations(src, [3]):
        if m.op == "add-wrapper" and m.prior == PRIOR:
            ast.parse(src.apply(m.edits))  # it compiles where it is put
            made[m.description] = m.prior
    return made


def method(name: str, returned: str) -> str:
    return f"class Stack:\n    def {name}(self):\n        return {returned}\n"


@pytest.mark.parametrize(
    ("name", "returned", "made"),
    [
        ("__iter__", "self.stack", "wrap self.stack in iter()"),  # python-espresso's Stack (heldout34)
        ("__iter__", "self._entries.values()", "wrap self._entries.values() in iter()"),
        ("__len__", "self.items", "wrap self.items in len()"),
        ("__str__", "self.value", "wrap self.value in str()"),
        ("__repr__", "self.key", "wrap self.key in repr()"),
        ("__int__", "self.number", "wrap self.number in int()"),
        ("__index__", "self.number", "wrap self.number in int()"),
        ("__float__", "self.number", "wrap self.number in float()"),
        ("__bool__", "self.items", "wrap self.items in bool()"),
        ("__hash__", "(self.x, self.y)", "wrap (self.x, self.y) in hash()"),
        ("__reversed__", "self.stack", "wrap self.stack in reversed()"),
        ("__bytes__", "self.data", "wrap self.data in bytes()"),
    ],
)
def test_a_special_method_s_value_gets_the_call_its_protocol_demands(
    name: str, returned: str, made: str
) -> None:
    assert protocol_wraps(method(name, returned)) == {made: PRIOR}


@pytest.mark.parametrize(
    "source",
    [
        method("__iter__", "self"),  # an iterator is its own
        method("__iter__", "iter(self.stack)"),  # the call is there
        method("__len__", "self.inner.__len__()"),  # another object's answer to the same protocol
        method("__str__", "self"),  # `str(self)` in `__str__` recurses forever
        method("__str__", "'stack'"),  # a literal of the kind already
        method("__str__", "f'{self.x}'"),
        method("items", "self.stack"),  # no special method
        "def __len__():\n    x = 1\n    return x\n",  # no method: no instance to answer for
    ],
)
def test_no_protocol_call_where_the_value_needs_none(source: str) -> None:
    assert protocol_wraps(source) == {}


def test_the_engine_gives_iter_back_to_a_stack(make_sandbox, tmp_path: Path) -> None:
    code = (
        "class Stack:\n    def __init__(self):\n        self.stack = []\n\n"
        "    def push(self, item):\n        self.stack.append(item)\n\n"
        "    def __iter__(self):\n        return self.stack\n"
    )
    tests = (
        "from stack import Stack\n\n\ndef test_iterates_in_order():\n    s = Stack()\n    s.push(1)\n"
        "    s.push(2)\n    assert list(s) == [1, 2]\n\n\ndef test_push():\n    s = Stack()\n    s.push(3)\n"
        "    assert s.stack == [3]\n"
    )
    assert_engine_repairs(make_sandbox, tmp_path, "stack", code, tests, "return iter(self.stack)")


def declared_wraps(returns: str, returned: str) -> dict[str, float]:
    """The wrappers declared_return makes of `return {returned}` in a function `-> {returns}`."""
    source = f"def pixel(self, i) -> {returns}:\n    x = 1\n    return {returned}\n"
    src = SourceFile("m.py", source)
    made = {}
    for m in mutations(src, [3]):
        if m.op == "add-wrapper" and m.description.startswith("wrap") and m.prior in (PRIOR, SLICED):
            ast.parse(src.apply(m.edits))
            made[m.description] = m.prior
    return made


@pytest.mark.parametrize(
    ("returns", "returned", "made"),
    [
        # csp-format's pixel (heldout37): four bytes of a bytearray, declared a tuple of four ints
        ("tuple[int, int, int, int]", "self.rgba[i:i + 4]", {"wrap self.rgba[i:i + 4] in tuple()": SLICED}),
        ("list[str]", "(p.name for p in self.parts)", {"wrap (p.name for p in self.parts) in list()": PRIOR}),
        ("typing.List[int]", "map(int, self.row)", {"wrap map(int, self.row) in list()": PRIOR}),
        ("frozenset", "self.table.keys()", {"wrap self.table.keys() in frozenset()": PRIOR}),
        ("bytes", "self.buf[:i]", {"wrap self.buf[:i] in bytes()": SLICED}),
    ],
)
def test_a_value_not_of_the_declared_container_gets_its_constructor(
    returns: str, returned: str, made: dict[str, float]
) -> None:
    assert declared_wraps(returns, returned) == made


@pytest.mark.parametrize(
    ("returns", "returned"),
    [
        ("tuple[int, int]", "tuple(self.rgba[i:i + 2])"),  # the constructor is there
        ("tuple[int, int]", "self.pair"),  # a name may hold a tuple: its kind is unknown here
        ("int", "self.rgba[i:i + 4]"),  # no container is declared
        ("'Pixel'", "self.rgba[i:i + 4]"),  # nor by a string
        ("list[int]", "self.row[i]"),  # an item is no slice
        ("list[int]", "self.table.get(i)"),  # a method that is no view
    ],
)
def test_no_constructor_where_the_declared_kind_may_be_returned(returns: str, returned: str) -> None:
    assert declared_wraps(returns, returned) == {}


def scalar_wraps(returns: str, returned: str) -> list[str]:
    """The conversions to a declared scalar made of `return {returned}` in a function `-> {returns}`."""
    source = f"def convert(val, items) -> {returns}:\n    x = 1\n    return {returned}\n"
    src = SourceFile("m.py", source)
    return [m.description for m in mutations(src, [3]) if m.op == "declared-conversion"]


@pytest.mark.parametrize(
    ("returns", "returned", "made"),
    [
        # morphify's _decimal_convert (heldout45): `return float(val)` had lost its float()
        ("float", "val", "wrap val in float()"),
        ("int", "items[0]", "wrap items[0] in int()"),
        ("int", "round(val)", "wrap round(val) in int()"),
        ("str", "self.name", "wrap self.name in str()"),
        ("bool", "items", "wrap items in bool()"),
    ],
)
def test_a_value_returned_as_it_is_gets_the_declared_scalar_conversion(
    returns: str, returned: str, made: str
) -> None:
    assert scalar_wraps(returns, returned) == [made]


@pytest.mark.parametrize(
    ("returns", "returned"),
    [
        ("float", "float(val)"),  # converted already
        ("float", "val / 2"),  # arithmetic: its kind is the code's
        ("str", "'none'"),  # a literal
        ("str", "', '.join(items)"),  # a call that gives text mostly does
        ("bool", "isinstance(val, int)"),  # a call that gives a truth value mostly does
        ("bool", "val > 2"),  # a comparison
        ("Decimal", "val"),  # no builtin scalar declared
        ("int", "len(items)"),  # a call that gives an int for sure
        ("int", "items.count(val)"),
    ],
)
def test_no_scalar_conversion_where_the_kind_is_the_code_s(returns: str, returned: str) -> None:
    assert scalar_wraps(returns, returned) == []
