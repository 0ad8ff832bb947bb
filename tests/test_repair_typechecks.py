"""The lost type check (repair/typechecks.py) on its own minimal cases: a condition that lost its
`isinstance` clause gets it back, built from a value the condition reads and a type the module
checks; nothing is checked that is no value of the function or against a type the module never
checks, and the engine finds the fix end to end."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from repofix.repair import Budget, repair
from repofix.repair.typechecks import checked_types
from tests.test_repair_additions import assert_produces, changed_line

# python-toon's lost guard (heldout20): a row is a table row only when it is a dict of its keys
ROWS = """\
def kind(row):
    if isinstance(row, dict):
        return "table"
    return "list"


def same_keys(values, key_set):
    for value in values:
        if {clause}len(value) != len(key_set):
            return False
    return True
"""

# tsrkit-types' (heldout29): the type of the first parameter, a type of a tuple the module checks
PARAMS = """\
def define(params):
    if isinstance(params, (type, str)):
        return params, 0
    if len(params) == 2:
        if {clause}isinstance(params[1], int):
            return params[0], params[1]
        if isinstance(params[0], int) and isinstance(params[1], int):
            return None, params[1]
    raise TypeError(params)
"""

# gast's (heldout9): an attribute chain's shorter chain, checked before the chain it holds
NODES = """\
class Constant:
    def __init__(self, value):
        self.value = value


def needs_space(node):
    if isinstance(node, Constant):
        return False
    if {clause}isinstance(node.value.value, int):
        return True
    return False
"""

MAPPING = """\
def wrap(value):
    if isinstance(value, tuple):
        return list(value)
    if hasattr(value, "__getitem__"){clause}:
        return {{"v": value}}
    return value


def text(v):
    return isinstance(v, str)
"""

CASES = [
    (ROWS.format(clause=""), ROWS.format(clause="not isinstance(value, dict) or ")),
    (PARAMS.format(clause=""), PARAMS.format(clause="isinstance(params[0], type) and ")),
    (NODES.format(clause=""), NODES.format(clause="isinstance(node.value, Constant) and ")),
    (  # pyaml's (heldout8): a check after the condition, against a tuple of types
        "def weight(value):\n    if not value:\n        return 1\n    return 2\n\n\n"
        "def scale(x):\n    return isinstance(x, (int, float))\n",
        "def weight(value):\n    if not value or isinstance(value, (int, float)):\n        return 1\n"
        "    return 2\n\n\ndef scale(x):\n    return isinstance(x, (int, float))\n",
    ),
    (  # markupsafe's (heldout7): text is no mapping, though it has `__getitem__`
        MAPPING.format(clause=""),
        MAPPING.format(clause=" and not isinstance(value, str)"),
    ),
]


@pytest.mark.parametrize(
    ("buggy", "fixed"), CASES, ids=["guard-or", "tuple-part", "shorter-chain", "or", "and-not"]
)
def test_a_lost_type_check_is_among_the_candidates(buggy: str, fixed: str) -> None:
    assert_produces("add-type-check", buggy, fixed)


@pytest.mark.parametrize(
    ("source", "line", "never"),
    [
        (  # a class, a module name, `self` and a callee are no value to check; a type is never invented
            "import os\n\n\nclass Box:\n    def hit(self, other):\n"
            "        if os.sep and Box and self.size(other):\n            return isinstance(other, Box)\n",
            "        if os.sep and Box and self.size(other):",
            ["isinstance(os", "isinstance(Box,", "isinstance(self,", "isinstance(self.size", "str)"],
        ),
        (  # the check the condition already makes is not made twice
            "def f(v):\n    if isinstance(v, int):\n        return 1\n    return isinstance(v, str)\n",
            "    if isinstance(v, int):",
            ["isinstance(v, int) and isinstance(v, int)", "isinstance(v, int) or isinstance(v, int)"],
        ),
        (  # a comprehension's own `x` is no local: the parameter it shadows is not what it tests
            "def f(x, items):\n    if any(x > 0 for x in items) and len(items) > 1:\n        return 1\n"
            "    return isinstance(x, dict)\n",
            "    if any(x > 0 for x in items) and len(items) > 1:",
            ["isinstance(x"],
        ),
        (  # nor is a lambda's parameter
            "def f(items, key):\n    if sorted(items, key=lambda key: key[0]):\n        return 1\n"
            "    return isinstance(key, str)\n",
            "    if sorted(items, key=lambda key: key[0]):",
            ["isinstance(key"],
        ),
        (  # a name the condition binds itself would be read before it is bound
            "import re\n\n\ndef f(text):\n    if (m := re.match('a', text)) and m.group(0):\n        return 1\n"
            "    return isinstance(text, str)\n",
            "    if (m := re.match('a', text)) and m.group(0):",
            ["isinstance(m"],
        ),
        (  # a nested function's subscript of its own parameter is not the outer one's
            "def f(p):\n    def g(p):\n        return p[7]\n\n    if p[0] > 0:\n        return g\n"
            "    return isinstance(p, list)\n",
            "    if p[0] > 0:",
            ["p[7]"],
        ),
        (  # a type named by another function's local is no type here
            "def make(cls, v):\n    return isinstance(v, cls)\n\n\ndef f(x):\n    if x > 0:\n        return 1\n"
            "    return isinstance(x, str)\n",
            "    if x > 0:",
            [", cls)"],
        ),
    ],
    ids=[
        "no-value",
        "not-twice",
        "comprehension",
        "lambda",
        "walrus",
        "nested",
        "other-local-type",
    ],
)
def test_what_cannot_be_the_lost_check_is_never_tried(source: str, line: str, never: list[str]) -> None:
    made = changed_line(source, line, lambda m: m.op == "add-type-check")
    assert made, "other checks are made on this line: the case is no empty one"
    assert not any(part in text for text in made for part in never), made


def test_a_module_that_checks_no_type_gets_no_type_check() -> None:
    source = "def f(value, n):\n    if len(value) != n:\n        return 1\n"
    assert changed_line(source, "    if len(value) != n:", lambda m: m.op == "add-type-check") == set()
    assert changed_line(source, "    if len(value) != n:", lambda m: True)  # other operators do mutate it


def test_the_types_are_those_checked_against_the_value_first_then_the_most_checked() -> None:
    module = ast.parse(
        "def f(a, b):\n    if isinstance(a, dict) or isinstance(b, list):\n        return 1\n"
        "    if isinstance(b, list) and isinstance(a, (bytes, str)):\n        return isinstance(b, tuple)\n"
    )
    ranked, per_value = checked_types(module)
    assert ranked == ("list", "dict", "(bytes, str)", "tuple", "bytes", "str")
    assert per_value["a"] == ("dict", "(bytes, str)", "bytes", "str")


def test_a_multi_line_condition_keeps_its_lines_and_gets_parentheses() -> None:
    source = (
        "def f(value, n):\n    if isinstance(value, dict):\n        return 0\n"
        "    if (len(value) > n or\n            len(value) < 0):\n        return 1\n"
    )
    made = changed_line(source, "    if (len(value) > n or", lambda m: m.op == "add-type-check")
    assert "if (isinstance(value, dict) and (len(value) > n or" in made


TESTS = """\
from rows import same_keys


def test_rows_of_the_same_keys():
    assert same_keys([{"a": 1}, {"a": 2}], {"a"}) is True


def test_a_row_of_other_keys_is_refused():
    assert same_keys([{"a": 1}, {"b": 2}], {"a"}) is False


def test_a_list_row_of_the_same_length_is_refused():
    assert same_keys([{"a": 1}, ["a"]], {"a"}) is False
"""


def test_the_engine_repairs_the_lost_type_check(make_sandbox, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    # the refusal of other keys needs the set comparison, the list row the lost check
    code = ROWS.format(clause="").replace(
        "len(value) != len(key_set):", "len(value) != len(key_set) or set(value) != key_set:"
    )
    (root / "rows.py").write_text(code)
    (root / "test_rows.py").write_text(TESTS)
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=240, test_timeout=2))
    assert result.status == "plausible", result.message
    assert "if not isinstance(value, dict) or len(value)" in result.files["rows.py"], result.patch_diff
