"""Numbers a function loops over, where `range()` may be missing (wrappers.range_of): the names it
uses as numbers for sure, and the values that are numbers by such use or ints for sure. An index
alone is no such use (`df[cols]`, `d[key]` are keys), nor is `+=` of anything but a number
(`out += chunk` grows a list)."""

from __future__ import annotations

import ast
from collections.abc import Collection

from repofix.repair.facts import Function
from repofix.repair.source import dotted

ORDERINGS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def numbers_of(func: Function) -> list[str]:
    """Its int parameters, then the names it counts with, in the order first met."""
    return list(dict.fromkeys([*int_parameters(func), *counted(func)]))


def int_parameters(func: Function) -> list[str]:
    """Parameters annotated `int` or defaulting to an int literal (`newlines: int = 1`)."""
    return [
        a.arg
        for a, d in with_defaults(func)
        if (a.annotation is not None and dotted(a.annotation) == "int")
        or (isinstance(d, ast.Constant) and type(d.value) is int)
    ]


def with_defaults(func: Function | ast.Lambda) -> list[tuple[ast.arg, ast.expr | None]]:
    """Each named parameter (not `*args` nor `**kwargs`) with its default, None without one."""
    args = func.args
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    defaults += [*args.defaults, *args.kw_defaults]
    return list(zip([*positional, *args.kwonlyargs], defaults, strict=True))


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


def number_value(value: ast.expr, numbers: Collection[str]) -> bool:
    """A loop's value that is a number by its use (a name the function uses as one, `numbers`) or
    for sure (`int_for_sure`): a loop over one raises TypeError (`for i in len(items)` lost its
    `range`; codemelli's `for i in 6`, heldout52)."""
    return isinstance(value, ast.Name) and value.id in numbers or int_for_sure(value, numbers)


def int_for_sure(value: ast.expr, numbers: Collection[str] = ()) -> bool:
    """An int literal, a `len()`, or a sum or difference of one with another or with a name used
    as a number (`len(xs) - 1`, `n + 1`)."""
    if isinstance(value, ast.Constant):
        return type(value.value) is int
    if isinstance(value, ast.Call):
        return getattr(value.func, "id", None) == "len" and len(value.args) == 1 and not value.keywords
    if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Sub)):
        sides = (value.left, value.right)
        named = [isinstance(v, ast.Name) and v.id in numbers for v in sides]
        sure = [int_for_sure(v, numbers) for v in sides]
        return all(s or n for s, n in zip(sure, named, strict=True)) and any(sure)
    return False


def loop_names(func: Function) -> tuple[list[str], list[str]]:
    """(the names a `for` binds from a `range()`: ints for sure; the names it binds to the items of
    anything else, the second of an `enumerate()`'s pair too: perhaps characters of text), a name
    bound both ways in neither."""
    counters: dict[str, None] = {}
    items: dict[str, None] = {}
    for node in ast.walk(func):
        if not isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            continue
        walked, target = node.iter, node.target
        called = walked.func.id if isinstance(walked, ast.Call) and isinstance(walked.func, ast.Name) else ""
        if called == "range" and isinstance(target, ast.Name):
            counters[target.id] = None
        elif called == "enumerate" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            items.update((n.id, None) for n in target.elts[1:] if isinstance(n, ast.Name))
        elif isinstance(target, ast.Name) and called != "enumerate":  # a pair, not an item
            items[target.id] = None
    return [n for n in counters if n not in items], [n for n in items if n not in counters]
