"""A guard of a bound that may be None (clauses.add_clause): `x is not None and n < x` ranks before
the truthiness guards `x and n < x` and `not x or n < x` where the module says `x` may be None (and
`x is None or n < x` before a `raise`), and the engine claims the `is not None` guard end to end
though both pass the tests."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from repofix.repair.clauses import maybe_none, ordered_names
from repofix.repair.generate import mutations
from repofix.repair.search import ranked
from repofix.repair.source import SourceFile
from tests.test_repair_additions import assert_engine_repairs


def _clauses(source: str, line: int) -> dict[str, bool]:
    """The conditions add_clause makes at `line`, each with whether it is a misfit."""
    made = mutations(SourceFile("m.py", source), [line])
    return {m.edits[0].text: m.misfit for m in made if m.op == "add-clause" and len(m.edits) == 1}


@pytest.mark.parametrize(
    ("header", "misfit"),
    [
        ("def too_short(value, minimum=None):\n", True),  # a parameter that defaults to None
        ("def too_short(value, *, minimum=None):\n", True),  # keyword-only
        ("def too_short(value, minimum=0):\n", False),  # 0 means no bound: `minimum and` is the guard
        ("def too_short(value, minimum):\n", False),
    ],
)
def test_a_truthiness_guard_of_a_bound_that_may_be_none_is_a_misfit(header: str, misfit: bool) -> None:
    made = _clauses(f"{header}    if len(value) < minimum:\n        return True\n    return False\n", 2)
    assert made["minimum is not None and len(value) < minimum"] is False
    assert made["minimum is None or len(value) < minimum"] is False
    assert made["minimum and len(value) < minimum"] is misfit
    assert made["not minimum or len(value) < minimum"] is misfit
    assert made["value and len(value) < minimum"] is False  # `value` is not the bound


def test_a_name_the_module_tests_against_none_may_be_none() -> None:
    # cion's validators: the factory's parameter, the check in the function nested in it
    source = (
        "def length(minimum):\n    if minimum is not None:\n        pass\n\n"
        "    def check(value):\n        if len(value) < minimum:\n            raise ValueError(value)\n\n    return check\n"
    )
    assert _clauses(source, 6)["minimum and len(value) < minimum"] is True
    assert maybe_none(ast.parse(source)) == {"minimum"}


@pytest.mark.parametrize(
    ("body", "misfit"),
    [
        ("raise ValueError(value)", True),  # an optional bound that raises when absent is no option
        ("return True", False),  # `minimum is None or ...`: no bound, every value passes
    ],
)
def test_a_none_bound_that_raises_when_absent_is_a_misfit(body: str, misfit: bool) -> None:
    source = f"def check(value, minimum=None):\n    if value < minimum:\n        {body}\n    return False\n"
    made = _clauses(source, 2)
    assert made["minimum is None or value < minimum"] is misfit
    assert made["minimum is not None and value < minimum"] is False


@pytest.mark.parametrize(
    ("condition", "names"),
    [
        ("len(value) < minimum", {"minimum"}),
        ("lo <= x < hi", {"lo", "x", "hi"}),
        ("x == limit", set()),  # an equality bounds nothing
        ("len(items) > 0", set()),  # a call's argument is no side
    ],
)
def test_the_names_a_condition_orders(condition: str, names: set[str]) -> None:
    assert ordered_names(ast.parse(condition, mode="eval").body) == names


def test_the_misfit_ranks_after_the_longer_guard_among_plausible_patches() -> None:
    source = "def too_short(value, minimum=None):\n    if len(value) < minimum:\n        return True\n    return False\n"
    both = {"minimum and len(value) < minimum", "minimum is not None and len(value) < minimum"}
    guards = [m for m in mutations(SourceFile("m.py", source), [2]) if m.edits[0].text in both]
    assert len(guards) == 2
    assert (
        ranked(guards, {("m.py", 2): 1.0})[0].edits[0].text == "minimum is not None and len(value) < minimum"
    )


BOUNDS = """\
def too_short(value, minimum=None):
    if len(value) < minimum:
        return True
    return False
"""

BOUND_TESTS = """\
from bounds import too_short


def test_shorter_than_the_minimum():
    assert too_short('ab', 3)


def test_no_minimum():
    assert not too_short('ab')


def test_long_enough():
    assert not too_short('abcd', 3)


def test_none_is_no_minimum():
    assert not too_short('ab', None)
"""


def test_the_engine_claims_the_none_guard(make_sandbox, tmp_path: Path) -> None:
    result = assert_engine_repairs(
        make_sandbox, tmp_path, "bounds", BOUNDS, BOUND_TESTS, "minimum is not None and len(value) < minimum"
    )
    assert "minimum and len(value)" not in result.files["bounds.py"]
