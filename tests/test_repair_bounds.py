"""The bounds a condition lacks (repair/bounds.py) on their own minimal cases: a range's other end
(zero, a sequence's length), a subscript's guard, what is never made, and the engine repairing a
missing lower end end to end."""

from __future__ import annotations

import ast

import pytest

from repofix.repair.bounds import MAX_GUARDS, MAX_SEQUENCES, Ranges, bound_clauses
from repofix.repair.generate import mutations
from repofix.repair.source import SourceFile


def _conditions(source: str) -> list[str]:
    """What the clause candidates make of the clause (or condition) they edit, in order."""
    found = mutations(SourceFile("m.py", source))
    return [
        m.description.split("' -> '", 1)[1][:-1]
        for m in found
        if m.op == "add-clause" and m.description.startswith("condition '")
    ]


def _bounds_only(source: str) -> list[str]:
    """What bounds.py alone makes of the first function's first condition (no other operator's clauses)."""
    src = SourceFile("m.py", source)
    func = next(n for n in src.tree.body if isinstance(n, ast.FunctionDef))
    test = next(n for n in ast.walk(func) if isinstance(n, (ast.If, ast.While))).test
    return [m.description.split("' -> '", 1)[1][:-1] for m in bound_clauses(src, test, Ranges(func))]


@pytest.mark.parametrize(
    ("source", "wanted"),
    [
        # the lower end, zero, of a value checked against its upper end only
        (
            "def at(resolved, length):\n    if resolved >= length:\n        raise IndexError\n",
            "resolved < 0 or resolved >= length",
        ),
        (
            "def capped(count, maxcount):\n    return count < maxcount\n\n"
            "def go(count, maxcount):\n    if count < maxcount:\n        return 1\n",
            "maxcount < 0 or count < maxcount",
        ),
        (
            "def f(self, address):\n    if address > self.ALL_ONES:\n        raise ValueError\n",
            "address < 0 or address > self.ALL_ONES",
        ),
        # the lower end of a count checked in range above
        (
            "def f(items, n):\n    i = 0\n    while i < n:\n        i += 1\n",
            "i >= 0 and i < n",
        ),
        # the upper end, the length of what the value indexes
        (
            "def get(current, index):\n    if index < 0:\n        raise IndexError\n    return current[index]\n",
            "index < 0 or index >= len(current)",
        ),
        (
            "def get(current, index):\n    if index >= 0:\n        return current[index]\n",
            "index >= 0 and index < len(current)",
        ),
        # a subscript's guard: counted down, counted up, and in an `or` its negation
        (
            "def find(keys, key):\n    i = len(keys) - 1\n    while keys[i] > key:\n        i -= 1\n    return i\n",
            "i >= 0 and keys[i] > key",
        ),
        (
            "def quoted(text, i):\n    if text[i + 1] == '\"':\n        return True\n",
            "i + 1 < len(text) and text[i + 1] == '\"'",
        ),
        (
            "def last(tokens, i):\n    if tokens[i].kind == 'x' or tokens[i + 1].kind == 'y':\n        return 1\n",
            "i + 1 >= len(tokens) or tokens[i + 1].kind == 'y'",  # the clause it guards
        ),
        (
            "def prev(units, i):\n    if units[i - 1] == 7:\n        return 1\n",
            "i >= 1 and units[i - 1] == 7",
        ),
        # a bound whose text is inside another clause's is still missing: `n < 0` is not `min < 0`
        (
            "def f(n, length, min):\n    if n >= length or min < 0:\n        raise IndexError\n",
            "n < 0 or n >= length",
        ),
    ],
    ids=[
        "zero-below-a-greater-or-equal",
        "zero-below-the-greater-side-of-less-than",
        "zero-below-an-attribute-bound",
        "zero-below-a-count-in-range",
        "length-above-below-zero",
        "length-above-from-zero",
        "guard-counted-down",
        "guard-counted-up",
        "guard-in-an-or",
        "guard-one-back",
        "text-inside-another-clause",
    ],
)
def test_a_missing_bound_is_made(source: str, wanted: str) -> None:
    assert wanted in _conditions(source)


@pytest.mark.parametrize(
    ("source", "unwanted"),
    [
        # text is ordered, it has no zero end
        ("def f(char):\n    if char > ' ':\n        return 1\n", "char < 0 or char > ' '"),
        # a check against zero is its own lower end
        ("def f(n):\n    if n > 0:\n        return 1\n", "n < 0 or n > 0"),
        ("def f(n):\n    if n >= -1:\n        return 1\n", "n < 0 or n >= -1"),
        # a key is no index: a dict's subscript gets no guard
        ("def f(d, key):\n    if d[key] == 1:\n        return 1\n", "key < len(d) and d[key] == 1"),
        # a bound the condition already has is not added again
        (
            "def f(c, i):\n    if i < 0 or i >= len(c):\n        return c[i]\n",
            "i < 0 or i >= len(c)",  # the first clause with the second's text
        ),
        (
            "def f(c, i):\n    if i<0 or i>=len(c):\n        return c[i]\n",
            "i<0 or i >= len(c)",  # the same bound written without spaces
        ),
        # an `or` guard never goes inside an `and`: `a and g or b` is `(a and g) or b`
        (
            "def f(flag, c, i):\n    i += 1\n    if flag and c[i] == 2:\n        return 1\n",
            "i >= len(c) or c[i] == 2",  # the clause it would guard
        ),
    ],
    ids=[
        "text",
        "zero-itself",
        "below-zero-itself",
        "dict-key",
        "already-there",
        "already-there-unspaced",
        "or-inside-and",
    ],
)
def test_a_bound_that_cannot_be_right_is_not_made(source: str, unwanted: str) -> None:
    assert unwanted not in _conditions(source)


def test_guards_per_condition_are_capped() -> None:
    source = "def f(a, b, c, i):\n    i += 1\n    if a[i] == b[i] == c[i] == a[i + 1] == b[i + 1]:\n        return 1\n"
    made = _bounds_only(source)
    assert len(made) == MAX_GUARDS
    assert made[0] == "i < len(a) and a[i] == b[i] == c[i] == a[i + 1] == b[i + 1]"  # the and-form first


INDEXES = """\
def resolve(items, index):
    \"\"\"The position `index` stands for in `items`, counted from the end when negative.\"\"\"
    length = len(items)
    if index < 0:
        resolved = length + index
        if resolved >= length:
            raise IndexError(index)
        return resolved
    if index >= length:
        raise IndexError(index)
    return index
"""

INDEXES_TESTS = """\
import pytest

from indexes import resolve


def test_from_the_start():
    assert resolve("abc", 0) == 0
    assert resolve("abc", 2) == 2


def test_from_the_end():
    assert resolve("abc", -1) == 2
    assert resolve("abc", -3) == 0


def test_past_the_end():
    with pytest.raises(IndexError):
        resolve("abc", 3)


def test_before_the_start():
    with pytest.raises(IndexError):
        resolve("abc", -4)
"""


def test_the_engine_repairs_a_missing_lower_end(repaired) -> None:
    result = repaired({"indexes.py": INDEXES, "test_indexes.py": INDEXES_TESTS})
    assert result.status == "plausible", result.message
    assert "if resolved < 0 or resolved >= length:" in result.files["indexes.py"], result.patch_diff


def test_a_hostile_function_indexing_with_one_name_everywhere_gets_few_bounds() -> None:
    subscripts = "".join(f"    total += seq{n}[index]\n" for n in range(500))
    source = (
        f"def f(index, total):\n    if index < 0:\n        raise IndexError\n{subscripts}    return total\n"
    )
    ends = _bounds_only(source)
    assert len(ends) == MAX_SEQUENCES
    assert ends[0] == "index < 0 or index >= len(seq0)"  # what it indexes first
