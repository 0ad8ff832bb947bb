"""Which names a function uses as numbers for sure: what `range()` may be missing around when it is
looped over (wrappers.range_of). An index alone is no such use (`df[cols]`, `d[key]` are keys),
nor is `+=` of anything but a number (`out += chunk` grows a list)."""

from __future__ import annotations

import ast

from repofix.repair.facts import Function
from repofix.repair.source import dotted

ORDERINGS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def numbers_of(func: Function) -> list[str]:
    """Its int parameters, then the names it counts with, in the order first met."""
    return list(dict.fromkeys([*int_parameters(func), *counted(func)]))


def int_parameters(func: Function) -> list[str]:
    """Parameters annotated `int` or defaulting to an int literal (`newlines: int = 1`)."""
    args = func.args
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    defaults += [*args.defaults, *args.kw_defaults]
    return [
        a.arg
        for a, d in zip([*positional, *args.kwonlyargs], defaults, strict=True)
        if (a.annotation is not None and dotted(a.annotation) == "int")
        or (isinstance(d, ast.Constant) and type(d.value) is int)
    ]


def counted(func: Function) -> list[str]:
    """Names that are a `range()` argument, an operand of arithmetic or of an ordering with a
    number (`n - 1`, `n > 0`), or the target of `+= 1`."""
    found: dict[str, None] = {}
    for node in ast.walk(func):
        sides: list[ast.expr] = []
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "range":
            sides = list(node.args)
        elif isinstance(node, ast.BinOp) and (_number(node.left) or _number(node.right)):
            sides = [node.left, node.right]
        elif isinstance(node, ast.AugAssign) and _number(node.value):
            sides = [node.target]
        elif isinstance(node, ast.Compare) and any(isinstance(op, ORDERINGS) for op in node.ops):
            operands = [node.left, *node.comparators]
            sides = operands if any(_number(o) for o in operands) else []
        found.update((n.id, None) for n in sides if isinstance(n, ast.Name))
    return list(found)


def _number(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)
