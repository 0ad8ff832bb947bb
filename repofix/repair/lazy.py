"""A lazy value where a value is meant: a generator expression, or a `map()`, `filter()` or `zip()`
object, tested for truth (always true), compared (never equal; ordered, a TypeError) or used in
arithmetic (a TypeError) has lost the call that consumed it. Found in the held-aside sets' misses:
`if not (x in CHARSET for x in data)` -> `all(...)`, `min(days) > (DAYS[m] for m in months)` ->
`max(...)`, `if not map(issubclass, types, generics)` -> `any(...)`; returned or assigned, where a
lazy value may well be meant, the same calls come later (`tuple(... for x in value)`), unless the
name it is bound to is then used where only a value serves: a key (`table[k]`, `k in table`),
measured (`len(k)`), indexed (`k[0]`) or compared for equality; then the calls that make a sequence
come first (heldout33's `k = (r[i] for i in idx)` later looked up with `k in out`: `tuple(...)`)."""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator

from repofix.repair.source import Edit, Mutation, SourceFile, builtin_call

LAZY_CALLS = ("map", "filter", "zip")
TRUTH = ("any", "all")
ORDERED = ("max", "min", "sum")
EQUAL = ("list", "tuple", "set", "sorted", "sum", "max", "min", "any", "all")
KEPT = ("list", "tuple", "set", "sorted", "sum", "max", "min", "any", "all", "next")
# where a bound name is then a key, measured or indexed: a sequence (a tuple first: it hashes), then the rest
SEQUENCES = ("tuple", "list", "sorted", "set")
OTHERS = tuple(c for c in KEPT if c not in SEQUENCES)
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


def valued_names(func: ast.AST) -> set[str]:
    """The names `func` uses where a lazy value cannot serve: a subscript's key or receiver (`table[k]`,
    `k[0]`), the left of `in` or of `==`/`!=` (or their right), the one argument of `len()`."""
    found: set[str] = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Subscript):
            found.update(n.id for n in (node.value, node.slice) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Compare):
            if isinstance(node.left, ast.Name) and isinstance(
                node.ops[0], (ast.In, ast.NotIn, ast.Eq, ast.NotEq)
            ):
                found.add(node.left.id)
            found.update(
                right.id
                for op, right in zip(node.ops, node.comparators, strict=True)
                if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(right, ast.Name)
            )
        elif (call := builtin_call(node, "len", 1)) and isinstance(call.args[0], ast.Name):
            found.add(call.args[0].id)
    return found


def consumers(node: ast.AST, valued: Collection[str] = ()) -> list[tuple[ast.expr, tuple[str, ...], float]]:
    """(lazy value, the calls that may have consumed it, prior) for the lazy values `node` uses;
    `valued`: the function's names used where only a value serves (valued_names)."""
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
        if _bound_name(node) in valued:
            found += [(node.value, SEQUENCES, CONSUMED), (node.value, OTHERS, BOUND)]
        else:
            found += [(node.value, KEPT, BOUND)]
    return [(value, calls, prior) for value, calls, prior in found if is_lazy(value)]


def _bound_name(node: ast.stmt) -> str | None:
    """The one name `x = ...` or `x: T = ...` binds; None for a return, `a, b = ...` or `a = b = ...`."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
    elif isinstance(node, ast.AnnAssign):
        target = node.target
    else:
        return None
    return target.id if isinstance(target, ast.Name) else None


def consume(src: SourceFile, node: ast.AST, valued: Collection[str] = ()) -> Iterator[Mutation]:
    """Each lazy value `node` uses, given each call that may have consumed it."""
    for value, calls, prior in consumers(node, valued):
        text = src.segment(value)
        # `(x for x in y)` -> `all(x for x in y)`: its own parentheses are the call's
        inner = text if isinstance(value, ast.GeneratorExp) and text.startswith("(") else f"({text})"
        for name in calls:
            yield src.mutation(
                "consume-lazy", f"{text} -> {name}{inner}", [Edit(*src.span(value), f"{name}{inner}")], prior
            )
