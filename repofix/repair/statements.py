"""Statement-level operators (negate / drop a condition, remove a statement, return early, flip
boolean returns) and variable swaps among names in scope."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from repofix.repair.facts import BUILTIN_NAMES, parameters
from repofix.repair.operators import negate
from repofix.repair.source import Edit, Mutation, SourceFile

NEAR = 3  # lines: a name used this close to a read is a likely replacement for it
REMOVABLE = (
    ast.Assign,
    ast.AugAssign,
    ast.AnnAssign,
    ast.Expr,
    ast.If,
    ast.For,
    ast.While,
    ast.Break,
    ast.Continue,
    ast.Raise,
    ast.Delete,
    ast.With,
    ast.Try,
)


def if_statement(src: SourceFile, node: ast.If | ast.While) -> Iterator[Mutation]:
    yield from negate(src, node.test, 0.7)
    start, end = src.span(node.test)
    if isinstance(node, ast.If):  # drop the condition: the branch always (never) runs
        yield src.mutation(
            "drop-condition", f"condition '{src.segment(node.test)}' -> True", [Edit(start, end, "True")], 0.3
        )
        yield src.mutation(
            "drop-condition",
            f"condition '{src.segment(node.test)}' -> False",
            [Edit(start, end, "False")],
            0.25,
        )


def remove_statement(src: SourceFile, node: ast.stmt, docstring: bool) -> Iterator[Mutation]:
    if not isinstance(node, REMOVABLE) or docstring:
        return
    start, end = src.span(node)
    first = src.segment(node).splitlines()[0].strip()
    prior = 0.45 if isinstance(node, ast.If) else 0.4
    # an exit (raise, break, continue) has an operator of its own: a patch that only deletes one is
    # never claimed (see Mutation.deletes_exit)
    op = "remove-exit" if isinstance(node, (ast.Raise, ast.Break, ast.Continue)) else "remove-statement"
    yield src.mutation(op, f"remove '{first}'", [Edit(start, end, "pass")], prior)


def return_early(
    src: SourceFile, body: list[ast.stmt], func: ast.FunctionDef | ast.AsyncFunctionDef
) -> Iterator[Mutation]:
    """Insert the function's final `return X` right after a loop or an if block that precedes it."""
    final = func.body[-1]
    if not isinstance(final, ast.Return) or final.value is None:
        return
    for stmt in body:
        if stmt is final or not isinstance(stmt, (ast.If, ast.For, ast.While, ast.Assign, ast.AugAssign)):
            continue
        if isinstance(stmt, (ast.For, ast.While)) and stmt.body:
            last = stmt.body[-1]
            start = src.span(last)[1]
            indent = src.indent(last)
            yield src.mutation(
                "return-early",
                f"return {src.segment(final.value)} at end of loop body",
                [Edit(start, start, f"\n{indent}return {src.segment(final.value)}")],
                0.3,
            )


def flip_bool_returns(src: SourceFile, func: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[Mutation]:
    """`return True` <-> `return False` everywhere in one function (a swapped pair of outcomes)."""
    edits = []
    for node in ast.walk(func):
        if (
            isinstance(node, ast.Return)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, bool)
        ):
            edits.append(Edit(*src.span(node.value), str(not node.value.value)))
    if len(edits) >= 2:
        yield src.mutation("flip-returns", f"swap every True/False return in {func.name}", edits, 0.6)


def local_names(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    names = set(parameters(func))
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def variable_swaps(
    src: SourceFile, func: ast.FunctionDef | ast.AsyncFunctionDef, lines: set[int] | None = None
) -> Iterator[Mutation]:
    """Replace a name that is read with another local of the function; never a called name. A
    wrong name is mostly one used a few lines away: those come first, the function's other locals
    later (below the clause and statement operators, which a long function's swaps crowded out).
    Only the reads on `lines` when given: a long function's reads times its locals run to millions."""
    names = local_names(func)
    called = {n.func.id for n in ast.walk(func) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    pool = sorted(names - called - BUILTIN_NAMES - {"self", "cls"})
    seen: dict[str, list[int]] = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Name):
            seen.setdefault(node.id, []).append(node.lineno)
        elif isinstance(node, ast.arg):
            seen.setdefault(node.arg, []).append(node.lineno)
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and node.id in pool and (lines is None or node.lineno in lines):
            start, end = src.span(node)
            for other in pool:
                if other != node.id:
                    near = any(abs(line - node.lineno) <= NEAR for line in seen.get(other, ()))
                    yield src.mutation(
                        "variable",
                        f"variable {node.id} -> {other}",
                        [Edit(start, end, other)],
                        0.5 if near else 0.25,
                    )
