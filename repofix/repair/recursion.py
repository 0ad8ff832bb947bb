"""A recursive function that forgot to recurse on a part of its input: `sum(1 if sub is None else
sub for _, sub in fields)` -> `... else _count_leaves(sub)` (python-toon's). The function itself,
called as a method calls itself (`self.walk`) or by its name, around a name that a `for` or a
comprehension binds: the parts it walks. Only a function that takes one argument: one that takes
more would need the others made up."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from repofix.repair.source import Edit, Mutation, SourceFile

PRIOR = 0.3


@dataclass(frozen=True)
class Recursion:
    callee: str  # `walk`, `self.walk`; "" when the function does not take exactly one argument
    parts: frozenset[str]  # the names its loops and comprehensions bind


def recursion_of(func: ast.FunctionDef | ast.AsyncFunctionDef) -> Recursion:
    args = func.args
    positional = [a.arg for a in [*args.posonlyargs, *args.args]]
    method = positional[:1] in (["self"], ["cls"])
    taken = positional[1:] if method else positional
    required = len(taken) - len(args.defaults) + sum(d is None for d in args.kw_defaults)
    if len(taken) != 1 or required != 1 or args.vararg or args.kwarg:
        return Recursion("", frozenset())
    parts = {
        name.id
        for node in ast.walk(func)
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension))
        for name in ast.walk(node.target)
        if isinstance(name, ast.Name)
    }
    return Recursion(f"{positional[0]}.{func.name}" if method else func.name, frozenset(parts))


def recurse(src: SourceFile, node: ast.AST, parent: ast.AST, found: Recursion) -> Iterator[Mutation]:
    """`sub` -> `walk(sub)` where `sub` is read as a value: not called, compared or a receiver, and
    not already what the function is called with."""
    if not (
        found.callee
        and isinstance(node, ast.Name)
        and isinstance(node.ctx, ast.Load)
        and node.id in found.parts
        and not isinstance(parent, (ast.Attribute, ast.Compare))  # `walk(sub) is None`: no part's test
        and not (
            isinstance(parent, ast.Call) and (parent.func is node or ast.unparse(parent.func) == found.callee)
        )
    ):
        return
    call = f"{found.callee}({node.id})"
    yield src.mutation("add-wrapper", f"recurse: {node.id} -> {call}", [Edit(*src.span(node), call)], PRIOR)
