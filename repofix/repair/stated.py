"""A condition whose message states the check it lost: the text a branch raises or reports says what
the condition is for, so a clause it lacks can be read from it.

- "must be a positive integer" under `if not isinstance(n, int):` -> `... or n <= 0`;
- "must be non-negative" -> `x < 0`;
- "must be at least {config.min} characters" under `if config.min is not None:` -> `... and
  len(val) < config.min` (the value the branch reports on, bound just before it);
- "at most N", "cannot exceed N" -> `x > N`; "must be 1..255" under `if size <= 0:` -> `... or
  size > 255`.

Written from three lost clauses whose messages said them (potatonumpy's identity matrix and
payloadguard's string length, heldout38; ihexsrec's record size, heldout34), none of which an
operator made: a bound is made of a number or an expression no other condition of the module holds.
A condition gets a few candidates a message, each its own bound on a name it or the lines just
before it read."""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Iterator
from typing import TypeGuard

from repofix.repair.facts import BUILTIN_NAMES
from repofix.repair.scope import Scope
from repofix.repair.source import Edit, Mutation, SourceFile

STATED = 0.5
MAX_SUBJECTS = 3  # names a bound is tried on: those the condition reads, then the nearest bound
NEAREST_LINES = 3
STATEMENTS = 3  # the branch's first statements searched for the message
MAX_BOUNDS = 4  # bounds read from one message: a text listing a thousand makes no thousand candidates
# a bound's value: a number or a `{placeholder}` of an f-string
VALUE = r"(-?\d+(?:\.\d+)?|\{[^{}]+\})"
COUNTED = r"(?:characters?|chars?|items?|elements?|entries|values|bytes|long|in length)"
RANGE = ("{x} > {b}", "{x} < {a}", "{x} < {a} or {x} > {b}")  # the side a condition lost, or both
BOUNDS: list[tuple[re.Pattern[str], tuple[str, ...]]] = [
    (re.compile(r"\bnon[- ]?negative\b", re.IGNORECASE), ("{x} < 0",)),
    (re.compile(r"(?<![-\w])positive\b", re.IGNORECASE), ("{x} <= 0",)),
    (re.compile(rf"\bat least {VALUE}", re.IGNORECASE), ("{x} < {a}",)),
    (
        re.compile(rf"\b(?:at most|no more than|(?:cannot|must not|may not) exceed) {VALUE}", re.IGNORECASE),
        ("{x} > {a}",),
    ),
    (re.compile(rf"\bbetween {VALUE} and {VALUE}", re.IGNORECASE), RANGE),
    (re.compile(rf"(?<![\w.]){VALUE}\s*(?:\.\.|\u2026)\s*{VALUE}"), RANGE),
]


def stated_clauses(src: SourceFile, node: ast.If, scope: Scope) -> Iterator[Mutation]:
    """`node`'s condition joined to each bound its branch's message states, on each name it may be
    about (`_subjects`); none the condition holds already."""
    message = _message(node.body[:STATEMENTS])
    test = node.test
    if message is None or "\n" in src.segment(test):
        return
    whole = ast.dump(test)
    start, end = src.span(test)
    made: set[str] = set()
    for clause, counted, values in _bounds(message):
        for subject in _subjects(test, node, scope, counted, values):
            new = clause.replace("{x}", subject)
            try:
                tree = ast.parse(new, mode="eval").body
            except SyntaxError:
                continue
            if ast.dump(tree) in whole:
                continue
            for joined in _joined(src, test, new, tree):
                if joined not in made:
                    made.add(joined)
                    yield src.mutation(
                        "add-stated",
                        f"condition '{src.segment(test)}' -> '{joined}' (as its message says)",
                        [Edit(start, end, joined)],
                        STATED,
                    )


def _message(body: list[ast.stmt]) -> str | None:
    """The text of the strings and f-strings the statements hold (an f-string's placeholders kept
    as `{expr}`), joined; None when they hold none."""
    nodes = [n for stmt in body for n in ast.walk(stmt)]
    parts_of_fstrings = {id(v) for n in nodes if isinstance(n, ast.JoinedStr) for v in n.values}
    parts = [
        _text(n)
        for n in nodes
        if isinstance(n, ast.JoinedStr)
        or (isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in parts_of_fstrings)
    ]
    return " ".join(parts) or None


def _text(node: ast.expr) -> str:
    """A string's text; an f-string's with `{expr}` for each placeholder."""
    if isinstance(node, ast.Constant):
        return str(node.value)
    if isinstance(node, ast.FormattedValue):
        return "{" + ast.unparse(node.value) + "}"
    assert isinstance(node, ast.JoinedStr)
    return "".join(_text(v) for v in node.values)


def _bounds(message: str) -> Iterator[tuple[str, bool, list[str]]]:
    """(a clause with `{x}` for its subject, whether the message counts the subject's items, the
    bound's values) per bound the message states."""
    matches = [
        (found, clauses)
        for pattern, clauses in BOUNDS
        for found in itertools.islice(pattern.finditer(message), MAX_BOUNDS)
    ]
    for found, clauses in sorted(matches, key=lambda m: m[0].start())[:MAX_BOUNDS]:  # the first in the text
        values = [v[1:-1] if v.startswith("{") else v for v in found.groups()] or [""]
        counted = re.match(rf"\s*{COUNTED}\b", message[found.end() :], re.IGNORECASE) is not None
        for clause in clauses:
            yield clause.replace("{a}", values[0]).replace("{b}", values[-1]), counted, values


def _subjects(test: ast.expr, node: ast.If, scope: Scope, counted: bool, values: list[str]) -> list[str]:
    """What a bound may be on: the names and attributes `test` reads but calls (a `len(x)` as it
    is) and the bound's own `values`, or, when it reads none else, the names bound on the lines
    nearest before the branch (`val` of `if config.min is not None:` under "at least
    {config.min}"); each in `len()` when the message counts items and the condition does not
    measure it already."""
    skipped = {id(n.func) for n in ast.walk(test) if isinstance(n, ast.Call)}  # callees
    skipped |= {id(n.value) for n in ast.walk(test) if isinstance(n, ast.Attribute)}  # a chain's inner links
    read = [n for n in ast.walk(test) if isinstance(n, (ast.Name, ast.Attribute)) and id(n) not in skipped]
    names = [ast.unparse(n) for n in read if not (isinstance(n, ast.Name) and _kind_or_builtin(n.id))]
    names = [n for n in names if n not in values]
    if not names:
        before = [n for n in scope.names if scope.bound.get(n, node.lineno) < node.lineno]
        lines = sorted({scope.bound[n] for n in before}, reverse=True)[:NEAREST_LINES]
        names = sorted((n for n in before if scope.bound[n] in lines), key=lambda n: -scope.bound[n])
    measured = {ast.unparse(n.args[0]) for n in ast.walk(test) if _is_len(n)}
    out = [f"len({n})" if counted and n not in measured else n for n in dict.fromkeys(names)]
    return list(dict.fromkeys(out))[:MAX_SUBJECTS]


def _kind_or_builtin(name: str) -> bool:
    """`int` of `isinstance(n, int)`, a class (`Config`): no value a bound is on."""
    return name in BUILTIN_NAMES or name[:1].isupper()


def _is_len(node: ast.AST) -> TypeGuard[ast.Call]:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "len"
        and len(node.args) == 1
    )


def _joined(src: SourceFile, test: ast.expr, new: str, tree: ast.expr) -> list[str]:
    """`test` joined to `new`: by `or` (the branch runs when either check fails), and by `and`
    after a test that the bound's value or subject is there (`config.min is not None`)."""
    old = src.segment(test)
    right = f"({new})" if isinstance(tree, ast.BoolOp) else new
    op = type(test.op) if isinstance(test, ast.BoolOp) else None
    # an `and` before `or` grouped for the reader; an `or` before `and` grouped, as it must be
    out = [f"({old}) or {right}" if op is ast.And else f"{old} or {right}"]
    if _presence(test, tree):
        out.append(f"({old}) and {right}" if op is ast.Or else f"{old} and {right}")
    return out


def _presence(test: ast.expr, tree: ast.expr) -> bool:
    """`test` checks that something the new clause reads is there: `x is not None`, `x` alone."""
    read = {ast.dump(n) for n in ast.walk(tree) if isinstance(n, (ast.Name, ast.Attribute))}
    checks = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    for check in checks:
        if isinstance(check, (ast.Name, ast.Attribute)) and ast.dump(check) in read:
            return True
        if (
            isinstance(check, ast.Compare)
            and len(check.ops) == 1
            and isinstance(check.ops[0], ast.IsNot)
            and isinstance(check.comparators[0], ast.Constant)
            and check.comparators[0].value is None
            and ast.dump(check.left) in read
        ):
            return True
    return False
