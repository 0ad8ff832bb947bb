"""A loop that drops a list's blank end and lost the test of that end (repair/idioms.popped_end):
`while trimmed: trimmed.pop()` gets back `and not trimmed[-1]`, `pop(0)`, `popleft()` and `del
xs[0]` the first end; nothing where the loop tests that end already, drops no end, or pops another
list; and the engine repairs PEP 257's docstring trim end to end."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_repair_additions import assert_engine_repairs, assert_produces, changed_line

# enum-extend's docstring trim (heldout50), PEP 257's: blank lines off both ends
TRIM = """\
def trim(lines):
    trimmed = [line.strip() for line in lines]
    while {last}:
        trimmed.pop()
    while {first}:
        trimmed.pop(0)
    return trimmed
"""
FIXED = {"last": "trimmed and not trimmed[-1]", "first": "trimmed and not trimmed[0]"}


@pytest.mark.parametrize(
    ("buggy", "fixed"),
    [
        (TRIM.format(**{**FIXED, "last": "trimmed"}), TRIM.format(**FIXED)),
        (TRIM.format(**{**FIXED, "first": "trimmed"}), TRIM.format(**FIXED)),
        (
            "def f(q, n):\n    while q and n:\n        q.popleft()\n    return q\n",
            "def f(q, n):\n    while q and not q[0] and n:\n        q.popleft()\n    return q\n",
        ),
        (
            "def f(self):\n    while self.rows:\n        del self.rows[-1]\n",
            "def f(self):\n    while self.rows and not self.rows[-1]:\n        del self.rows[-1]\n",
        ),
        (  # another list's end tested is not this one's
            "def f(xs, all_xs):\n    while xs and all_xs[-1]:\n        xs.pop()\n",
            "def f(xs, all_xs):\n    while xs and not xs[-1] and all_xs[-1]:\n        xs.pop()\n",
        ),
    ],
    ids=["pop-last", "pop-first", "popleft-in-an-and", "del-attribute", "another-list-tested"],
)
def test_the_end_a_loop_drops_is_tested(buggy: str, fixed: str) -> None:
    assert_produces("add-idiom", buggy, fixed)


@pytest.mark.parametrize(
    ("source", "line"),
    [
        (TRIM.format(**FIXED), "    while trimmed and not trimmed[-1]:"),  # tested already
        ("def f(xs):\n    while xs:\n        xs.pop(2)\n", "    while xs:"),  # no end
        ("def f(xs, ys):\n    while xs:\n        ys.pop()\n", "    while xs:"),  # another list
        ("def f(xs):\n    while xs:\n        xs.append(1)\n", "    while xs:"),  # drops nothing
        ("def f(xs):\n    while xs or 1:\n        xs.pop()\n", "    while xs or 1:"),  # in an `or`
        ("def f(xs):\n    if xs:\n        xs.pop()\n", "    if xs:"),  # no loop
        ("def f(stack):\n    while stack:\n        node = stack.pop()\n", "    while stack:"),  # a worklist
        ("def f(q):\n    while q:\n        print(q.popleft())\n", "    while q:"),  # what it pops is used
        ("def f(xs):\n    while xs:\n        g = lambda: xs.pop()\n", "    while xs:"),  # a lambda's
        ("def f(xs):\n    while xs and not xs[ -1 ]:\n        xs.pop()\n", "    while xs and not xs[ -1 ]:"),
    ],
    ids=[
        "has-it",
        "middle",
        "other-list",
        "no-drop",
        "or",
        "if",
        "worklist",
        "used",
        "lambda",
        "has-it-spaced",
    ],
)
def test_nothing_is_made_where_no_end_is_dropped_untested(source: str, line: str) -> None:
    assert changed_line(source, line, lambda m: m.op == "add-idiom") == set()


def test_the_engine_repairs_the_trim(make_sandbox, tmp_path: Path) -> None:
    tests = (
        "from trim import trim\n\n\n"
        "def test_blank_ends_go():\n    assert trim(['', 'a', '', 'b', '  ']) == ['a', '', 'b']\n\n\n"
        "def test_nothing_blank():\n    assert trim(['a']) == ['a']\n\n\n"
        "def test_all_blank():\n    assert trim(['', '']) == []\n"
    )
    buggy = TRIM.format(**{**FIXED, "last": "trimmed"})
    assert_engine_repairs(make_sandbox, tmp_path, "trim", buggy, tests, "trimmed and not trimmed[-1]")
