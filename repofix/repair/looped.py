"""What a loop binds before a line on every path to it, for an unfilled collection's filling that
records one pass of the loop (unfilled.py): `output.append((t, v))` after `t = ...` and `v = ...`
(jtlvi's decoder, heldout54). Only names bound before the line in the blocks that hold it count: a
name bound in another branch, after the line, in the loop's `else:` or in a nested function, class,
lambda or comprehension may be unbound there (an UnboundLocalError, not a fix)."""

from __future__ import annotations

import ast

from repofix.repair.source import NESTED, own_scope, own_scopes

Loop = ast.For | ast.AsyncFor | ast.While
MAX_PAIRED = 4  # names the loop binds that make pairs, those bound last before the statement


def innermost_loops(func: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[int, Loop]:
    """Each line of a statement of the body of one of `func`'s own loops (not its `else:`) -> the
    innermost loop whose body holds it."""
    found: dict[int, Loop] = {}
    loops = sorted(
        (n for n in own_scope(func) if isinstance(n, (ast.For, ast.AsyncFor, ast.While))),
        key=lambda n: n.lineno,
    )
    for loop in loops:  # an inner loop starts later and is walked later: it overwrites its outer one
        for s in own_scopes(loop.body):
            if isinstance(s, ast.stmt):
                found[s.lineno] = loop
    return found


def loop_bound(loop: Loop, line: int) -> list[str]:
    """The plain names `loop`'s header binds and the statements before `line` in each block of its
    body that holds the line, in the order they are last bound there."""
    # a `for`'s target, a `while`'s walrus (`while (chunk := read()):`)
    before: list[ast.AST] = [loop.target if isinstance(loop, (ast.For, ast.AsyncFor)) else loop.test]
    block: list[ast.stmt] = loop.body
    while block:  # down the blocks that hold the line, keeping the statements that end before it
        holder = None
        for stmt in block:
            if (stmt.end_lineno or stmt.lineno) < line:
                before.append(stmt)
            else:
                holder = stmt if stmt.lineno < line else None
                break
        if holder is None or isinstance(holder, NESTED):
            break
        block = next((b for b in _blocks(holder) if b and b[0].lineno <= line <= (b[-1].end_lineno or 0)), [])
    stores = [n for n in own_scopes(before) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    last = {n.id: (n.lineno, n.col_offset) for n in sorted(stores, key=lambda n: (n.lineno, n.col_offset))}
    return sorted(last, key=last.__getitem__)


def _blocks(stmt: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists a compound statement holds."""
    blocks = [getattr(stmt, field, None) for field in ("body", "orelse", "finalbody")]
    blocks += [h.body for h in getattr(stmt, "handlers", [])] + [c.body for c in getattr(stmt, "cases", [])]
    return [b for b in blocks if isinstance(b, list)]


def pairs(names: list[str]) -> list[str]:
    """Pairs of the last MAX_PAIRED `names`, in their order first: `(t, v)`, then `(v, t)`."""
    kept = names[-MAX_PAIRED:]
    ordered = [(a, b) for i, a in enumerate(kept) for b in kept[i + 1 :]]
    return [f"({a}, {b})" for a, b in [*ordered, *((b, a) for a, b in ordered)]]
