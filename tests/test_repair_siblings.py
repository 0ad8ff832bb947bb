"""The mirrored clause (repair/siblings.py) on its own minimal cases: a condition that asks the
instance one question its class answers gets the same question's sibling, as the condition joins
its clauses; nothing else of the class is asked, and the engine finds the fix end to end."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from repofix.repair import Budget, repair
from repofix.repair.generate import mutations
from repofix.repair.siblings import siblings_of
from repofix.repair.source import SourceFile
from tests.test_repair_engine import project

SPAN = """\
class Span:
    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi

    def overlap(self, other):
        return self.lo < other.hi and other.lo < self.hi

    def adjacent(self, other):
        return self.hi == other.lo or other.hi == self.lo

    def union(self, other):
        return Span(min(self.lo, other.lo), max(self.hi, other.hi))

    @property
    def empty(self):
        return self.lo == self.hi

    @empty.setter
    def is_set(self, value):
        return value == 0

    def has_room(self, other, gap=0):
        return 1

    def within(self, a, b):
        return a <= self.lo and self.hi <= b

    def merge(self, other):
        if not self.overlap(other):
            raise ValueError("disjoint")
        return self.union(other)
"""


def mirrored(source: str, line_text: str) -> set[str]:
    """The line as each added clause leaves it, where the clause asks `self` a new question."""
    src = SourceFile("m.py", source)
    line = source.splitlines().index(line_text) + 1
    asked = set(re.findall(r"self\.\w+\(", line_text))
    changed = {
        src.apply(m.edits).splitlines()[line - 1] for m in mutations(src, [line]) if m.op == "add-clause"
    }
    return {text.strip() for text in changed if set(re.findall(r"self\.\w+\(", text)) - asked}


def test_a_clause_asking_the_instance_gets_each_sibling_question_joined_both_ways() -> None:
    found = mirrored(SPAN, "        if not self.overlap(other):")
    assert "if not self.overlap(other) and not self.adjacent(other):" in found
    assert "if not self.overlap(other) or not self.adjacent(other):" in found
    assert "if not self.overlap(other) and not self.has_room(other):" in found  # named as a question
    # not asked: itself, a method that returns a Span, a property or setter, other arguments, the caller
    assert not any(
        f"self.{name}(" in clause
        for clause in found
        for name in ("union", "empty", "is_set", "within", "merge")
    )
    assert not any(clause.count("self.overlap(") > 1 for clause in found)


@pytest.mark.parametrize(
    ("condition", "expected", "never"),
    [
        (  # inside an `or`, the clause joins with `or`: `and` would bind to its neighbour alone
            "if other is None or self.overlap(other):",
            "if other is None or self.overlap(other) or self.adjacent(other):",
            "if other is None or self.overlap(other) and self.adjacent(other):",
        ),
        (
            "while self.overlap(other) and other.lo:",
            "while self.overlap(other) and self.adjacent(other) and other.lo:",
            "while self.overlap(other) or self.adjacent(other) and other.lo:",
        ),
    ],
)
def test_a_clause_of_a_boolean_operation_is_joined_as_its_neighbours(
    condition: str, expected: str, never: str
) -> None:
    source = SPAN.replace("        if not self.overlap(other):", f"        {condition}")
    found = mirrored(source, f"        {condition}")
    assert expected in found and never not in found


@pytest.mark.parametrize(
    ("decorator", "receiver"), [("", "self"), ("@classmethod\n    ", "self"), ("@staticmethod\n    ", "")]
)
def test_a_static_method_has_no_receiver_to_ask(decorator: str, receiver: str) -> None:
    source = SPAN.replace("    def merge(self, other):", f"    {decorator}def merge(self, other):")
    tree = ast.parse(source)
    merge = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "merge")
    family = siblings_of(merge, tree)
    assert family.receiver == receiver
    assert (("adjacent" in family.predicates) is bool(receiver)) and "union" not in family.predicates


def test_a_function_outside_a_class_asks_nothing() -> None:
    source = "def merge(self, other):\n    if not self.overlap(other):\n        raise ValueError\n"
    assert mirrored(source, "    if not self.overlap(other):") == set()


TESTS = """\
import pytest
from span import Span


def test_adjacent_spans_merge():
    assert vars(Span(1, 3).merge(Span(3, 5))) == {"lo": 1, "hi": 5}


def test_overlapping_spans_merge():
    assert vars(Span(1, 4).merge(Span(3, 6))) == {"lo": 1, "hi": 6}


def test_disjoint_spans_do_not():
    with pytest.raises(ValueError):
        Span(1, 2).merge(Span(4, 5))


def test_touching_is_no_overlap():
    assert not Span(1, 3).overlap(Span(3, 5))
"""


def test_the_engine_repairs_the_missing_sibling_clause(make_sandbox, tmp_path: Path) -> None:
    root = project(tmp_path, {"span.py": SPAN, "test_span.py": TESTS})
    # the tests cannot tell the clause from `not (self.hi == other.lo)`, which the scouts find
    # (limits.sort_passed): claimed anyway here, as this is about making the clause
    budget = Budget(max_seconds=240, test_timeout=2, withhold_ambiguous=False)
    result = repair(make_sandbox("none", source=root), budget=budget)
    assert result.status == "plausible", result.message
    assert "if not self.overlap(other) and not self.adjacent(other):" in result.files["span.py"], (
        result.patch_diff
    )
