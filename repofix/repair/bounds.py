"""A bound a condition lacks: the other end of a range check, or the guard that keeps an index in
range. Missing bounds checks are among the commonest real bugs, and none of the other clause
builders makes one: their clauses are names (clauses.py), the module's other conditions
(clones.py) or a clause's twin (twins.py), and zero and a sequence's length are neither.

- the lower end, zero: `resolved >= length` -> `resolved < 0 or resolved >= length` (a value on
  the greater side of an ordering that says it is out of range), `i < n` -> `i >= 0 and i < n`
  (on the lesser side of one that says it is in range);
- the upper end, the length of what the function subscripts with the value: `index < 0` ->
  `index < 0 or index >= len(current)`, `index >= 0` -> `index >= 0 and index < len(current)`;
- the guard of a subscript by a name, give or take a constant: `keys[i] > key` -> `i >= 0 and
  keys[i] > key`, `text[i + 1] == '"'` -> `i + 1 < len(text) and text[i + 1] == '"'`, and in an
  `or` its negation: `... or tokens[i + 1].kind == END` -> `... or i + 1 >= len(tokens) or ...`.

Only clauses of one line on the lines asked for; the bound goes next to the clause it completes,
joined as the condition joins its clauses, and is never one the condition already has."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TypeGuard

from repofix.repair.numbers import numbers_of
from repofix.repair.source import Edit, Mutation, SourceFile, dotted

ORDERINGS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
# a check against zero and its other end: `index < 0 or index >= len(seq)`, `index >= 0 and index < len(seq)`
UPPER_ENDS = {ast.Lt: ("or", ">="), ast.GtE: ("and", "<")}
END, GUARD = 0.3, 0.25  # priors: a range's other end; a subscript's guard
MAX_GUARDS = 6  # guards tried per condition
MAX_SEQUENCES = 4  # lengths tried as a value's upper end: what it indexes first


class Ranges:
    """What a function indexes with and counts with, read once for all its conditions."""

    def __init__(self, func: ast.FunctionDef | ast.AsyncFunctionDef):
        self.indexed = _indexed(func)
        self.counted = set(numbers_of(func))  # a subscript's guard is for an index, not a key


def bound_clauses(
    src: SourceFile, test: ast.expr, ranges: Ranges, wanted: set[int] | None = None
) -> Iterator[Mutation]:
    """The bounds `test` lacks, per one-line clause of it (on one of `wanted` lines, when given)."""
    clauses = test.values if isinstance(test, ast.BoolOp) else [test]
    joins = {"and", "or"}  # a lone clause may be either kind of check
    if isinstance(test, ast.BoolOp):
        joins = {"and" if isinstance(test.op, ast.And) else "or"}
    has = {ast.dump(node) for node in ast.walk(test) if isinstance(node, ast.Compare)}
    guards: list[tuple[int, int, Mutation]] = []  # (form's rank, clause's, the guarded condition)
    for rank, clause in enumerate(clauses):
        if clause.lineno != clause.end_lineno or (wanted is not None and clause.lineno not in wanted):
            continue
        start, end = src.span(clause)
        written = src.segment(clause)
        for join, bound, after in _ends(clause, joins, ranges):
            if _compare(bound) not in has:
                yield _joined(src, written, start, end, join, bound, after, END)
        for join, bound in _guards(clause, joins, ranges.counted):
            if _compare(bound) not in has:
                # the join the condition has first: an `or` says what is out of range
                natural = 0 if join == ("or" if joins == {"or"} else "and") else 1
                guards.append((natural, rank, _joined(src, written, start, end, join, bound, False, GUARD)))
    yield from (m for _, _, m in sorted(guards, key=lambda g: g[:2])[:MAX_GUARDS])


def _joined(
    src: SourceFile, written: str, start: int, end: int, join: str, bound: str, after: bool, prior: float
) -> Mutation:
    """The clause `written` (bytes `start` to `end`) with `bound` joined before it, or `after`."""
    new = f"{written} {join} {bound}" if after else f"{bound} {join} {written}"
    edit = Edit(end, end, f" {join} {bound}") if after else Edit(start, start, f"{bound} {join} ")
    return src.mutation("add-clause", f"condition '{written}' -> '{new}'", [edit], prior)


def _ends(clause: ast.expr, joins: set[str], ranges: Ranges) -> Iterator[tuple[str, str, bool]]:
    """(join, the other end, after the clause?) of a range `clause` checks at one end."""
    if not (isinstance(clause, ast.Compare) and len(clause.ops) == 1 and type(clause.ops[0]) in ORDERINGS):
        return
    left, right, op = clause.left, clause.comparators[0], clause.ops[0]
    if any(isinstance(s, ast.Constant) and not _is_int(s.value) for s in (left, right)):
        return  # `char < " "` orders text: it has no zero end
    greater_op = isinstance(op, (ast.Gt, ast.GtE))  # the left side is the greater
    greater, lesser = (left, right) if greater_op else (right, left)
    if _zero(right) and type(op) in UPPER_ENDS and (value := dotted(left)):
        join, compared = UPPER_ENDS[type(op)]
        if join in joins:  # `index < 0` is out of range below; above, past the end of what it indexes
            yield from (
                (join, f"{value} {compared} len({seq})", True)
                for seq in ranges.indexed.get(value, [])[:MAX_SEQUENCES]
            )
        return
    if _constant_at_most_zero(lesser) or _constant_at_most_zero(greater):
        return  # `n > 0`, `0 < n`: the lower end is the check itself
    if (value := dotted(greater)) and "or" in joins:
        yield "or", f"{value} < 0", False  # `resolved >= length` is out of range above; below zero too
    if (value := dotted(lesser)) in ranges.counted and "and" in joins:
        yield "and", f"{value} >= 0", False  # `i < n` is in range above; from zero too (a count's)


def _guards(clause: ast.expr, joins: set[str], counted: set[str]) -> Iterator[tuple[str, str]]:
    """(join, guard) per subscript of `clause` by a name the function counts with, give or take a
    constant: the guard keeps it in range (`and`), or in an `or` says it is out of range."""
    seen: set[str] = set()
    for node in ast.walk(clause):
        if not (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)):
            continue
        seq, index = dotted(node.value), _offset_index(node.slice)
        if not seq or index is None or index[0] not in counted:
            continue
        name, offset = index
        position = f"{name} + {offset}" if offset > 0 else f"{name} - {-offset}" if offset < 0 else name
        forms = []
        if offset >= 0:  # an index counted up runs past the end
            forms += [("and", f"{position} < len({seq})"), ("or", f"{position} >= len({seq})")]
        if offset <= 0:  # one counted down runs below zero
            bound = f"{name} >= {-offset}" if offset else f"{name} >= 0"
            forms += [("and", bound), ("or", f"{name} < {-offset}" if offset else f"{name} < 0")]
        for join, guard in forms:
            if guard not in seen and (join in joins or (join == "and" and joins == {"or"})):
                seen.add(guard)  # an `and` guard binds tighter than the `or` it goes in: `a or g and b`
                yield join, guard


def _compare(bound: str) -> str:
    """The tree of `bound`, to tell whether a condition has it: as a comparison, not as text
    (`n < 0` is not in `min < 0`; `i>=0` is `i >= 0`)."""
    return ast.dump(ast.parse(bound, mode="eval").body)


def _offset_index(index: ast.expr) -> tuple[str, int] | None:
    """`i` -> ("i", 0), `i + 1` -> ("i", 1), `i - 2` -> ("i", -2); None for anything else."""
    if isinstance(index, ast.Name):
        return index.id, 0
    if (
        isinstance(index, ast.BinOp)
        and isinstance(index.op, (ast.Add, ast.Sub))
        and isinstance(index.left, ast.Name)
        and isinstance(index.right, ast.Constant)
        and _is_int(index.right.value)
        and index.right.value > 0
    ):
        return index.left.id, index.right.value if isinstance(index.op, ast.Add) else -index.right.value
    return None


def _indexed(func: ast.AST) -> dict[str, list[str]]:
    """Per name, the sequences the function subscripts with it (`current[index]`), in order."""
    found: dict[str, list[str]] = {}
    for node in ast.walk(func):
        if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name)):
            continue
        if (seq := dotted(node.value)) and seq not in found.setdefault(node.slice.id, []):
            found[node.slice.id].append(seq)
    return found


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _zero(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and _is_int(node.value) and node.value == 0


def _constant_at_most_zero(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return isinstance(node.operand, ast.Constant) and _is_int(node.operand.value)
    return isinstance(node, ast.Constant) and _is_int(node.value) and node.value <= 0
