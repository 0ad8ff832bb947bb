"""Collections a function makes empty, reads, and never fills: `used_skip_tokens = []`, looped over
further down, but appended to nowhere. Working code seldom holds one: 12 of the 16,658 functions of
the twenty-one held-aside sets' projects do (6 of them pycparser's generated `children()`, whose
empty list is the answer), while 19 of their 171 planted missing statements left the collection
they grew so (`used_skip_tokens.append(token)`, `unique_list.append(x)`) and none left another.
So where a function holds one, the missing statement is likely its filling: after a statement of a
loop that runs after it is made, the collection grown by a name bound there (the nearest first).
Those statements' lines are searched even when they rank below the suspicious lines searched
(search.hinted, at most HINTED of them per file): a `pass` or a statement a loop runs for the
passing tests too ranks low, though the filling is missing there."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from repofix.repair.additions import added_after, starts_line
from repofix.repair.scope import GROWS, Scope, constructor
from repofix.repair.source import Mutation, SourceFile

PRIOR = 0.7  # as a boosted unread local's statement (unread.BOOST x 0.35): the sign is as rare
MAX_VALUES = 8  # names tried as what is added, those bound nearest before the statement first
HINTED = 8  # lines per file searched beyond the suspicious ones for a missing filling
FILLS = {"append", "appendleft", "add", "extend", "extendleft", "insert", "update", "setdefault"}
# builtins that only read a collection passed to them
READERS = {"len", "list", "tuple", "set", "frozenset", "sorted", "reversed", "iter", "enumerate"}
READERS |= {"any", "all", "sum", "min", "max", "zip", "bool", "join"}
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


@dataclass(frozen=True)
class Unfilled:
    name: str
    line: int  # where it is first made
    method: str  # what grows it by one item: `append` for a list, `add` for a set


def unfilled(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[Unfilled]:
    """The locals of `func`'s own body bound only to a new empty list, set or deque (`[]`, `set()`),
    read, and never filled or handed on: no method but a read is called on them, no item is stored
    or deleted, no `+=`, never passed to a call but a builtin that only reads (`len`, `sorted`),
    never stored elsewhere, returned or yielded only as they are; none in a function that reads its
    locals by name or declares them global."""
    parents = {id(c): n for n in ast.walk(func) for c in ast.iter_child_nodes(n)}
    made: dict[str, tuple[int, str]] = {}
    spoiled: set[str] = set()  # bound otherwise, filled, or handed on
    read: set[str] = set()
    for node in ast.walk(func):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            spoiled.update(node.names)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("locals", "vars")
        ):
            return []
        if not isinstance(node, ast.Name):
            continue
        parent = parents.get(id(node))
        if isinstance(node.ctx, ast.Store):
            grows = _made(node, parent)
            if grows is None:
                spoiled.add(node.id)
            elif node.id not in made or node.lineno < made[node.id][0]:
                made[node.id] = (node.lineno, grows)
        elif _hands_on(node, parent):
            spoiled.add(node.id)
        else:
            read.add(node.id)
    own = {n.id for n in _own_names(func)}
    return [
        Unfilled(name, line, grows)
        for name, (line, grows) in sorted(made.items(), key=lambda item: item[1][0])
        if name in read and name in own and name not in spoiled
    ]


def _made(name: ast.Name, parent: ast.AST | None) -> str | None:
    """The method that grows what `name` is bound to here, when it is the one target of `x = []` or
    `x: list[str] = []` (an empty list, set or deque)."""
    if isinstance(parent, ast.Assign) and parent.targets == [name]:
        return _empty(parent.value)
    if isinstance(parent, ast.AnnAssign) and parent.target is name and parent.value is not None:
        return _empty(parent.value)
    return None


def _empty(value: ast.expr) -> str | None:
    """The method that grows what `value` makes, when it makes an empty list, set or deque."""
    if isinstance(value, ast.List) and not value.elts:
        return "append"
    if isinstance(value, ast.Call) and not value.args and not value.keywords:
        return GROWS.get(constructor(value) or "")
    return None


def _hands_on(node: ast.Name, parent: ast.AST | None) -> bool:
    """Whether this use of a name may fill what it holds, or lets someone else do so."""
    if isinstance(parent, ast.Attribute):  # a method: only what reads is a read
        return parent.attr in FILLS or not _reads(parent.attr)
    if isinstance(parent, ast.Subscript):
        return not isinstance(parent.ctx, ast.Load)
    if isinstance(parent, ast.AugAssign):
        return True
    if isinstance(parent, ast.Call):
        callee = parent.func
        name = (
            callee.id
            if isinstance(callee, ast.Name)
            else callee.attr
            if isinstance(callee, ast.Attribute)
            else ""
        )
        return node is not callee and name not in READERS
    if isinstance(parent, ast.keyword):
        return True
    return isinstance(
        parent,
        (ast.Assign, ast.AnnAssign, ast.NamedExpr, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Starred),
    )


def _reads(method: str) -> bool:
    return method in ("copy", "count", "index", "keys", "values", "items", "get", "join")


def _own_names(func: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.Name]:
    """The names bound in `func`'s own body, not in a function, lambda or class nested in it."""
    todo: list[ast.AST] = list(ast.iter_child_nodes(func))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            yield node
        if not isinstance(node, SCOPES):
            todo.extend(ast.iter_child_nodes(node))


def in_loop(func: ast.AST, after: int) -> set[int]:
    """The lines of the statements of `func`'s loops (its own, not a nested function's) that start
    after line `after`: where a filling may be missing."""
    lines: set[int] = set()
    todo: list[ast.AST] = list(ast.iter_child_nodes(func))
    while todo:
        node = todo.pop()
        if isinstance(node, SCOPES):
            continue
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)) and node.lineno > after:
            lines.update(s.lineno for s in ast.walk(node) if isinstance(s, ast.stmt) and s is not node)
        todo.extend(ast.iter_child_nodes(node))
    return lines


class Fillable:
    """A function's unfilled collections, each with the lines where its filling may be missing."""

    def __init__(self, func: ast.FunctionDef | ast.AsyncFunctionDef):
        self.where = {u: in_loop(func, u.line) for u in unfilled(func)}
        self.lines = set().union(*self.where.values()) if self.where else set()


def hinted_lines(src: SourceFile) -> set[int]:
    """The lines of `src` where a function's unfilled collection may be filled."""
    found: set[int] = set()
    for func in ast.walk(src.tree):
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found |= Fillable(func).lines
    return found


def fills(src: SourceFile, node: ast.AST, fillable: Fillable, scope: Scope) -> Iterator[Mutation]:
    """After `node` (in place of it when it is a `pass`), a statement of a loop that runs after an
    unfilled collection is made, that collection grown by a name bound before it, the nearest
    first."""
    if (
        not isinstance(node, ast.stmt)
        or node.lineno not in fillable.lines
        or isinstance(node, (ast.Return, ast.Raise, ast.Continue, ast.Break))
        or not starts_line(src, node)
    ):
        return
    for u, lines in fillable.where.items():
        if node.lineno not in lines:
            continue
        before = [n for n in scope.names if n != u.name and scope.bound.get(n, 0) <= node.lineno]
        nearest = sorted(before, key=lambda n: node.lineno - scope.bound.get(n, 0))[:MAX_VALUES]
        for value in nearest:
            yield added_after(src, node, f"{u.name}.{u.method}({value})", "fill-unfilled", PRIOR)
