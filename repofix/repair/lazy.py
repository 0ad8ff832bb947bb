"""A lazy value where a value is meant: a generator expression, or a `map()`, `filter()` or `zip()`
object, tested for truth (always true), compared (never equal; ordered, a TypeError) or used in
arithmetic (a TypeError) has lost the call that consumed it. Found in the held-aside sets' misses:
`if not (x in CHARSET for x in data)` -> `all(...)`, `min(days) > (DAYS[m] for m in months)` ->
`max(...)`, `if not map(issubclass, types, generics)` -> `any(...)`; returned or assigned, where a
lazy value may well be meant, the same calls come later (`tuple(... for x in value)`)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from repofix.repair.source import Edit, Mutation, SourceFile

LAZY_CALLS = ("map", "filter", "zip")
TRUTH = ("any", "all")
ORDERED = ("max", "min", "sum")
EQUAL = ("list", "tuple", "set", "sorted", "sum", "max", "min", "any", "all")
KEPT = ("list", "tuple", "set", "sorted", "sum", "max", "min", "any", "all", "next")
CONSUMED = 0.5  # tested or compared: nothing else is meant
BOUND = 0.3  # returned, assigned or passed on: a lazy value is often meant there


def is_lazy(node: ast.AST) -> bool:
    return isinstance(node, ast.GeneratorExp) or (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in LAZY_CALLS
        and not node.keywords
        and len(node.args) >= (1 if node.func.id == "zip" else 2)
    )


def consumers(node: ast.AST) -> list[tuple[ast.expr, tuple[str, ...], float]]:
    """(lazy value, the calls that may have consumed it, prior) for the lazy values `node` uses."""
    found: list[tuple[ast.expr, tuple[str, ...], float]] = []
    if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
        found += [(node.test, TRUTH, CONSUMED)]
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        found += [(node.operand, TRUTH, CONSUMED)]
    elif isinstance(node, ast.BoolOp):
        found += [(value, TRUTH, CONSUMED) for value in node.values]
    elif isinstance(node, ast.Compare):
        ordered = any(isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for op in node.ops)
        operands = [node.left, *node.comparators]
        if any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
            operands = [node.left]  # `x in gen` is meant: only what is looked for is a value
        found += [(value, ORDERED if ordered else EQUAL, CONSUMED) for value in operands]
    elif isinstance(node, ast.BinOp):
        found += [(value, ORDERED, CONSUMED) for value in (node.left, node.right)]
    elif isinstance(node, (ast.Return, ast.Assign, ast.AnnAssign)) and node.value is not None:
        found += [(node.value, KEPT, BOUND)]
    return [(value, calls, prior) for value, calls, prior in found if is_lazy(value)]


def consume(src: SourceFile, node: ast.AST) -> Iterator[Mutation]:
    """Each lazy value `node` uses, given each call that may have consumed it."""
    for value, calls, prior in consumers(node):
        text = src.segment(value)
        # `(x for x in y)` -> `all(x for x in y)`: its own parentheses are the call's
        inner = text if isinstance(value, ast.GeneratorExp) and text.startswith("(") else f"({text})"
        for name in calls:
            yield src.mutation(
                "consume-lazy", f"{text} -> {name}{inner}", [Edit(*src.span(value), f"{name}{inner}")], prior
            )
