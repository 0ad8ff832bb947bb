"""A lazy value where a value is meant (repair/lazy.py): a generator, `map()`, `filter()` or `zip()`
tested, compared or used in arithmetic gets the calls that consume it; returned or assigned, the
same at a lower prior; nothing where a lazy value is meant."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from repofix.repair import Budget, repair
from repofix.repair.generate import mutations
from repofix.repair.lazy import BOUND, CONSUMED, SEQUENCES, valued_names
from repofix.repair.source import SourceFile
from tests.test_repair_engine import project


def consumed(source: str) -> dict[str, float]:
    """Line 2's consume-lazy candidates: the new line's text -> prior."""
    src = SourceFile("m.py", source)
    return {
        src.apply(m.edits).splitlines()[1].strip(): m.prior
        for m in mutations(src, [2])
        if m.op == "consume-lazy"
    }


@pytest.mark.parametrize(
    ("source", "fixed", "prior"),
    [
        (
            "def f(days, months):\n    if min(days) > (D[m] for m in months):\n        return 1\n",
            "if min(days) > max(D[m] for m in months):",
            CONSUMED,
        ),
        (
            "def f(data):\n    if not (x in CHARSET for x in data[1:]):\n        return 1\n",
            "if not all(x in CHARSET for x in data[1:]):",
            CONSUMED,
        ),
        (
            "def f(types, generics):\n    if not map(issubclass, types, generics):\n        return 1\n",
            "if not any(map(issubclass, types, generics)):",
            CONSUMED,
        ),
        ("def f(a, b):\n    return a == (x for x in b)\n", "return a == sorted(x for x in b)", CONSUMED),
        ("def f(a):\n    return 1 + (x for x in a)\n", "return 1 + sum(x for x in a)", CONSUMED),
        ("def f(a, b):\n    return b and filter(None, a)\n", "return b and any(filter(None, a))", CONSUMED),
        ("def f(value):\n    return (g(x) for x in value)\n", "return tuple(g(x) for x in value)", BOUND),
        (
            "def f(pairs):\n    total = (x * y for x, y in pairs)\n",
            "total = sum(x * y for x, y in pairs)",
            BOUND,
        ),
    ],
)
def test_a_lazy_value_gets_the_call_that_consumes_it(source: str, fixed: str, prior: float) -> None:
    assert consumed(source).get(fixed) == prior


@pytest.mark.parametrize(
    "source",
    [
        "def f(x, y):\n    return x in (a for a in y)\n",  # a generator searched: meant
        "def f(y):\n    return g(a for a in y)\n",  # passed to a call: its callee consumes it
        "def f(y):\n    if [a for a in y]:\n        return 1\n",  # a list, not lazy
        "def f(y):\n    if map(y):\n        return 1\n",  # not the builtin's shape
        "def f(y):\n    if map(g, y, key=1):\n        return 1\n",
    ],
)
def test_no_call_where_nothing_lazy_is_misused(source: str) -> None:
    assert consumed(source) == {}


def test_a_comparison_is_consumed_only_by_what_orders() -> None:
    made = consumed("def f(days, months):\n    if min(days) > (D[m] for m in months):\n        return 1\n")
    assert {line.split(" > ")[1].split("(")[0] for line in made} == {"max", "min", "sum"}


@pytest.mark.parametrize(
    "use",
    [
        "    return k in table\n",  # looked up as a key: a generator is hashed by identity, never found
        "    return table[k]\n",
        "    return len(k)\n",  # a TypeError for a generator
        "    return k[0]\n",
        "    return k == table\n",  # never equal
        "    return table != k\n",
    ],
)
def test_a_lazy_value_bound_to_a_name_used_as_a_value_gets_a_sequence_first(use: str) -> None:
    made = consumed("def f(r, idx, table):\n    k = (r[i] for i in idx)\n" + use)
    assert made["k = tuple(r[i] for i in idx)"] == CONSUMED
    assert {line for line, prior in made.items() if prior == CONSUMED} == {
        f"k = {name}(r[i] for i in idx)" for name in SEQUENCES
    }
    # the same calls as where the name is only iterated, the others still at the bound prior
    assert set(made) == set(
        consumed("def f(r, idx):\n    k = (r[i] for i in idx)\n    return [x for x in k]\n")
    )


@pytest.mark.parametrize(
    "use",
    [
        "    return [x for x in k]\n",  # iterated: a lazy value serves
        "    return g(k)\n",
        "    return table[j]\n",  # another name is the key
    ],
)
def test_a_lazy_value_bound_to_a_name_only_iterated_or_passed_keeps_the_bound_prior(use: str) -> None:
    made = consumed("def f(r, idx, table, j):\n    k = (r[i] for i in idx)\n" + use)
    assert made and set(made.values()) == {BOUND}


@pytest.mark.parametrize(
    ("binding", "fixed", "prior"),
    [
        ("k: object = (r[i] for i in idx)", "k: object = tuple(r[i] for i in idx)", CONSUMED),
        ("j = k = (r[i] for i in idx)", "j = k = tuple(r[i] for i in idx)", BOUND),  # two names: as before
    ],
)
def test_only_a_binding_of_one_name_reads_how_that_name_is_used(
    binding: str, fixed: str, prior: float
) -> None:
    assert consumed(f"def f(r, idx, table):\n    {binding}\n    return k in table\n")[fixed] == prior


@pytest.mark.parametrize(
    ("source", "valued"),
    [
        ("def f(t, k):\n    return t[k]\n", {"t", "k"}),
        ("def f(a, b):\n    return a in b\n", {"a"}),
        ("def f(a, b):\n    return a < b\n", set()),
        ("def f(a, b):\n    return a == b\n", {"a", "b"}),
        ("def f(a):\n    return len(a)\n", {"a"}),
        ("def f(a):\n    return len(a, 1) or len(a=a)\n", set()),  # not the builtin's one-argument shape
        ("def f(a):\n    return [x for x in a]\n", set()),
    ],
)
def test_valued_names_are_what_a_lazy_value_cannot_be(source: str, valued: set[str]) -> None:
    assert valued_names(ast.parse(source)) == valued


MODULE = """\
DAYS_IN_MONTH = {1: 31, 2: 29, 4: 30}


def check(days, months):
    if min(days) > (DAYS_IN_MONTH[m] for m in months):
        raise ValueError("no month has that day")
    return True
"""

TESTS = """\
import pytest

from calendar_check import check

def test_a_day_some_month_has():
    assert check([30], [2, 4])

def test_a_day_no_month_has():
    with pytest.raises(ValueError):
        check([31], [2, 4])

def test_a_small_day():
    assert check([1], [2])
"""


def test_the_engine_repairs_a_generator_compared(make_sandbox, tmp_path: Path) -> None:
    root = project(tmp_path, {"calendar_check.py": MODULE, "test_calendar_check.py": TESTS})
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=240, test_timeout=2))
    assert result.status == "plausible", result.message
    assert "if min(days) > max(DAYS_IN_MONTH[m] for m in months):" in result.files["calendar_check.py"]
