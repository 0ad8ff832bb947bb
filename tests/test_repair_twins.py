"""The twin clause (repair/twins.py) on its own minimal cases: a clause of a condition, one name
changed for one of its kind (a local for a local, the likest first; a class of a type test for
its twin; a sentinel for `None`; an attribute of the same receiver), joined as the condition
joins its clauses; never a clause the condition has; and the engine repairs one end to end."""

from __future__ import annotations

from pathlib import Path

import pytest

from repofix.repair import Budget, repair
from repofix.repair.generate import mutations
from repofix.repair.source import SourceFile
from repofix.repair.twins import EQUATED
from tests.test_repair_engine import project


def twins(source: str, line: int) -> dict[str, float]:
    """The line as each twin clause leaves it, with its prior."""
    src = SourceFile("m.py", source)
    return {
        src.apply(m.edits).splitlines()[line - 1].strip(): m.prior
        for m in mutations(src, [line])
        if m.op == "add-clause" and " -> " in m.description
    }


@pytest.mark.parametrize(
    ("source", "line", "twin", "prior"),
    [
        # a local named like the one it replaces (a shared 3-letter end) comes before the others
        (
            "def f(text, yearidx, monthidx, other):\n    if yearidx != -1:\n        return 1\n",
            2,
            "if yearidx != -1 and monthidx != -1:",
            0.3,
        ),
        (
            "def f(text, yearidx, monthidx, other):\n    if yearidx != -1:\n        return 1\n",
            2,
            "if yearidx != -1 or other != -1:",
            0.2,
        ),
        # the class of a type test for its twin
        (
            "def f(value):\n    if isinstance(value, classmethod):\n        return 1\n",
            2,
            "if isinstance(value, classmethod) or isinstance(value, staticmethod):",
            0.3,
        ),
        # `None` for a name the module compares by identity, its own `None`
        (
            "_marker = object()\n\ndef f(fields):\n    if fields is None:\n        return 1\n\n"
            "def g(x):\n    return x is _marker\n",
            4,
            "if fields is None or fields is _marker:",
            0.3,
        ),
        # an attribute of the same receiver the function reads
        (
            "def f(self):\n    if self.convert:\n        return self.strip\n",
            2,
            "if self.convert or self.strip:",
            0.2,
        ),
        # another constant of the same class the module reads (cronsim's `CronSim.LAST_WEEKDAY`)
        (
            "class S:\n    LAST = -1\n    LAST_WEEKDAY = -2\n\n\n"
            "def f(items, s):\n    if items == {S.LAST}:\n        return 1\n    return S.LAST_WEEKDAY\n",
            7,
            "if items == {S.LAST} or items == {S.LAST_WEEKDAY}:",
            0.3,
        ),
        # a bound checked at one end gets its other end: the partner, the comparison turned round
        (
            "MIN = 1\nMAX = 9\n\n\ndef f(value):\n    if value < MIN:\n        raise ValueError(value)\n"
            "    return value\n",
            6,
            "if value < MIN or value > MAX:",
            0.4,
        ),
        ("def f(x, lo, hi):\n    if lo <= x:\n        return 1\n", 2, "if lo <= x and hi >= x:", 0.4),
        (
            "def f(n, min_size, max_size):\n    if n >= min_size:\n        return 1\n",
            2,
            "if n >= min_size and n <= max_size:",
            0.4,
        ),
        # a letter's other case: asked for either way (python-toon's exponent), unequal to both
        (
            'def f(text):\n    if "E" in text:\n        return 1\n',
            2,
            "if \"E\" in text or 'e' in text:",
            EQUATED,
        ),
        ("def f(c):\n    if c != 'x':\n        return 1\n", 2, "if c != 'x' and c != 'X':", EQUATED),
    ],
)
def test_a_twin_clause_with_one_name_changed(source: str, line: int, twin: str, prior: float) -> None:
    made = twins(source, line)
    assert made.get(twin) == pytest.approx(prior), sorted(made)


def test_a_twin_is_joined_as_the_condition_joins_its_clauses() -> None:
    source = "def f(a, aidx, bidx):\n    if a and aidx > 0:\n        return 1\n"
    made = twins(source, 2)
    assert "if a and aidx > 0 and bidx > 0:" in made
    assert "if a and aidx > 0 or bidx > 0:" not in made  # `or` would change what `and` groups


@pytest.mark.parametrize(
    ("source", "line", "absent"),
    [
        # a clause the condition has already is no twin
        ("def f(aidx, bidx):\n    if aidx > 0 and bidx > 0:\n        return 1\n", 2, "bidx > 0 and bidx > 0"),
        # a clause over two lines is left alone
        ("def f(aidx, bidx):\n    if (aidx\n            > 0):\n        return 1\n", 2, "bidx\n"),
        # never a name the clause has already: `a == b or b == b` is always true
        ("def f(a, b):\n    if a == b:\n        return 1\n", 2, "b == b"),
        ("def f(a, b):\n    if a == b:\n        return 1\n", 2, "a == a"),
        # a comprehension's target is not a name to change
        ("def f(items, limit):\n    if any(x > 0 for x in items):\n        return 1\n", 2, "for limit in"),
        # no other end without a name of a pair, nor for a partner that is not in scope
        ("LIMIT = 9\n\n\ndef f(value):\n    if value < LIMIT:\n        return 1\n", 4, "value > "),
        ("MIN = 1\n\n\ndef f(value):\n    if value < MIN:\n        return 1\n", 4, "MAX"),
        # a letter's two cases are never asked for at once, nor a mixed-case or caseless text swapped
        ('def f(text):\n    if "E" in text:\n        return 1\n', 2, "and 'e' in text"),
        ('def f(text):\n    if "Ex" in text:\n        return 1\n', 2, "'eX'"),
        ('def f(text):\n    if "." in text:\n        return 1\n', 2, "or '.' in text"),
        # `None` is never swapped where nothing in the module is compared by identity
        ("def f(fields, other):\n    if fields is None:\n        return 1\n", 2, "fields is other"),
    ],
)
def test_no_twin(source: str, line: int, absent: str) -> None:
    src = SourceFile("m.py", source)
    lines = [line, line + 1]  # the clause's every line: a twin would be made there if at all
    assert not any(absent in m.description for m in mutations(src, lines) if m.op == "add-clause")


MODULE = """\
def binds_no_instance(owner, name):
    value = owner.__dict__[name]
    if isinstance(value, classmethod):
        return True
    return False
"""

TESTS = """\
from members import binds_no_instance

class Owner:
    def plain(self):
        return 1

    @classmethod
    def made(cls):
        return 2

    @staticmethod
    def helper():
        return 3

    @property
    def size(self):
        return 4

def test_a_static_method_binds_no_instance():
    assert binds_no_instance(Owner, "helper")

def test_a_class_method_binds_no_instance():
    assert binds_no_instance(Owner, "made")

def test_others_do():
    assert not binds_no_instance(Owner, "plain")
    assert not binds_no_instance(Owner, "size")
"""


def test_the_engine_repairs_a_missing_twin_clause(make_sandbox, tmp_path: Path) -> None:
    root = project(tmp_path, {"members.py": MODULE, "test_members.py": TESTS})
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=240, test_timeout=2))
    assert result.status == "plausible", result.message
    fixed = "if isinstance(value, classmethod) or isinstance(value, staticmethod):"
    assert fixed in result.files["members.py"], result.patch_diff


DTYPES = (
    "def size(dtype):\n    if dtype == 'd':\n        return 8\n    elif dtype == 'i64':\n        return 4\n"
    "    elif dtype == 's':\n        return 0\n    return {line}\n"
)


@pytest.mark.parametrize(
    ("source", "line", "twin"),
    [
        # another literal the module tests the same value equal to (libconf's planted `dtype == 'i'`)
        (DTYPES.format(line="1"), 4, "elif dtype == 'i64' or dtype == 'd':"),
        (DTYPES.format(line="1"), 4, "elif dtype == 'i64' or dtype == 's':"),
        # unequal to two literals: both must hold
        ("def f(n):\n    if n != 32:\n        return 1\n    return n == 20\n", 2, "if n != 32 and n != 20:"),
    ],
)
def test_a_twin_clause_with_another_literal(source: str, line: int, twin: str) -> None:
    assert twins(source, line)[twin] == EQUATED


@pytest.mark.parametrize(
    ("source", "line", "absent"),
    [
        # equal to two literals at once, or unequal to one or the other: never true, always true
        (DTYPES.format(line="1"), 4, "elif dtype == 'i64' and dtype == 'd':"),
        ("def f(n):\n    if n != 32:\n        return 1\n    return n == 20\n", 2, "if n != 32 or n != 20:"),
        # a literal tested against another value is no twin of this one's
        ("def f(n, m):\n    if n == 1:\n        return 1\n    return m == 2\n", 2, "if n == 1 or n == 2:"),
    ],
)
def test_no_literal_twin_that_says_nothing(source: str, line: int, absent: str) -> None:
    assert absent not in twins(source, line)


def test_a_constant_s_class_is_not_swapped_for_a_local() -> None:
    source = (
        "class S:\n    LAST = -1\n    LAST_WEEKDAY = -2\n\n\n"
        "def f(items, s):\n    if items == {S.LAST}:\n        return 1\n    return S.LAST_WEEKDAY\n"
    )
    made = twins(source, 7)
    assert "if items == {S.LAST} or items == {S.LAST_WEEKDAY}:" in made
    assert not [t for t in made if "{s.LAST}" in t or "{items.LAST}" in t], sorted(made)


# hashedindex's `prune` (heldout53): one bound's test lost its comparison; the other bound's has it
PRUNE = """\
def prune(terms, min_value=None, max_value=None):
    garbage = []
    for term, freq in terms.items():
        if min_value is not None:
            garbage.append(term)
        if max_value is not None and freq > max_value:
            garbage.append(term)
    return garbage
"""


def conditions_made(source: str, line: int) -> set[str]:
    """The line as each new clause of a condition (add-condition) leaves it."""
    src = SourceFile("m.py", source)
    return {
        src.apply(m.edits).splitlines()[line - 1].strip()
        for m in mutations(src, [line])
        if m.op == "add-condition"
    }


@pytest.mark.parametrize(
    ("source", "line", "made"),
    [
        (PRUNE, 4, "if min_value is not None and freq < min_value:"),
        (
            PRUNE.replace("freq > max_value", "max_value <= freq"),
            4,
            "if min_value is not None and min_value >= freq:",
        ),
        (
            "def clamp(x, lo, hi):\n    if lo is not None:\n        x = lo\n    if hi is not None and x > hi:\n"
            "        x = hi\n    return x\n",
            2,
            "if lo is not None and x < lo:",
        ),
    ],
    ids=["min-max", "turned-round", "lo-hi"],
)
def test_the_other_end_of_a_bound_tested_elsewhere_is_a_clause(source: str, line: int, made: str) -> None:
    assert made in conditions_made(source, line)


@pytest.mark.parametrize(
    ("source", "line", "absent"),
    [
        (PRUNE.replace("min_value", "floor"), 4, "freq <"),  # `floor` is no partner of `max_value`
        # a builtin is no partner: `n < min` compares with the function `min`
        (
            "def cap(n, max=10):\n    if n is not None:\n        n = 0\n    if n > max:\n        n = max\n",
            2,
            "n < min",
        ),
        # both sides with a partner: `hi > lo` turned round is the same test as `lo < hi`
        ("def f(lo, hi, x):\n    if x:\n        x = 0\n    if lo < hi:\n        x = 1\n", 2, "hi > lo"),
        # a side that binds a name is not turned into one that binds its partner
        (
            "def f(t, x, start):\n    if x:\n        x = 0\n    if (end := t.find(x)) > start:\n        x = 1\n",
            2,
            "(start :=",
        ),
    ],
    ids=["no-partner", "builtin", "both-sides", "walrus"],
)
def test_no_other_end_of_a_bound(source: str, line: int, absent: str) -> None:
    assert not [c for c in conditions_made(source, line) if absent in c]


def test_the_other_end_keeps_a_side_s_parentheses() -> None:
    source = (
        "def f(n, lo, hi):\n    if lo is not None:\n        n = lo\n    if n > (hi or 10):\n        n = 1\n"
    )
    made = conditions_made(source, 2)
    assert "if lo is not None and n < (lo or 10):" in made
    assert not [c for c in made if "n < lo or 10" in c]


PRUNE_TESTS = """\
from prune import prune

TERMS = {"a": 1, "b": 5, "c": 9}

def test_below_the_minimum_is_pruned():
    assert prune(TERMS, min_value=3) == ["a"]

def test_above_the_maximum_is_pruned():
    assert prune(TERMS, max_value=6) == ["c"]

def test_both_ends():
    assert prune(TERMS, min_value=2, max_value=8) == ["a", "c"]

def test_no_bound_prunes_nothing():
    assert prune(TERMS) == []
"""


def test_the_engine_repairs_a_bound_that_lost_its_comparison(make_sandbox, tmp_path: Path) -> None:
    root = project(tmp_path, {"prune.py": PRUNE, "test_prune.py": PRUNE_TESTS})
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=240, test_timeout=2))
    assert result.status == "plausible", result.message
    assert "if min_value is not None and freq < min_value:" in result.files["prune.py"], result.patch_diff
