"""A missing statement that grows a collection of tuples (repair/tuples.py) on its own minimal
cases: which collections hold tuples, which tuples are made and in what order, and the engine
repairing such a missing statement end to end."""

from __future__ import annotations

import ast

import pytest

from repofix.repair.generate import mutations
from repofix.repair.scope import scope_of
from repofix.repair.source import SourceFile
from repofix.repair.tuples import MAX_HOLDERS, TYPED, UNTYPED, Holder, holders_of


def _holders(source: str) -> list[Holder]:
    module = ast.parse(source)
    func = next(n for n in module.body if isinstance(n, ast.FunctionDef))
    return holders_of(func, scope_of(func, module))


@pytest.mark.parametrize(
    ("source", "wanted"),
    [
        (
            "def f(stack: List[Tuple[int, str]], level: int):\n    pass\n",
            [Holder("stack", "append", 2, ("int", "str"))],
        ),
        (
            "def f(items):\n    pairs: list[tuple[int, int, str]] = []\n    return pairs\n",
            [Holder("pairs", "append", 3, ("int", "int", "str"))],
        ),
        ("def f(seen: typing.Set[Tuple[A, B]]):\n    pass\n", [Holder("seen", "add", 2, ("A", "B"))]),
        ("def f(q: Deque[tuple[int, int]]):\n    pass\n", [Holder("q", "append", 2, ("int", "int"))]),
        (
            "def f(text):\n    spans = []\n    for start, end in spans:\n        print(start)\n    return spans\n",
            [Holder("spans", "append", 2)],
        ),
        # not a collection of tuples it can grow: a tuple of any length, a dict, a sequence, one item
        ("def f(xs: list[tuple[int, ...]]):\n    pass\n", []),
        ("def f(d: dict[str, tuple[int, int]]):\n    pass\n", []),
        ("def f(xs: Sequence[tuple[int, int]]):\n    pass\n", []),
        ("def f(xs: list[tuple[int]]):\n    pass\n", []),
        ("def f(xs: list[tuple[int, int, int, int]]):\n    pass\n", []),
        # unpacked but never grown here: a parameter it only reads
        ("def f(spans):\n    for start, end in spans:\n        print(start)\n", []),
    ],
    ids=[
        "parameter-annotated",
        "local-annotated",
        "set-by-its-module",
        "deque",
        "unpacked-in-a-loop",
        "variadic-tuple",
        "dict",
        "sequence",
        "one-item",
        "four-items",
        "read-only-parameter",
    ],
)
def test_which_collections_hold_tuples(source: str, wanted: list[Holder]) -> None:
    assert _holders(source) == wanted


def _tuples(source: str, line: int, in_place_of_pass: bool = False) -> list[tuple[str, float]]:
    """The tuples grown on `line` (after the statements ending there, or where its `pass` is)."""
    found = mutations(SourceFile("m.py", source), [line])
    return [
        (m.edits[0].text.strip(), m.prior)
        for m in found
        if m.op == "add-statement"
        and "((" in m.description
        and (not in_place_of_pass or "in place of 'pass'" in m.description)
    ]


PUSH = """\
def push(stack: List[Tuple[int, str]], level: int, text: str) -> None:
    while stack and stack[-1][0] >= level:
        stack.pop()
    pass
"""

OVERLAPS = """\
def find_overlaps(programmes):
    items = sorted(programmes)
    overlaps: List[tuple[int, int]] = []
    for i, a in enumerate(items):
        for b in items[i + 1 :]:
            if a.overlaps(b):
                pass
    return overlaps
"""


def test_a_tuple_of_parameters_typed_as_the_items_ranks_first() -> None:
    made = _tuples(PUSH, 4)
    assert made[0] == ("stack.append((level, text))", TYPED)
    assert all(prior == UNTYPED for text, prior in made if text != "stack.append((level, text))")


def test_the_nearest_names_make_the_first_tuple_in_the_order_they_are_bound() -> None:
    made = [text for text, _ in _tuples(OVERLAPS, 7, in_place_of_pass=True)]
    assert made[0] == "overlaps.append((a, b))"
    assert "overlaps.append((b, a))" not in made  # bound a before b: never turned round
    assert not any("programmes" in text for text in made)  # a fifth name back is not at hand
    assert not any("(overlaps" in text or "overlaps)" in text for text in made)  # nor the collection


def test_names_bound_after_the_statement_are_not_used() -> None:
    made = [text for text, _ in _tuples(OVERLAPS, 3)]  # after `overlaps = []`: no loop name yet
    assert made == ["overlaps.append((programmes, items))"]
    assert _tuples(OVERLAPS, 2) == []  # before the collection is bound, nothing grows it


TRACKER = """\
from typing import List, Tuple


class Tracker:
    def __init__(self):
        self.stack: List[Tuple[int, str]] = []

    def open(self, level: int, title: str) -> None:
        push(self.stack, level, title)

    def path(self) -> str:
        return " > ".join(title for _, title in self.stack)


def push(stack: List[Tuple[int, str]], level: int, title: str) -> None:
    while stack and stack[-1][0] >= level:
        stack.pop()
    pass
"""

TRACKER_TESTS = """\
from tracker import Tracker


def test_nested_headings():
    t = Tracker()
    t.open(1, "Intro")
    t.open(2, "Scope")
    assert t.path() == "Intro > Scope"


def test_a_sibling_replaces_its_peer():
    t = Tracker()
    t.open(1, "Intro")
    t.open(2, "Scope")
    t.open(2, "Terms")
    assert t.path() == "Intro > Terms"


def test_empty():
    assert Tracker().path() == ""
"""


def test_the_engine_repairs_a_missing_tuple_append(repaired) -> None:
    result = repaired({"tracker.py": TRACKER, "test_tracker.py": TRACKER_TESTS})
    assert result.status == "plausible", result.message
    assert "        stack.pop()\n    stack.append((level, title))\n" in result.files["tracker.py"], (
        result.patch_diff
    )


def test_a_hostile_function_of_many_collections_of_tuples_grows_few() -> None:
    params = ", ".join(f"c{n}: list[tuple[int, int]]" for n in range(300))
    source = f"def f(a, b, {params}):\n    pass\n"
    grown = {text.split(".")[0] for text, _ in _tuples(source, 2)}
    assert grown == {f"c{n}" for n in range(MAX_HOLDERS)}
