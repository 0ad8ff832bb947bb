"""Values a function computes and never reads after (repair/deadstores.py) on their own minimal
cases: which assignments are dead, the statements built to read one, where a read of one counts,
and the engine repairing the missing statement a dead store points to end to end."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from repofix.repair.deadstores import dead_stores
from repofix.repair.generate import mutations
from repofix.repair.source import SourceFile
from repofix.repair.unread import BOOST, CAP, Boost
from tests.test_repair_additions import assert_engine_repairs, assert_produces


def _dead(source: str) -> list[tuple[str, int]]:
    func = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef))
    return [(d.name, d.bound_at[0]) for d in dead_stores(func)]


BRANCHES = """\
def spans(parts, top):
    out = []
    for part in parts:
        if part.startswith(":"):
            m = int(part[1:])
        elif part.endswith(":"):
            m = int(part[:-1])
            out.append((m, top))
        else:
            out.append((0, top))
    return out
"""


@pytest.mark.parametrize(
    ("source", "dead"),
    [
        # bound in one branch and read only in the others
        (BRANCHES, [("m", 5)]),
        # bound again before any read: the first value is lost
        ("def f(a):\n    x = a + 1\n    x = a * 2\n    return x\n", [("x", 2)]),
        ("def f(a):\n    x = a.strip()\n    return a\n", [("x", 2)]),
        # read by the next pass of the loop, by the loop's test, after the loop, after a `continue`
        ("def f(xs):\n    s = 0\n    for x in xs:\n        print(s)\n        s = x + 1\n", []),
        ("def f(n):\n    while n > 1:\n        n = n // 2\n    return 0\n", []),
        ("def f(xs):\n    for x in xs:\n        last = x + 1\n    return last\n", []),
        (
            "def f(xs):\n    v = 0\n    for x in xs:\n        v = x * 2\n        if v:\n            continue\n"
            "        print(x)\n    return v\n",
            [],
        ),
        ("def f(xs):\n    for x in xs:\n        hit = x * 2\n        break\n    return hit\n", []),
        # read by a handler the `try` body may raise into, or by its `finally`
        ("def f(a):\n    try:\n        r = a.run()\n        a.check()\n    except E:\n        log(r)\n", []),
        ("def f(a):\n    try:\n        r = a.run()\n        a.check()\n    finally:\n        log(r)\n", []),
        # read by a nested function or a comprehension, declared global, read through locals()
        ("def f(a):\n    b = a + 1\n    g = lambda: b\n    return g\n", []),
        ("def f(a):\n    b = a + 1\n    return [b for _ in a]\n", []),
        ("def f(a):\n    global b\n    b = a + 1\n", []),
        ("def f(a):\n    b = a + 1\n    return locals()\n", []),
        # an augmented assignment reads its target
        ("def f(a):\n    b = a + 1\n    b += 2\n    return 0\n", []),
        # a default others overwrite, a constant, a name, `_`: no computed value lost
        ("def f(a):\n    x = None\n    if a:\n        x = 1\n    else:\n        x = 2\n    return x\n", []),
        ("def f(a):\n    x = a\n    x = 2\n    return x\n", []),
        ("def f(a):\n    _ = a.pop()\n    return a\n", []),
        # a tuple target is not one value
        ("def f(a):\n    x, y = a.split()\n    return a\n", []),
        # a `finally` sees what a handler's `return`, a `break` or a `continue` leaves
        (
            "def f(a):\n    y = None\n    try:\n        a()\n    except ValueError:\n        y = g()\n"
            "        return 1\n    finally:\n        print(y)\n",
            [],
        ),
        (
            "def f(xs):\n    r = None\n    for x in xs:\n        try:\n            if x:\n                break\n"
            "        finally:\n            r = g(x)\n        return 0\n    return r\n",
            [],
        ),
        # a `with` whose manager swallows what its body raises; a pattern reads what it compares to
        (
            "def f():\n    y = 0\n    with suppress(E):\n        y = g()\n        h()\n        y = k()\n    return y\n",
            [],
        ),
        (
            "def f(v):\n    k = g()\n    match v:\n        case k.RED:\n            return 1\n    k = h()\n    return k\n",
            [],
        ),
        # a frame's locals read by name
        ("def f(a):\n    b = a + 1\n    return sys._getframe().f_locals\n", []),
    ],
    ids=[
        "branch",
        "rebound",
        "never-read",
        "next-pass",
        "loop-test",
        "after-the-loop",
        "after-continue",
        "after-break",
        "handler",
        "finally",
        "lambda",
        "comprehension",
        "global",
        "locals",
        "augmented",
        "default",
        "plain-name",
        "underscore",
        "tuple",
        "finally-after-return",
        "finally-after-break",
        "with-swallows",
        "match-pattern",
        "frame-locals",
    ],
)
def test_which_assignments_are_dead(source: str, dead: list[tuple[str, int]]) -> None:
    assert _dead(source) == dead


def test_a_dead_store_ends_where_its_block_ends() -> None:
    func = ast.parse(BRANCHES).body[0]
    assert isinstance(func, ast.FunctionDef)
    (store,) = dead_stores(func)
    lines = BRANCHES.splitlines()
    assert store.until[0] == lines.index("            m = int(part[1:])") + 1
    boost = Boost(func)
    (u,) = boost.names["m"]
    assert u.holds(store.bound_at) and not u.holds((8, 20))  # after it in its branch, not in the next


def test_a_dead_store_is_seen_until_its_name_is_bound_again() -> None:
    source = "def f(xs, out):\n    m = len(xs) + 1\n    m = len(out)\n    out.append(m)\n    total = 0\n    return total\n"
    (store,) = dead_stores(ast.parse(source).body[0])  # type: ignore[arg-type]
    assert store.until == store.bound_at == (2, 19)  # not on to the block's end: `m = len(out)` is read
    src = SourceFile("m.py", source)
    lines = {src.line_of(m.edits[0].start) for m in mutations(src) if m.op == "use-unread"}
    assert lines == {2}  # after the store only: after `total = 0`, `m` is len(out)


def test_nothing_is_added_after_the_if_around_a_dead_store() -> None:
    # the `if` ends where the store does, but a statement after it may find `m` unbound
    source = (
        "def f(xs, c, out):\n    if c:\n        m = len(xs) + 1\n    for x in xs:\n        out.append(x)\n"
        "    m = 3\n    out.append(m)\n    return out\n"
    )
    src = SourceFile("m.py", source)
    added = [m.edits[0] for m in mutations(src) if m.op == "use-unread"]
    assert added and {src.line_of(e.start) for e in added} == {3}  # after the store itself...
    assert all(e.text.startswith("\n        out.") for e in added)  # ...inside the `if`, not after it


def test_a_sibling_branchs_update_reads_the_dead_store() -> None:
    # one of its names replaced by the dead one (use-unread), or as it is (clone-update), raised
    # by the boost for reading it: the copy that reads nothing new is not
    after = "int(part[1:])\n"
    assert_produces(
        "use-unread", BRANCHES, BRANCHES.replace(after, after + "            out.append((0, m))\n")
    )
    src = SourceFile("m.py", BRANCHES)
    priors = {m.description: m.prior for m in mutations(src, [5]) if m.op == "clone-update"}
    assert priors["add 'out.append((m, top))' at line 5"] == min(
        CAP, BOOST * priors["add 'out.append((0, top))' at line 5"]
    )


SPANS = """\
from math import inf


def spans(text):
    out = []
    for part in text.split(","):
        if part == "*":
            out.append((-inf, inf))
        elif part.startswith(":"):
            m = int(part[1:])
        elif part.endswith(":"):
            m = int(part[:-1])
            out.append((m, inf))
        else:
            m = int(part)
            out.append((m, m + 1))
    return out
"""

SPANS_TESTS = """\
from math import inf

from spans import spans


def test_points():
    assert spans("3,7") == [(3, 4), (7, 8)]


def test_open_ends():
    assert spans("4:") == [(4, inf)]
    assert spans(":9") == [(-inf, 9)]


def test_mixed():
    assert spans("1,:2,5:,*") == [(1, 2), (-inf, 2), (5, inf), (-inf, inf)]
"""


def test_the_engine_adds_the_read_the_dead_store_lost(make_sandbox, tmp_path: Path) -> None:
    # `m` is read in the other branches, never after its own binding in the first: the update
    # that read it there is missing (ifilters' `_dnf.append((-inf, _m1))`, heldout57)
    assert_engine_repairs(make_sandbox, tmp_path, "spans", SPANS, SPANS_TESTS, "out.append((-inf, m))")
