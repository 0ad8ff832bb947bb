"""A callee the lines around a value call twice or more is the wrapper tried first around it
(repair/nearby.py): its siblings have it, so the value likely lost it."""

from __future__ import annotations

import pytest

from repofix.repair.generate import mutations
from repofix.repair.nearby import NEAR_PRIOR
from repofix.repair.source import SourceFile

G = "\n\ndef g(v):\n    return v\n"


def wrapped(source: str, line: int) -> dict[str, float]:
    return {
        m.description: m.prior for m in mutations(SourceFile("m.py", source), [line]) if m.op == "add-wrapper"
    }


@pytest.mark.parametrize(
    ("source", "line", "wrap"),
    [
        # the odd one out of a display on one line, and on three (hsluv's planted `_to_linear`)
        ("def f(t):\n    x = (g(t[0]), g(t[1]), t[2])\n    return x\n" + G, 2, "wrap t[2] in g()"),
        (
            "def f(t):\n    x = (g(t[0]),\n         g(t[1]),\n         t[2])\n    return x\n" + G,
            4,
            "wrap t[2] in g()",
        ),
        # of statements alike (isoweek's `int(isostring[6:8])`)
        (
            "def f(s):\n    y = int(s[0:2])\n    m = int(s[2:4])\n    d = s[4:6]\n    return y, m, d\n",
            4,
            "wrap s[4:6] in int()",
        ),
        # a compared operand (`len(a) == len(b)` beside `len(c) == d`)
        (
            "def f(a, b, c, d):\n    if len(a) != len(b):\n        return 1\n    return len(c) == d\n",
            4,
            "wrap d in len()",
        ),
    ],
)
def test_a_wrapper_its_neighbours_call_comes_first(source: str, line: int, wrap: str) -> None:
    made = wrapped(source, line)
    assert made[wrap] == NEAR_PRIOR
    assert max(made.values()) == NEAR_PRIOR


@pytest.mark.parametrize(
    ("source", "line", "wrap"),
    [
        # called once nearby: no sign
        ("def f(t):\n    x = (g(t[0]), t[2])\n    return x\n" + G, 2, "wrap t[2] in g()"),
        # the call a value is the argument of is not one it lost: no `g(g(t[0]))` first
        ("def f(t):\n    x = (g(t[0]), g(t[1]), t[2])\n    return x\n" + G, 2, "wrap t[0] in g()"),
        # too far away
        (
            "def f(s):\n    y = int(s[0:2])\n    m = int(s[2:4])\n\n\n\n\n    d = s[4:6]\n    return d\n",
            8,
            "wrap s[4:6] in int()",
        ),
    ],
)
def test_no_boost_without_siblings(source: str, line: int, wrap: str) -> None:
    assert wrapped(source, line).get(wrap, 0.0) < NEAR_PRIOR
