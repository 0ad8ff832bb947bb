"""Each mutation operator on small programs: the intended fix is among the candidates, produced
by editing exact source segments so the rest of the file keeps its formatting."""

from __future__ import annotations

import ast

import pytest

from repofix.repair.generate import mutations
from repofix.repair.localize import Suspect
from repofix.repair.pairs import pairs
from repofix.repair.search import CandidatePool
from repofix.repair.source import SourceFile


def candidates(source: str) -> dict[str, set[str]]:
    """Each program the operators produce -> the operators that produce it."""
    src = SourceFile("m.py", source)
    found: dict[str, set[str]] = {}
    for m in mutations(src):
        found.setdefault(src.apply(m.edits), set()).add(m.op)
    return found


CASES = [
    # (operator, buggy, fixed)
    ("compare", "def f(x):\n    return x < 3\n", "def f(x):\n    return x <= 3\n"),
    ("compare", "def f(x, y):\n    return x is not y\n", "def f(x, y):\n    return x is y\n"),
    (
        "compare",
        "def f(x, xs):\n    return x not  in xs  # spaced\n",
        "def f(x, xs):\n    return x in xs  # spaced\n",
    ),
    ("compare", "def f(a, b):\n    return (a)<(b)\n", "def f(a, b):\n    return (a)>=(b)\n"),
    ("boolean", "def f(a, b):\n    return a and b\n", "def f(a, b):\n    return a or b\n"),
    ("arith", "def f(a, b):\n    return a - b\n", "def f(a, b):\n    return a + b\n"),
    ("arith", "def f(a, b):\n    return a / b\n", "def f(a, b):\n    return a // b\n"),
    ("arith", "def f(a):\n    a -= 2\n    return a\n", "def f(a):\n    a += 2\n    return a\n"),
    ("constant", "def f():\n    return 10\n", "def f():\n    return 11\n"),
    ("constant", "def f():\n    return 10\n", "def f():\n    return 9\n"),
    ("constant", "def f():\n    return 7\n", "def f():\n    return -1\n"),
    ("constant", "def f():\n    return True\n", "def f():\n    return False\n"),
    ("constant", "def f():\n    return 'abc'\n", "def f():\n    return ''\n"),
    ("constant", "def f(s):\n    return s == '('\n", "def f(s):\n    return s == '['\n"),
    ("off-by-one", "def f(xs, n):\n    return xs[:n]\n", "def f(xs, n):\n    return xs[:n + 1]\n"),
    ("off-by-one", "def f(xs, i):\n    return xs[i]\n", "def f(xs, i):\n    return xs[i - 1]\n"),
    ("off-by-one", "def f(n):\n    return list(range(n))\n", "def f(n):\n    return list(range(n + 1))\n"),
    ("off-by-one", "def f(n):\n    return list(range(n))\n", "def f(n):\n    return list(range(1, n))\n"),
    (
        "variable",
        "def f(a, b):\n    c = a * 2\n    return a\n",
        "def f(a, b):\n    c = a * 2\n    return c\n",
    ),
    ("call", "def f(xs):\n    return min(xs)\n", "def f(xs):\n    return max(xs)\n"),
    ("call", "def f(xs):\n    return any(xs)\n", "def f(xs):\n    return all(xs)\n"),
    ("call", "def f(s):\n    return s.lower()\n", "def f(s):\n    return s.upper()\n"),
    (
        "call",
        "import math\ndef f(x):\n    return math.floor(x)\n",
        "import math\ndef f(x):\n    return math.ceil(x)\n",
    ),
    ("call", "def f(xs):\n    return sorted(xs)\n", "def f(xs):\n    return sorted(xs, reverse=True)\n"),
    (
        "negate",
        "def f(x):\n    if x:\n        return 1\n    return 2\n",
        "def f(x):\n    if not x:\n        return 1\n    return 2\n",
    ),
    (
        "negate",
        "def f(x, y):\n    return 1 if x > y else 2\n",
        "def f(x, y):\n    return 1 if not (x > y) else 2\n",
    ),
    ("drop-condition", "def f(a, b):\n    return a and b\n", "def f(a, b):\n    return a\n"),
    (
        "drop-condition",
        "def f(xs):\n    return [x for x in xs if x]\n",
        "def f(xs):\n    return [x for x in xs]\n",
    ),
    (
        "remove-statement",
        "def f(x):\n    x = x * 2\n    x += 1\n    return x\n",
        "def f(x):\n    x = x * 2\n    pass\n    return x\n",
    ),
    ("swap-args", "def f(a, b):\n    return pow(a, b)\n", "def f(a, b):\n    return pow(b, a)\n"),
    ("swap-operands", "def f(a, b):\n    return (a - b) / 2\n", "def f(a, b):\n    return (b - a) / 2\n"),
    ("drop-operand", "def f(a, b):\n    return a * b * -1\n", "def f(a, b):\n    return a * b\n"),
    ("wrap-abs", "def f(a, b):\n    return a - b\n", "def f(a, b):\n    return abs(a - b)\n"),
    ("unwrap-call", "def f(x):\n    return abs(x)\n", "def f(x):\n    return x\n"),
    (
        "flip-returns",
        "def f(x):\n    if x:\n        return False\n    return True\n",
        "def f(x):\n    if x:\n        return True\n    return False\n",
    ),
    (
        "return-early",
        "def f(xs):\n    r = 0\n    for x in xs:\n        r = x\n    return r\n",
        "def f(xs):\n    r = 0\n    for x in xs:\n        r = x\n        return r\n    return r\n",
    ),
    (
        "drop-element",
        "def f(c):\n    return c in ['a', 'e', 'y']\n",
        "def f(c):\n    return c in ['a', 'e']\n",
    ),
    ("swap-elements", "def f(i, j):\n    return (j, i)\n", "def f(i, j):\n    return (i, j)\n"),
    ("drop-unary", "def f(x):\n    return -x\n", "def f(x):\n    return x\n"),
]


@pytest.mark.parametrize(("op", "buggy", "fixed"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_operator_produces_the_fix(op: str, buggy: str, fixed: str) -> None:
    found = candidates(buggy)
    assert fixed in found, f"{op}: no candidate gives\n{fixed}"
    assert op in found[fixed]


@pytest.mark.parametrize(
    ("test", "negated"),
    [
        ("(x == y for y in ys)", False),  # a generator: always true, and `not` of it always false
        ("not (x == y for y in ys)", False),  # and with its `not` dropped, as constant
        ("lambda: x", False),
        ("(x, ys)", False),  # a non-empty tuple
        ("[*ys]", True),  # may be empty
        ("{**x}", True),
        ("()", True),  # empty: always false, but a `not` makes it true; not this rule's to judge
        ("x == ys", True),
    ],
)
def test_a_condition_whose_kind_decides_its_truth_is_not_negated(test: str, negated: bool) -> None:
    """`if (x == y for y in ys):` misses its `any(...)`; `if not (...)` is as constant, and passed a
    suite that never took the branch (deepmerge, a held-aside task)."""
    buggy = f"def f(x, ys):\n    if {test}:\n        return 1\n    return 0\n"
    src = SourceFile("m.py", buggy)
    pool = CandidatePool({"m.py": src}, [Suspect("m.py", 2, 1.0, 1, 0)], max_lines=5)
    made = set()  # the conditions of the candidates that still have the `if`
    for m in pool.valid(pool.singles()):
        first = ast.parse(src.apply(m.edits)).body[0].body[0]  # type: ignore[attr-defined]
        if isinstance(first, ast.If):
            made.add(ast.unparse(first.test))
    assert (test.startswith("not ") and test[4:] in made) is False  # the `not` dropped: as constant
    negation = ast.unparse(ast.UnaryOp(ast.Not(), ast.parse(test, mode="eval").body))
    assert (negation in made) is negated, made
    if "(x == y" in test:  # what it does get: the missing `any`
        fixed = test.replace("(x == y for y in ys)", "any((x == y for y in ys))")
        assert ast.unparse(ast.parse(fixed, mode="eval").body) in made, made


def test_a_constant_condition_the_code_has_already_does_not_block_the_fix_beside_it() -> None:
    """`assert (y, "msg")` is always true, a bug of its own; the fix of the `if` around it (the
    block a candidate is checked in) is still tried, and a candidate adding a second one is not."""
    buggy = (
        'def f(x, y):\n    if y > x:\n        assert (y, "y must be set")\n        return 1\n    return 0\n'
    )
    src = SourceFile("m.py", buggy)
    pool = CandidatePool({"m.py": src}, [Suspect("m.py", 2, 1.0, 1, 0)], max_lines=5)
    made = [src.apply(m.edits) for m in pool.valid(pool.singles())]
    assert buggy.replace("y > x", "y >= x") in made
    assert not [text for text in made if "if (y, " in text or "if not (y, " in text]


def test_formatting_and_comments_elsewhere_are_kept() -> None:
    buggy = (
        "# header   comment\ndef f(x):   # odd  spacing\n    y = [1,2,  3]\n    return x < len(y)  # tail\n"
    )
    src = SourceFile("m.py", buggy)
    for m in mutations(src, lines=[4]):
        out = src.apply(m.edits)
        assert out.splitlines()[:3] == buggy.splitlines()[:3]
    assert "    return x <= len(y)  # tail\n" in {
        src.apply(m.edits).splitlines(True)[3] for m in mutations(src)
    }


def test_non_ascii_source_keeps_offsets_right() -> None:
    buggy = "def f(s):\n    t = 'héllo ünïcode'\n    return s < t\n"
    assert "def f(s):\n    t = 'héllo ünïcode'\n    return s > t\n" in candidates(buggy)


def parses(text: str) -> bool:
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True


def test_every_candidate_parses_or_is_rejected_and_docstrings_are_untouched() -> None:
    buggy = 'def f(a, b):\n    """Doc string."""\n    return (a ** 2) / 3 - b % 4\n'
    src = SourceFile("m.py", buggy)
    made = mutations(src)
    for m in made:
        assert '"""Doc string."""' in src.apply(m.edits)
    broken = [m for m in made if not parses(src.apply(m.edits))]
    # none here (dropping an operand beside a parenthesis made two before); where one is made...
    assert len(made) >= 80 and broken == [], [m.description for m in broken]
    pool = CandidatePool({"m.py": src}, [Suspect("m.py", 3, 1.0, 1, 0)], max_lines=1)
    kept = list(pool.valid(made))
    assert not set(broken) & set(kept) and pool.invalid == len(broken)  # ...which the search drops
    # What is kept: one candidate per distinct program other than the original, by its syntax tree.
    programs = {ast.dump(ast.parse(src.apply(m.edits))) for m in made if m not in broken}
    programs.discard(ast.dump(ast.parse(buggy)))
    assert sorted(ast.dump(ast.parse(src.apply(m.edits))) for m in kept) == sorted(programs)


def test_only_requested_lines_are_mutated() -> None:
    src = SourceFile("m.py", "def f(a, b):\n    x = a + 1\n    y = b - 1\n    return x * y\n")
    assert {m.line for m in mutations(src, lines=[3])} == {3}


def test_pairs_combine_two_edits_on_one_line() -> None:
    buggy = "def f(a, b):\n    return a - 1 < b\n"
    fixed = "def f(a, b):\n    return a + 1 <= b\n"
    src = SourceFile("m.py", buggy)
    singles = mutations(src)
    assert fixed not in {src.apply(m.edits) for m in singles}
    assert fixed in {src.apply(m.edits) for m in pairs(singles, 10_000)}


@pytest.mark.parametrize(
    ("literal", "made", "never"),
    [
        ('"type {:d} taken by {!r}"', '"TYPE {:d} TAKEN BY {!r}"', '"TYPE {:D} TAKEN BY {!R}"'),
        ('"%s items, %-5d each"', '"%s ITEMS, %-5d EACH"', '"%S ITEMS, %-5D EACH"'),
        ('"%(name)s is taken"', '"%(name)s IS TAKEN"', '"%(NAME)S IS TAKEN"'),
        ('"{name} is taken"', '"{name} IS TAKEN"', '"{NAME} IS TAKEN"'),
        ('"Straße {:d}"', '"STRASSE {:d}"', '"STRASSE {:D}"'),  # the case change changes the length
        ('"{:x}"', '"{:X}"', None),  # a type valid in either case may change
        ('"100% sure"', '"100% SURE"', None),  # no field: `%` with no type after it
    ],
)
def test_a_case_change_keeps_a_format_string_s_fields(literal: str, made: str, never: str | None) -> None:
    # `{:D}` raises a ValueError of its own when formatted: umsgpack's test that expects one passed
    # with the message upper-cased, where the fix was the missing `ValueError(...)` around it
    found = candidates(f"def f(x):\n    return {literal}.format(x)\n")
    assert f"def f(x):\n    return {made}.format(x)\n" in found
    assert never is None or f"def f(x):\n    return {never}.format(x)\n" not in found


def compiles(text: str) -> bool:
    try:
        compile(text, "m.py", "exec")
    except SyntaxError:
        return False
    return True


@pytest.mark.parametrize(
    ("buggy", "fixed"),
    [
        # the kept operand keeps its parentheses, the dropped one goes with its own
        ("def f(n):\n    return (n + 1) - 1\n", "def f(n):\n    return (n + 1)\n"),
        ("def f(n):\n    return (n + 1) - 1\n", "def f(n):\n    return 1\n"),
        ("def f(a, b):\n    return (a ** 2) / 3 - b\n", "def f(a, b):\n    return (a ** 2) - b\n"),
        ("def f(a, b):\n    return a - (b * 2)\n", "def f(a, b):\n    return (b * 2)\n"),
        ("def f(a):\n    return (a \\\n        - 1)\n", "def f(a):\n    return (a)\n"),
        # a starred argument is no expression alone: no `len()` is dropped from `len(*a)`
        ("def f(a):\n    return len(*a)\n", None),
    ],
    ids=["paren-left", "paren-left-dropped", "paren-operand", "paren-right", "continued", "starred"],
)
def test_a_dropped_operand_or_call_leaves_code_that_compiles(buggy: str, fixed: str | None) -> None:
    src = SourceFile("m.py", buggy)
    made = mutations(src)
    assert [m.description for m in made if not compiles(src.apply(m.edits))] == []
    if fixed is not None:
        assert fixed in candidates(buggy)
