"""A loop over a container its body resizes gets a copy to walk (repair/snapshots.py)."""

from __future__ import annotations

import ast

import pytest

from repofix.repair.generate import mutations
from repofix.repair.snapshots import PRIOR
from repofix.repair.source import SourceFile


def snapshots(source: str) -> dict[str, float]:
    src = SourceFile("m.py", source)
    lines = range(1, source.count("\n") + 2)
    return {
        ast.unparse(ast.parse(src.apply(m.edits))): m.prior
        for m in mutations(src, lines)
        if m.op == "snapshot-iterated"
    }


@pytest.mark.parametrize(
    ("loop", "body"),
    [
        # ihexsrec's delete_bytes (heldout34)
        ("for k in self._mem.keys():", "if lo <= k < hi:\n            self._mem.pop(k)"),
        ("for k in d:", "del d[k]"),
        ("for k, v in d.items():", "if not v:\n            d.pop(k)"),
        ("for x in s:", "try:\n            s.remove(x)\n        except KeyError:\n            pass"),
        ("for x in xs:", "ys = xs.append(x + 1)"),
        ("for x in self.items:", "while self.items.pop():\n            pass"),
    ],
    ids=["keys-pop", "del-item", "items-pop-nested", "set-remove-in-try", "list-append", "pop-in-test"],
)
def test_a_loop_that_resizes_what_it_walks_walks_a_copy(loop: str, body: str) -> None:
    source = f"def f(self, d, s, xs, lo, hi):\n    {loop}\n        {body}\n    return d\n"
    ast.parse(source)
    head = loop.removeprefix("for ").split(" in ", 1)
    fixed = source.replace(loop, f"for {head[0]} in list({head[1].removesuffix(':')}):")
    assert snapshots(source) == {ast.unparse(ast.parse(fixed)): PRIOR}


@pytest.mark.parametrize(
    "body",
    [
        "if k == 3:\n            d.pop(k)\n            break",  # it stops right after
        "d[k] = d[k] + 1",  # a key walked is set: no size changes
        "other.pop(k)",  # another container
        "return d.pop(k)",  # the loop ends with it
        "f = lambda: d.pop(k)",  # runs elsewhere, if at all
        "def g():\n            d.pop(k)",
        "total = [d.pop(j) for j in ()]",
    ],
    ids=["break-after", "item-set", "other", "return", "lambda", "nested-def", "comprehension"],
)
def test_no_copy_where_the_loop_does_not_resize_what_it_walks(body: str) -> None:
    source = f"def f(d, other):\n    for k in d:\n        {body}\n    return d\n"
    ast.parse(source)
    assert snapshots(source) == {}


def test_no_copy_of_a_copy_or_of_what_is_made_anew() -> None:
    assert snapshots("def f(d):\n    for k in list(d):\n        d.pop(k)\n") == {}
    assert snapshots("def f(d):\n    for k in g(d):\n        d.pop(k)\n") == {}
