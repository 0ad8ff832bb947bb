"""A value indexed before it was made text or a list (repair/missing_calls.indexed): `x[i]` gets back
its `str(x)`, `list(x)` or `sorted(x)`; a module, a class, a function, a slice and a literal never
get one, and the engine finds the fix end to end."""

from __future__ import annotations

from pathlib import Path

import pytest

from repofix.repair import Budget, repair
from repofix.repair.generate import mutations
from repofix.repair.source import SourceFile
from tests.test_repair_additions import assert_produces
from tests.test_repair_engine import project

# custom-numbers' planted bug (heldout30): a number's first digit read from the system it counts in
DIGITS = """\
class Number:
    def __init__(self, system, digits):
        self.system = system
        self.digits = digits

    def zero(self):
        return Number(self.system, {value}[0])
"""


@pytest.mark.parametrize(
    ("buggy", "fixed"),
    [
        (DIGITS.format(value="self.system"), DIGITS.format(value="str(self.system)")),
        (
            "def first_key(table):\n    keys = table.keys()\n    return keys[0]\n",
            "def first_key(table):\n    keys = table.keys()\n    return list(keys)[0]\n",
        ),
        (
            "def smallest(items, k):\n    return items[k]\n",
            "def smallest(items, k):\n    return sorted(items)[k]\n",
        ),
        (  # an attribute chain on a parameter
            "def last_digit(n):\n    return n.value[-1]\n",
            "def last_digit(n):\n    return str(n.value)[-1]\n",
        ),
    ],
    ids=["self-attribute-str", "local-list", "parameter-sorted", "chain-str"],
)
def test_an_indexed_value_gets_its_wrapper_back(buggy: str, fixed: str) -> None:
    assert_produces("add-wrapper", buggy, fixed)


@pytest.mark.parametrize(
    ("source", "never"),
    [
        (
            "import os\n\n\ndef f(k):\n    return os.environ[k]\n",
            "str(os.environ)[",
        ),  # an attribute of a module
        ("class C:\n    def f(self, k):\n        return self[k]\n", "str(self)"),  # the instance itself
        ("def f(x, i, j):\n    x[i][j] += 1\n    return x\n", "str(x)[i][j] +="),  # written into
        ("def f(x, i, j):\n    del x[i][j]\n    return x\n", "del str(x)"),  # deleted from
        ("def f(x):\n    return x[1:, 0]\n", "str(x)[1:, 0]"),  # a slice among the indexes
        ("TABLE = {1: 2}\n\n\ndef f(k):\n    return TABLE[k]\n", "str(TABLE)"),  # a global
        ("class C:\n    pass\n\n\ndef f(k):\n    return C[k]\n", "str(C)"),  # a class
        ("def f(xs):\n    return xs[1:]\n", "str(xs)[1:]"),  # a slice: the slice's own fix
        ("def f(k):\n    return 'abc'[k]\n", "str('abc')"),  # a literal
        ("def f(k):\n    return g()[k]\n\n\ndef g():\n    return [1]\n", "str(g())"),  # a call's result
    ],
    ids=[
        "module",
        "self",
        "written",
        "deleted",
        "tuple-slice",
        "global",
        "class",
        "slice",
        "literal",
        "call",
    ],
)
def test_what_is_no_local_value_is_never_wrapped(source: str, never: str) -> None:
    src = SourceFile("m.py", source)
    made = [src.apply(m.edits) for m in mutations(src) if m.op == "add-wrapper"]
    assert made  # other wrappers are tried on the line: the check below is not of an empty list
    assert [text for text in made if never in text] == []


def test_the_engine_repairs_the_indexed_number(make_sandbox, tmp_path: Path) -> None:
    digits = "def first_digit(n):\n    return int(n[0])\n\n\ndef digit_count(n):\n    return len(str(n))\n"
    tests = (
        "from digits import digit_count, first_digit\n\n\n"
        "def test_first_digit():\n    assert first_digit(907) == 9\n    assert first_digit(5) == 5\n\n\n"
        "def test_digit_count():\n    assert digit_count(907) == 3\n"
    )
    root = project(tmp_path, {"digits.py": digits, "test_digits.py": tests})
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=240, test_timeout=2))
    assert result.status == "plausible", result.message
    assert "return int(str(n)[0])" in result.files["digits.py"], result.patch_diff
