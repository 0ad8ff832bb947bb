"""The completed guard (repair/guards.py) on its own minimal cases: a `None` check that lost the
comparison it guarded gets it back, built from what the function has at hand before the check;
nothing is compared with itself or with what is bound only later, and the engine finds the fix
end to end."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from repofix.repair import Budget, repair
from repofix.repair.guards import at_hand
from tests.test_repair_additions import assert_produces, changed_line

RECORD = """\
class Record:
    def __init__(self, size):
        self.size = size

    def validate(self, data):
        if self.size is not None{clause}:
            return False
        return True

    def validate_stream(self, stream):
        digest, size = stream.read_all()
        if self.size is not None{clause2}:
            return False
        return digest
"""

HOOKS = """\
def unpacker(list_hook=None, pairs_hook=None):
    if list_hook is not None and not callable(list_hook):
        raise TypeError("list_hook")
    if pairs_hook is not None{clause}:
        raise TypeError("pairs_hook")
"""

BOX = """\
class Box:
    def low(self, n):
        if self.lo is not None and n > self.lo:
            raise ValueError(n)

    def high(self, n):
        if self.hi is not None{clause}:
            raise ValueError(n)
"""

CASES = [
    # (buggy, fixed): installer's lost size checks, one of a parameter's length, one of a local
    (
        RECORD.format(clause="", clause2=" and size != self.size"),
        RECORD.format(clause=" and len(data) != self.size", clause2=" and size != self.size"),
    ),
    (
        RECORD.format(clause=" and len(data) != self.size", clause2=""),
        RECORD.format(clause=" and len(data) != self.size", clause2=" and size != self.size"),
    ),
    (  # pypng: a parameter checked against a constant subscript of another
        "def check(size, width, height):\n    if height is not None:\n        raise ValueError(size[1])\n",
        "def check(size, width, height):\n"
        "    if height is not None and height != size[1]:\n        raise ValueError(size[1])\n",
    ),
    (  # simpleeval: a name looked for in the container the guard checks
        "def allowed(self, name):\n    if self.allowed is not None:\n        raise KeyError(name)\n",
        "def allowed(self, name):\n"
        "    if self.allowed is not None and name not in self.allowed:\n        raise KeyError(name)\n",
    ),
    (  # msgpack: as the module guards another value
        HOOKS.format(clause=""),
        HOOKS.format(clause=" and not callable(pairs_hook)"),
    ),
    (  # an attribute's idiom: its other reads (`n`, `self`) kept
        BOX.format(clause=""),
        BOX.format(clause=" and n > self.hi"),
    ),
    (  # an idiom of two clauses keeps its parentheses
        "def f(a, b):\n    if a is not None and (a > 1 or a < -1):\n        return 1\n"
        "    if b is not None:\n        return 2\n",
        "def f(a, b):\n    if a is not None and (a > 1 or a < -1):\n        return 1\n"
        "    if b is not None and (b > 1 or b < -1):\n        return 2\n",
    ),
    (  # the `is None` guard of an `or`
        "def pick(x, default):\n    if x is None or x < 0:\n        return default\n    return x\n",
        "def pick(x, default):\n    if x is None or x == default or x < 0:\n        return default\n    return x\n",
    ),
]


@pytest.mark.parametrize(
    ("buggy", "fixed"),
    CASES,
    ids=["length", "local", "subscript", "in", "idiom", "attribute-idiom", "parenthesized-idiom", "or"],
)
def test_a_lost_comparison_is_among_the_candidates(buggy: str, fixed: str) -> None:
    assert_produces("add-clause", buggy, fixed)


@pytest.mark.parametrize(
    ("source", "line", "never"),
    [
        (  # the guarded value with itself, with its own length or parts
            "def f(x, y):\n    if x is not None:\n        return x[0]\n",
            "    if x is not None:",
            ["x != x", "len(x)", "x[0]"],
        ),
        (  # a local bound only after the check
            "def f(x):\n    if x is not None:\n        later = 1\n        return later\n",
            "    if x is not None:",
            ["later"],
        ),
        (  # `a or x is not None and v != x` would need parentheses; `x is None and ...` is no guard
            "def f(a, x, v):\n    if a or x is not None:\n        return 1\n    if x is None and a:\n        return 2\n",
            "    if a or x is not None:",
            ["!=", "=="],
        ),
        (  # the module's guarded clause reads a name this function does not have
            "def f(a, limit):\n    if a is not None and len(a) > limit:\n        return 1\n\n\n"
            "def g(b):\n    if b is not None:\n        return 2\n",
            "    if b is not None:",
            ["limit"],
        ),
        (  # an idiom holding an f-string: its positions cannot be spliced by before Python 3.12
            "def f(a, b):\n    if a is not None and f'{a}' != 'x':\n        return 1\n"
            "    if b is not None:\n        return 2\n",
            "    if b is not None:",
            ["'x'"],
        ),
    ],
    ids=["itself", "later", "other-join", "idiom-out-of-scope", "f-string"],
)
def test_what_cannot_be_the_lost_comparison_is_never_tried(source: str, line: str, never: list[str]) -> None:
    made = changed_line(source, line, lambda m: m.description.startswith("guard "))
    assert not any(part in text for text in made for part in never), made


def test_the_comparands_are_the_nearest_binding_first_then_parameters_lengths_subscripts() -> None:
    module = ast.parse(
        "def f(self, data, count):\n    n = 0\n    head = data[0]\n    for i in range(count):\n"
        "        n += 1\n    if self.size is not None:\n        tail = 1\n    return n\n"
    )
    func = module.body[0]
    assert isinstance(func, ast.FunctionDef)  # `n += 1` binds n last; a count or a bound has no length
    assert at_hand(func, module).before(6) == [
        "n", "i", "head", "data", "count", "len(i)", "len(head)", "len(data)", "data[0]"
    ]  # fmt: skip


TESTS = """\
from record import Record


class Stream:
    def __init__(self, data):
        self.data = data

    def read_all(self):
        return "d", len(self.data)


def test_a_short_stream_is_refused():
    assert Record(3).validate_stream(Stream(b"ab")) is False


def test_a_stream_of_the_size_passes():
    assert Record(2).validate_stream(Stream(b"ab")) == "d"


def test_an_unsized_record_takes_any_stream():
    assert Record(None).validate_stream(Stream(b"abc")) == "d"
"""


def test_the_engine_repairs_the_lost_comparison(make_sandbox, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "record.py").write_text(RECORD.format(clause=" and len(data) != self.size", clause2=""))
    (root / "test_record.py").write_text(TESTS)
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=240, test_timeout=2))
    assert result.status == "plausible", result.message
    assert "if self.size is not None and size != self.size:" in result.files["record.py"], result.patch_diff
