"""A condition that is one half of a condition elsewhere in the module: `match is None` where
another function tests `match is None or match(path_str, pos)`. Code written twice is usually
written alike, so the missing clause is likely the other's, its locals renamed to this function's
(`path_str` -> `entry_path_str`, the local that ends the same way), or a clause of the same shape
the module tests (`handler.get_episode_attr(self.key)` -> `handler.get_podcast_attr(self.key)`)."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from dataclasses import dataclass

from repofix.repair.source import Edit, Mutation, SourceFile

RENAMED = 0.45  # the other's clause, its locals renamed to this function's
SHAPED = 0.4  # a clause the module tests that is built as the other's is
VERBATIM = 0.35  # the other's clause as it is
MAX_SHAPED = 8
MAX_ECHOES = 8  # per condition, the likeliest: a module of 300 functions testing `x is None or ...`
# clauses that do not join bare: `a and (b or c)`, `(yield) or a`
UNJOINABLE = (ast.BoolOp, ast.IfExp, ast.NamedExpr, ast.Lambda, ast.Yield, ast.YieldFrom)


@dataclass(frozen=True)
class Echo:
    """`clause` joined by `op` to the half (`first`: the half comes first); `locals` the names
    bound in the function the condition is in."""

    op: str
    clause: ast.expr
    first: bool
    locals: frozenset[str]


@dataclass(frozen=True)
class Conditions:
    echoes: dict[str, list[Echo]]  # a clause's text -> the conditions it is one half of
    shapes: dict[str, list[str]]  # a clause's shape -> the texts of the clauses of that shape


def _shape(node: ast.expr) -> str:
    """`handler.get_attr(self.key)` and `h.get_other(self.k)` share a shape: names and attributes
    blanked out, constants kept."""
    copy = ast.parse(ast.unparse(node), mode="eval").body
    for part in ast.walk(copy):
        if isinstance(part, ast.Name):
            part.id = "_"
        elif isinstance(part, ast.Attribute):
            part.attr = "_"
    return ast.dump(copy)


@functools.lru_cache(maxsize=8)  # keyed by the tree itself (held while cached); only copies are changed
def conditions_of(tree: ast.Module) -> Conditions:
    echoes: dict[str, list[Echo]] = {}
    shapes: dict[str, list[str]] = {}
    functions = [f for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
    # innermost first (the walk meets a nested function after its outer one): a condition is kept
    # once, with the locals of the function it is in, not of one around it that binds the names
    # it reads from its closure (`match`)
    for func in reversed(functions):
        bound = frozenset(
            [a.arg for a in ast.walk(func.args) if isinstance(a, ast.arg)]
            + [n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
        )
        for node in ast.walk(func):
            test = node.test if isinstance(node, (ast.If, ast.While, ast.IfExp)) else None
            if test is None:
                continue
            for clause in test.values if isinstance(test, ast.BoolOp) else [test]:
                if isinstance(clause, (ast.Compare, ast.Call, ast.Attribute, ast.UnaryOp)):
                    texts = shapes.setdefault(_shape(clause), [])
                    if ast.unparse(clause) not in texts:
                        texts.append(ast.unparse(clause))
            if not isinstance(test, ast.BoolOp) or len(test.values) != 2:
                continue
            op = " and " if isinstance(test.op, ast.And) else " or "
            a, b = test.values
            for half, other, first in ((a, b, False), (b, a, True)):
                known = echoes.setdefault(ast.unparse(half), [])
                if not any(e.clause is other for e in known):
                    known.append(Echo(op, other, first, bound))
    for known in echoes.values():
        known.sort(key=lambda e: (e.clause.lineno, e.clause.col_offset))  # in the module's order
    return Conditions(echoes, shapes)


def _renamed(clause: ast.expr, theirs: frozenset[str], ours: set[str]) -> str | None:
    """`clause` with each of its locals that this function lacks renamed to the one local here
    ending as it does (`path_str` -> `entry_path_str`); None when one has no such local."""
    copy = ast.parse(ast.unparse(clause), mode="eval").body
    for name in ast.walk(copy):
        if not isinstance(name, ast.Name) or name.id in ours or name.id not in theirs:
            continue
        like = [n for n in ours if n.endswith("_" + name.id) or name.id.endswith("_" + n)]
        if len(like) != 1:
            return None
        name.id = like[0]
    return ast.unparse(copy)


def echo_clauses(src: SourceFile, test: ast.expr, ours: set[str]) -> Iterator[Mutation]:
    """`test` (a whole condition of one line) joined to the other half of each condition of the
    module it is a half of; `ours` the names the function binds."""
    if isinstance(test, UNJOINABLE) or test.lineno != test.end_lineno:
        return
    found = conditions_of(src.tree)
    text = src.segment(test)
    start, end = src.span(test)
    made: dict[str, float] = {}
    for echo in found.echoes.get(ast.unparse(test), []):
        if isinstance(echo.clause, UNJOINABLE):
            continue  # `a and (b or c)`: kept to plain clauses, that join without parentheses
        verbatim = ast.unparse(echo.clause)
        renamed = _renamed(echo.clause, echo.locals, ours)
        options = [(renamed, RENAMED)] if renamed is not None else []
        foreign = {n.id for n in ast.walk(echo.clause) if isinstance(n, ast.Name)} & (echo.locals - ours)
        if not foreign:
            options.append((verbatim, VERBATIM))
        like = [t for t in found.shapes.get(_shape(echo.clause), []) if t not in (verbatim, renamed)]
        options += [(t, SHAPED) for t in like[:MAX_SHAPED]]
        for clause, prior in options:
            if clause is None or clause == text:
                continue
            joined = f"{clause}{echo.op}{text}" if echo.first else f"{text}{echo.op}{clause}"
            made[joined] = max(prior, made.get(joined, 0.0))
    for joined, prior in sorted(made.items(), key=lambda m: -m[1])[:MAX_ECHOES]:
        yield src.mutation(
            "echo-clause", f"condition '{text}' -> '{joined}'", [Edit(start, end, joined)], prior
        )
