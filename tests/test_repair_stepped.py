"""A missing clause that is a sibling's test with the constant its run leaves out (stepped.py):
`fn == 7` in a chain testing `fn == 1` ... `fn == 6`, `fn == 8` ...; `count == 45` beside
`count == 46`; `charset == "C"` after `"A"` and `"B"`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from repofix.repair.facts import conditions
from repofix.repair.generate import mutations
from repofix.repair.source import SourceFile
from repofix.repair.stepped import GAP, MAX_STEPPED, STEP, stepped
from tests.test_repair_additions import assert_engine_repairs


def steps_of(body: str) -> dict[str, float]:
    source = f"def f(fn, c, n, x):\n{body}"
    return dict(stepped(SourceFile("m.py", source), conditions(ast.parse(source))))


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # a run of three or more that leaves one out: the gap, ahead of the ends
        (
            "    if fn == 1: pass\n    elif fn == 2: pass\n    elif fn == 4: pass\n",
            {"fn == 3": GAP, "fn == 0": STEP, "fn == 5": STEP},
        ),
        # one constant: one step either way; `!=` is a run of its own
        (
            "    if n == 46 and x != 2: pass\n",
            {"n == 45": STEP, "n == 47": STEP, "x != 1": STEP, "x != 3": STEP},
        ),
        # negative numbers as written
        ("    if n == -1: pass\n", {"n == -2": STEP, "n == 0": STEP}),
        # one character in its own quotes, staying among the letters (no `'@'` before `'A'`)
        ("    if c == 'A' or c == \"B\": pass\n", {'c == "C"': STEP}),
        ("    if c != '1': pass\n", {"c != '0'": STEP, "c != '2'": STEP}),
    ],
)
def test_the_steps_a_run_of_constants_leaves_out(body: str, expected: dict[str, float]) -> None:
    assert steps_of(body) == expected


@pytest.mark.parametrize(
    "body",
    [
        "    if n < 3: pass\n",  # an order, not one value of a run
        "    if n == 1.5: pass\n",  # not a whole number
        "    if c == 'ab' or c == 'x\\n': pass\n",  # not one character as written
        "    if n == True: pass\n",  # a bool is no number of a run
        "    if n == 1 == x: pass\n",  # a chain of comparisons
        "    if c == '\\n': pass\n",  # an escape: no character as written
    ],
)
def test_what_is_no_run_of_constants_gives_no_step(body: str) -> None:
    assert steps_of(body) == {}


def test_a_run_that_leaves_out_many_gives_its_ends_only() -> None:
    assert steps_of("    if n == 0: pass\n    if n == 10: pass\n    if n == 20: pass\n") == {
        "n == -1": STEP,
        "n == 21": STEP,
    }


def test_the_longest_runs_come_first_and_there_are_at_most_max_stepped() -> None:
    ones = "".join(f"    if v{i} == 5: pass\n" for i in range(MAX_STEPPED))
    found = steps_of(ones + "    if c == 'a': pass\n    elif c == 'b': pass\n")
    assert len(found) == MAX_STEPPED
    assert list(found)[0] == "c == 'c'"  # the run of two, before the runs of one


CHAIN = """\
def kind(fn, wire):
    if fn == 1 and wire == 0:
        return "id"
    elif fn == 2 and wire == 0:
        return "size"
    elif fn == 3 and wire == 0:
        return "colour"
    elif wire == 0:
        return "weight"
    elif fn == 5 and wire == 0:
        return "seed"
    return None
"""


def test_the_gap_is_tried_as_a_new_clause_before_the_tests_as_they_are() -> None:
    line = CHAIN.splitlines().index("    elif wire == 0:") + 1
    added = {
        m.description: m.prior
        for m in mutations(SourceFile("m.py", CHAIN), [line])
        if m.op == "add-condition"
    }
    assert added["condition 'wire == 0' -> 'fn == 4 and wire == 0'"] == GAP
    assert added["condition 'wire == 0' -> 'fn == 3 and wire == 0'"] < GAP  # the function's own, as it is


def test_a_function_that_tests_no_value_for_equality_gets_no_new_constant() -> None:
    source = (
        "def f(fn, wire):\n    if fn and wire < 0:\n        return 1\n    if wire > 5:\n        return 2\n"
    )
    added = {m.description for m in mutations(SourceFile("m.py", source), [2]) if m.op == "add-condition"}
    assert "condition 'fn and wire < 0' -> 'wire > 5 and (fn and wire < 0)'" in added  # its own tests
    assert not [d for d in added if "==" in d or "!=" in d or "> 6" in d or "< 1" in d]


def test_the_engine_repairs_the_missing_step_of_a_chain(make_sandbox, tmp_path: Path) -> None:
    tests = (
        "from kind import kind\n\n\n"
        "def test_each_field():\n"
        '    assert [kind(f, 0) for f in range(1, 6)] == ["id", "size", "colour", "weight", "seed"]\n\n\n'
        "def test_an_unknown_field():\n    assert kind(9, 0) is None\n    assert kind(1, 2) is None\n"
    )
    assert_engine_repairs(make_sandbox, tmp_path, "kind", CHAIN, tests, "    elif fn == 4 and wire == 0:\n")
