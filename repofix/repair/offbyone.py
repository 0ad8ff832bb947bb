"""Off-by-one mutations: an index, a slice bound or a range bound one more or one less; any operand,
argument, value returned or assigned, or element of a tuple built one more or one less (additions)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from repofix.repair.facts import BUILTIN_NAMES
from repofix.repair.source import ATOMS, Edit, Mutation, SourceFile

# a display is no number: `(index, close) + 1` is a TypeError, never the fix (its elements are operands)
DISPLAYS = (ast.Tuple, ast.List, ast.Set, ast.Dict, ast.JoinedStr, ast.ListComp, ast.SetComp, ast.DictComp)


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


def off_by_one(
    src: SourceFile, node: ast.expr, why: str, paren: bool, prior: float = 0.45
) -> Iterator[Mutation]:
    """`x` -> `x + 1` / `x - 1` for a non-constant operand or argument (parenthesized inside arithmetic);
    not a display (`(index, close) + 1` is a TypeError, never the fix: its elements are operands)."""
    if isinstance(node, (ast.Constant, ast.Starred, ast.Lambda, *DISPLAYS)) or isinstance(
        getattr(node, "ctx", None), ast.Store
    ):
        return
    start, end = src.span(node)
    text = src.segment(node) if isinstance(node, (*ATOMS, ast.BinOp)) else src.atom(node)
    for delta in ("+ 1", "- 1"):
        new = f"({text} {delta})" if paren else f"{text} {delta}"
        yield src.mutation(
            "off-by-one", f"{why}: {src.segment(node)} {delta}", [Edit(start, end, new)], prior
        )


def operand_targets(node: ast.AST) -> list[ast.expr]:
    """Operands of arithmetic and comparisons, arguments of calls (not of `range`: see operators),
    a value assigned or returned when it is a name, an attribute or a subscript (`self._map[k]
    = v` -> `v + 1`; a call or an expression has its own operands), and such an element of a tuple
    built (`yield (start, prev + 1, bytes(buf))`)."""
    if isinstance(node, (ast.Assign, ast.Return)) and isinstance(
        node.value, (ast.Name, ast.Attribute, ast.Subscript)
    ):
        return [node.value]
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.Compare):
        return [node.left, *node.comparators]
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) != "range":
        return [a for a in node.args if not isinstance(a, ast.Starred)] + [
            k.value for k in node.keywords if k.arg
        ]
    if isinstance(node, ast.Slice):
        return [b for b in (node.lower, node.upper) if b is not None]
    if isinstance(node, ast.Tuple) and isinstance(node.ctx, ast.Load):  # `spans.append((index, close + 1))`
        return [e for e in node.elts if _a_number(e)]
    return []


def _a_number(node: ast.expr) -> bool:
    """An element that may hold a number: a name, an attribute or a subscript, but not a class by its
    name (`KeyError`, `ast.FunctionDef`, `int`: the tuples of `isinstance(x, (A, B))` and `except (A,
    B)`) nor a type's subscript (`list[float]`, a hint's)."""
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, (ast.Name, ast.Attribute, ast.Subscript)) and _a_number(node.value)
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    capitalised = name[:1].isupper() and not name.isupper()
    return bool(name) and not capitalised and name not in BUILTIN_NAMES
