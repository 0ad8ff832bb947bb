"""Call mutations: a sibling function or method, a dropped conversion, a range bound, the sort
order, swapped arguments."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from repofix.repair.offbyone import plus_minus_one
from repofix.repair.operators import negate
from repofix.repair.source import Edit, Mutation, SourceFile

CALL_GROUPS = [
    {"min", "max"},
    {"any", "all"},
    {"sorted", "reversed"},
    {"append", "extend"},
    {"floor", "ceil", "round"},
    {"lower", "upper", "swapcase"},
    {"isupper", "islower"},
    {"startswith", "endswith"},
    {"find", "rfind"},
    {"index", "rindex"},
    {"strip", "lstrip", "rstrip"},
    {"split", "rsplit"},
    {"isdigit", "isalpha", "isalnum"},
    {"keys", "values", "items"},
    {"ord", "chr"},
    {"sum", "len"},
    {"int", "float"},
    {"pop", "popleft"},
    {"remove", "discard"},
    {"insert", "append"},
    {"title", "capitalize"},
    {"list", "set", "sorted"},
]
UNWRAP = {"abs", "int", "float", "str", "list", "set", "tuple", "sorted", "reversed", "round", "bool", "len"}


def call(src: SourceFile, node: ast.Call) -> Iterator[Mutation]:
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if name is not None:
        fstart, fend = src.span(func)
        if isinstance(func, ast.Attribute):
            fstart = fend - len(name.encode())
        for group in CALL_GROUPS:
            if name in group:
                for other in sorted(group - {name}):
                    yield src.mutation("call", f"call {name} -> {other}", [Edit(fstart, fend, other)], 0.8)
        if (
            isinstance(func, ast.Name)
            and name in UNWRAP
            and len(node.args) == 1
            and not node.keywords
            and not isinstance(node.args[0], ast.Starred)  # `len(*a)` -> `*a` is no expression
        ):
            start, end = src.span(node)
            yield src.mutation(
                "unwrap-call", f"drop call {name}()", [Edit(start, end, src.segment(node.args[0]))], 0.45
            )
        if name == "range":
            for arg in node.args[:2]:
                yield from plus_minus_one(src, arg, 0.8, "range bound")
            if len(node.args) == 1:
                start = src.span(node.args[0])[0]
                yield src.mutation("off-by-one", "range from 1", [Edit(start, start, "1, ")], 0.6)
        if name in ("sorted", "sort"):
            reverse = [k for k in node.keywords if k.arg == "reverse"]
            if reverse:
                yield from negate(src, reverse[0].value, 0.8)
            else:
                end = src.span(node)[1] - 1
                sep = ", " if node.args or node.keywords else ""
                yield src.mutation(
                    "call", f"{name}(..., reverse=True)", [Edit(end, end, sep + "reverse=True")], 0.7
                )
    positional = [a for a in node.args if not isinstance(a, ast.Starred)]
    if len(positional) == len(node.args):
        yield from swap_adjacent(src, node.args, "swap-args", 0.5)


def swap_adjacent(src: SourceFile, items: list[ast.expr], op: str, prior: float) -> Iterator[Mutation]:
    for a, b in zip(items, items[1:], strict=False):
        if src.segment(a) != src.segment(b):
            yield src.mutation(
                op,
                f"swap {src.segment(a)} and {src.segment(b)}",
                [Edit(*src.span(a), src.segment(b)), Edit(*src.span(b), src.segment(a))],
                prior,
            )
