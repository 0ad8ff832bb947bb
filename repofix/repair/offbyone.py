"""Off-by-one mutations: an index, a slice bound or a range bound one more or one less."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from repofix.repair.source import ATOMS, Edit, Mutation, SourceFile


def plus_minus_one(src: SourceFile, node: ast.expr, prior: float, why: str) -> Iterator[Mutation]:
    """Off-by-one on a non-constant integer-valued expression (an index, a bound, a range end)."""
    if isinstance(node, ast.Constant):
        return
    start, end = src.span(node)
    text = src.segment(node) if isinstance(node, (*ATOMS, ast.BinOp)) else src.atom(node)
    for delta in (" + 1", " - 1"):
        yield src.mutation(
            "off-by-one", f"{why}: {src.segment(node)}{delta}", [Edit(start, end, text + delta)], prior
        )


def subscript(src: SourceFile, node: ast.Subscript) -> Iterator[Mutation]:
    sl = node.slice
    if isinstance(sl, ast.Slice):
        for bound in (sl.lower, sl.upper, sl.step):
            if bound is not None:
                yield from plus_minus_one(src, bound, 0.75, "slice bound")
                start, end = src.span(bound)
                yield src.mutation(
                    "drop-bound", f"drop slice bound {src.segment(bound)}", [Edit(start, end, "")], 0.5
                )
        if sl.lower is None and sl.upper is not None:
            start = src.span(sl)[0]
            yield src.mutation("off-by-one", "slice from 1", [Edit(start, start, "1")], 0.5)
    elif not isinstance(sl, ast.Tuple):
        yield from plus_minus_one(src, sl, 0.75, "index")
