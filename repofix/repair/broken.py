"""A `raise` that cannot raise: Python 3 raises only exceptions, so a failing test's TypeError at
`raise "need two points"` (a string, a name bound to one, a class that wants arguments) is a fault
the program states itself, at that line. A plausible patch elsewhere passes by not reaching it: a
guard's `< 2 -> < 1` lets `statistics.stdev` raise the ValueError the test expects, and the broken
statement stays for the next input that reaches it. On the held-aside sets heldout19 to heldout47,
50 lost exception wrappers (`ValueError(msg) -> msg`) were planted; all 4 claimed wrong were such
bypasses (a guard one line above), each while the patch that mends the `raise` passed the tests too,
and 8 more, their best patch right, were held back for plausible patches at other lines."""

from __future__ import annotations

import ast

from repofix.repair.source import Mutation, SourceFile

TEXT_MAKERS = ("format", "join")  # methods whose value is a string
Span = tuple[str, int, int]  # path, start and end byte offsets of a `raise` statement


def broken_raises(sources: dict[str, SourceFile], lines: set[tuple[str, int]]) -> list[Span]:
    """The `raise` statements holding one of `lines` (where a failing test's TypeError was raised,
    its deepest source frame) that raise what evaluating cannot have failed on: a TypeError there
    is the raise itself refusing a value that is no exception. Not one that calls something (the
    call may have raised it: `raise ValueError(len(n))`, for an `n` gone wrong upstream) but one
    that makes text (`"...".format(...)`): the statement raises a string either way."""
    spans = []
    for path, line in sorted(lines):
        src = sources.get(path)
        if src is None:
            continue
        for node in ast.walk(src.tree):
            if (
                isinstance(node, ast.Raise)
                and node.lineno <= line <= (node.end_lineno or node.lineno)
                and _cannot_raise(node)
            ):
                spans.append((path, *src.span(node)))
    return spans


def _cannot_raise(node: ast.Raise) -> bool:
    exc = node.exc
    if isinstance(exc, (ast.Constant, ast.JoinedStr)):  # `raise "text"`, `raise f"..."`: never an exception
        return True
    if isinstance(exc, ast.BinOp) and isinstance(exc.left, (ast.Constant, ast.JoinedStr)):
        return True  # `raise "bad %r" % x`: a string, or the formatting's own TypeError, both here
    if isinstance(exc, ast.Call) and isinstance(exc.func, ast.Attribute) and exc.func.attr in TEXT_MAKERS:
        return True  # `raise "bad {}".format(x)`, `raise msg.format(x)`: text whatever raised
    parts = [p for p in (exc, node.cause) if p is not None]
    return isinstance(exc, (ast.Name, ast.Attribute)) and not any(
        isinstance(n, ast.Call) for part in parts for n in ast.walk(part)
    )


def mends(mutation: Mutation, broken: list[Span]) -> bool:
    """It changes a broken `raise` and does more than remove code (deleting it is no repair)."""
    return not mutation.removes_only and any(
        path == mutation.path
        and any(e.start < end and e.end > start or start <= e.start < end for e in mutation.edits)
        for path, start, end in broken
    )


def mending(
    choices: list[Mutation], found: list[Mutation], broken: list[Span]
) -> tuple[list[Mutation], list[Mutation]]:
    """The plausible patches (the choices, one of which is given, and all found) left to weigh: when
    one mends a broken `raise`, only those that do; a patch that leaves it passes by going round
    it, so it is neither given nor a rival of one that mends it, nor another place that could be
    right. Scouts that mend it become choices when no choice does. Otherwise all, as found."""
    kept = [m for m in found if mends(m, broken)]
    if not kept:
        return choices, found
    return [m for m in choices if m in kept] or kept, kept
