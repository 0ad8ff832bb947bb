"""An unfilled collection grown by a pair of the names its loop binds (repair/looped.py, unfilled.fills):
`output.append((t, v))` after the loop binds `t` and `v`, in their order first, only of names bound
before the line on every path to it, never for a dict; and the engine repairing such a lost record
end to end."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from repofix.repair.generate import mutations
from repofix.repair.looped import MAX_PAIRED, loop_bound
from repofix.repair.source import SourceFile
from repofix.repair.unfilled import PAIR
from tests.test_repair_unfilled import _repaired

# jtlvi's decoder (heldout54): each record read in the loop is lost
DECODE = """\
def decode(data):
    output = []
    pos = 0
    while pos < len(data):
        t = data[pos]
        n = data[pos + 1]
        v = data[pos + 2 : pos + 2 + n]
        pass
        pos += 2 + n
    return output
"""

DECODE_TESTS = """\
from decode import decode


def test_one_record():
    assert decode(bytes([7, 2, 65, 66])) == [(7, b"AB")]


def test_two_records():
    assert decode(bytes([1, 0, 2, 1, 9])) == [(1, b""), (2, bytes([9]))]


def test_nothing():
    assert decode(b"") == []
"""


def _pairs(source: str, line: int) -> dict[str, float]:
    """The pairs made on `line`, each once: (its text, its prior)."""
    made = [
        (m.edits[0].text.strip(), m.prior)
        for m in mutations(SourceFile("m.py", source), [line])
        if m.op == "fill-unfilled" and "((" in m.edits[0].text
    ]
    assert len(made) == len({text for text, _ in made}), made  # no pair twice
    return dict(made)


def test_the_pairs_of_the_loop_s_names_come_in_reading_order_first() -> None:
    pairs = _pairs(DECODE, 8)
    assert list(pairs) == [
        "output.append((t, n))",
        "output.append((t, v))",
        "output.append((n, v))",
        "output.append((n, t))",
        "output.append((v, t))",
        "output.append((v, n))",
    ]  # not `pos`, bound only after the line in the loop, nor `data`, a parameter
    # below a single name, unless it reads a local read nowhere else (`t`, `v` here: unread.Boost)
    read = _pairs(DECODE.replace("        pass\n", "        check(t, n, v)\n"), 8)
    assert len(read) == 6 and set(read.values()) == {PAIR}


@pytest.mark.parametrize(
    ("source", "line", "names"),
    [
        ("for k, v in d.items():\n    key = k + '.'\n    pass\n", 3, ["k", "v", "key"]),
        ("while x:\n    a = [y for y in x]\n    pass\n", 3, ["a"]),  # not a comprehension's own
        ("for i in x:\n    pass\n    j = i\n", 2, ["i"]),  # bound after the line
        ("for i in x:\n    def g():\n        t = 1\n    class K:\n        a = 2\n    pass\n", 6, ["i"]),
        ("for i in x:\n    if i:\n        t = i\n    else:\n        pass\n", 5, ["i"]),  # the other branch
        ("for i in x:\n    if i:\n        t = i\n        pass\n", 4, ["i", "t"]),  # its own branch
        ("for i in x:\n    j = i\n    k = i\n    j = k\n    pass\n", 5, ["i", "k", "j"]),  # last bound
        ("while (chunk := read()):\n    n = len(chunk)\n    pass\n", 3, ["chunk", "n"]),
    ],
    ids=[
        "target-then-body",
        "comprehension",
        "after",
        "nested-scopes",
        "other-branch",
        "own-branch",
        "rebound",
        "walrus",
    ],
)
def test_the_names_a_loop_binds_before_a_line(source: str, line: int, names: list[str]) -> None:
    loop = ast.parse(source).body[0]
    assert isinstance(loop, (ast.For, ast.While))
    assert loop_bound(loop, line) == names


def test_only_the_names_bound_last_make_pairs() -> None:
    body = "".join(f"        n{i} = x + {i}\n" for i in range(MAX_PAIRED + 2))
    source = f"def f(xs):\n    out = []\n    for x in xs:\n{body}        pass\n    return out\n"
    added = [ast.parse(text).body[0] for text in _pairs(source, 4 + MAX_PAIRED + 2)]
    named = {n.id for stmt in added for n in ast.walk(stmt) if isinstance(n, ast.Name) and n.id != "out"}
    assert named == {f"n{i}" for i in range(2, MAX_PAIRED + 2)}  # not `x` nor n0, n1, bound before them


def test_a_loop_s_else_gets_no_pairs() -> None:
    source = (
        "def f(xs):\n    out = []\n    for x in xs:\n        y = x\n    else:\n        pass\n    return out\n"
    )
    assert _pairs(source, 6) == {}  # `x` and `y` are unbound when the loop never ran


def test_a_dict_is_never_grown_by_a_pair() -> None:
    assert _pairs(DECODE.replace("output = []", "output = {}"), 8) == {}


def test_the_engine_fills_the_lost_record(make_sandbox, tmp_path: Path) -> None:
    diff, written = _repaired(make_sandbox, tmp_path, {"decode.py": DECODE, "test_decode.py": DECODE_TESTS})
    assert "output.append((t, v))" in written["decode.py"], diff
