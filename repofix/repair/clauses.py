"""A clause a condition lacks, made of the names and attributes the function reads: `x is None or
T`, `T or not items`, `T and x`, `while True` -> `while queue`, and a name added to an `and`/`or`
that forgot one it lists. Comparisons and calls come from the module's other conditions (clones.py),
twins of a clause (twins.py), sibling questions (siblings.py) and guards (guards.py).

A new `and` keeps an `or` it joins in parentheses, and a new operand of an `and`/`or` goes outside an
operand's parentheses: `flag and a or b` is `(flag and a) or b`, not `flag and (a or b)`.

A guard of a bound that may be `None` is `x is not None and n < x`, not `x and n < x`: the two pass
the same tests unless one passes 0, and the shorter one ranked first (cion's lost `minimum is not
None and`, heldout61, was claimed as `minimum and`, which skips a minimum of 0). Of the 11 guards of
an ordering by the name it orders that the held-aside sets' bugs were planted in, 9 were `is not
None`. So where the module says the name may be `None` (a parameter of that name defaults to it,
or the module tests it with `is None`/`is not None`), the truthiness forms rank below (`misfit`),
and so does `x is None or n < x` before a `raise`: a bound that may be None is optional, and an
optional bound does not raise when it is absent (cion's second, planted in `if ...: raise`, was
claimed as `minimum is None or` once `minimum and` ranked below)."""

from __future__ import annotations

import ast
import functools
import itertools
import re
from collections.abc import Iterator

from repofix.repair.numbers import with_defaults
from repofix.repair.scope import Scope
from repofix.repair.source import ATOMS, Edit, Mutation, SourceFile


def add_operand_to_boolop(src: SourceFile, node: ast.BoolOp, scope: Scope) -> Iterator[Mutation]:
    """`a or b` -> `a or c or b`: a condition that forgot one of the names it lists."""
    op = " or " if isinstance(node.op, ast.Or) else " and "
    present = {src.segment(v) for v in node.values}
    for name in scope.tests:
        if name in present:
            continue
        for at in _between_operands(src, node):
            yield src.mutation(
                "add-clause", f"add '{name}' to '{src.segment(node)}'", [Edit(at, at, name + op)], 0.3
            )
        end = src.span(node)[1]
        yield src.mutation(
            "add-clause", f"add '{name}' to '{src.segment(node)}'", [Edit(end, end, op + name)], 0.3
        )


def _between_operands(src: SourceFile, node: ast.BoolOp) -> Iterator[int]:
    """Where a new operand goes before each of `node`'s: outside the parentheses of an operand that
    is itself an `and`/`or` (inside them, `(c and a or b) and d` is not `c and (a or b) and d`):
    at the start of the whole condition, then after each `and`/`or` keyword."""
    yield src.span(node)[0]
    keyword = "or" if isinstance(node.op, ast.Or) else "and"
    for left, right in itertools.pairwise(node.values):
        gap_start, gap_end = src.span(left)[1], src.span(right)[0]
        gap = src.data[gap_start:gap_end].decode()
        code = re.sub(r"#[^\n]*", lambda m: " " * len(m.group()), gap)  # no keyword in a comment
        found = re.search(rf"\b{keyword}\b\s*", code)
        if found is not None:
            yield gap_start + len(gap[: found.end()].encode())


def joinable(src: SourceFile, test: ast.expr) -> tuple[str, str, str]:
    """A condition's text, as an operand of a new `or` (`inner`) and of a new `and` (`conjunct`):
    an `or` joined by a new `and` keeps its parentheses, as `flag and a or b` is `(flag and a) or b`,
    not the `flag and (a or b)` ehviewer-parser's planted lost guard (heldout33) needed."""
    text = src.segment(test)
    inner = text if isinstance(test, (*ATOMS, ast.Compare, ast.UnaryOp, ast.BoolOp)) else f"({text})"
    conjunct = f"({text})" if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) else inner
    return text, inner, conjunct


def add_clause(src: SourceFile, test: ast.expr, scope: Scope, *, raises: bool = False) -> Iterator[Mutation]:
    """`x is None or T`, `T or not items`, `T and x`...; `while True` -> `while queue`. `raises`: the
    condition is an `if` whose body starts with a `raise`; a bound that may be None raising when it
    is None (`x is None or n < x`) would not be optional."""
    start, end = src.span(test)
    if isinstance(test, ast.Constant) and test.value is True:
        for name in scope.tests:
            yield src.mutation("add-clause", f"condition True -> {name}", [Edit(start, end, name)], 0.5)
        return
    text, inner, conjunct = joinable(src, test)
    mentioned = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
    # names the condition orders that may be None: their truthiness guards are misfits, and so is
    # `x is None or` before a raise
    bounds = ordered_names(test) & maybe_none(src.tree)
    names = [n for n in scope.tests if n in mentioned] + [n for n in scope.tests if n not in mentioned]
    for name in (n for n in names if n != text):  # `matches and not matches` is only ever false
        near = 0.1 if name in mentioned else 0.0  # a name the condition already uses comes first
        for new, prior in (
            (f"{name} is None or {inner}", 0.35),
            (f"{inner} or not {name}", 0.35),
            (f"not {name} or {inner}", 0.3),
            (f"{conjunct} and {name}", 0.3),
            (f"{conjunct} and not {name}", 0.25),
            (f"{inner} or {name}", 0.25),
            (f"{name} is not None and {conjunct}", 0.3),
            (f"{name} and {conjunct}", 0.3),  # a guard: `prefix and prefix[0] == "<"`
            (f"not {name} and {conjunct}", 0.25),
        ):
            misfit = name in bounds and (
                new.startswith((f"{name} and ", f"not {name} or "))
                or (raises and new.startswith(f"{name} is None or "))
            )
            yield src.mutation(
                "add-clause",
                f"condition '{text}' -> '{new}'",
                [Edit(start, end, new)],
                prior + near,
                misfit=misfit,
            )
    # an attribute the function reads: `x.indent is not None and T`, `T or item.isValue`; one the
    # condition reads guards it (`self._values and len(values) != len(self._values)`)
    for value in (v for v in scope.values if "." in v):
        if re.search(rf"(?<![\w.]){re.escape(value)}(?!\w)", text):
            forms = [(f"{value} and {conjunct}", 0.35), (f"{value} is not None and {conjunct}", 0.35)]
        else:
            forms = [(f"{value} is not None and {conjunct}", 0.2), (f"{inner} or {value}", 0.2)]
            forms += [(f"{value} and {conjunct}", 0.2)]
        for new, prior in forms:
            yield src.mutation("add-clause", f"condition '{text}' -> '{new}'", [Edit(start, end, new)], prior)


ORDERINGS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def ordered_names(test: ast.expr) -> set[str]:
    """The names a side of an ordering in `test` is (`len(value) < minimum`: minimum)."""
    return {
        side.id
        for node in ast.walk(test)
        if isinstance(node, ast.Compare) and any(isinstance(op, ORDERINGS) for op in node.ops)
        for side in (node.left, *node.comparators)
        if isinstance(side, ast.Name)
    }


@functools.lru_cache(maxsize=8)  # keyed by the tree itself (held while cached, so never confused)
def maybe_none(module: ast.Module) -> frozenset[str]:
    """The names the module says may be None: a parameter that defaults to None (in any function),
    a name it tests with `is None` or `is not None`."""
    found: set[str] = set()
    for node in ast.walk(module):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for arg, default in with_defaults(node):
                if isinstance(default, ast.Constant) and default.value is None:
                    found.add(arg.arg)
        elif isinstance(node, ast.Compare) and isinstance(node.left, ast.Name):
            nones = [
                isinstance(op, (ast.Is, ast.IsNot)) and isinstance(c, ast.Constant) and c.value is None
                for op, c in zip(node.ops, node.comparators, strict=True)
            ]
            if any(nones):
                found.add(node.left.id)
    return frozenset(found)
