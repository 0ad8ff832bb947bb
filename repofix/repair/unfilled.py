"""Collections a function makes empty, reads, and never fills: `used_skip_tokens = []`, looped over
further down, but appended to nowhere. Working code seldom holds one: 12 of the 16,658 functions of
the twenty-one held-aside sets' projects do (6 of them pycparser's generated `children()`, whose
empty list is the answer), while 19 of their 171 planted missing statements left the collection
they grew so (`used_skip_tokens.append(token)`, `unique_list.append(x)`) and none left another.
So where a function holds one, the missing statement is likely its filling: after a statement of a
loop that runs after it is made, the collection grown by a name bound there (the nearest first).
Those statements' lines are searched even when they rank below the suspicious lines searched
(search.hinted, at most HINTED of them per file): a `pass` or a statement a loop runs for the
passing tests too ranks low, though the filling is missing there. Measured again on the 122,321
functions of the projects screened for heldout50 and heldout51 (their code as released): 42 hold
an unfilled list, set or deque, while 2,269 of the 22,145 missing statements that can be planted
there leave one that was not there before."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from repofix.repair.additions import added_after, starts_line
from repofix.repair.containers import MEMBER_METHODS, constructor
from repofix.repair.facts import parameters
from repofix.repair.looped import innermost_loops, loop_bound, pairs
from repofix.repair.scope import Scope
from repofix.repair.source import READS_ALL, Mutation, SourceFile
from repofix.repair.unread import own_nodes

PRIOR = 0.7  # as a boosted unread local's statement (unread.BOOST x 0.35): the sign is as rare
PART = 0.65  # grown by a part of such a name that the `if` around the filling tests
MAX_VALUES = 8  # names tried as what is added, those bound nearest before the statement first
HINTED = 8  # lines per file searched beyond the suspicious ones for a missing filling
# grown by a pair of the names the loop binds (`output.append((t, v))` after `t = ...`, `v = ...`: jtlvi's
# decoder, heldout54), a record of what one pass reads: below a single name, as rarer (either is raised
# when it reads a local read nowhere else: unread.Boost)
PAIR = 0.6
# builtins that only read a collection passed to them, and the methods that only read one
READERS = {"len", "list", "tuple", "set", "frozenset", "sorted", "reversed", "iter", "enumerate"}
READERS |= {"any", "all", "sum", "min", "max", "zip", "bool"}
READ_METHODS = {"copy", "count", "index"}
# where a name is handed on: stored, packed, yielded, or chosen (`(evens if c else odds).append(x)`)
HANDED: tuple[type[ast.AST], ...] = (ast.AugAssign, ast.keyword, ast.Assign, ast.AnnAssign, ast.NamedExpr)
HANDED += (ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Starred, ast.IfExp, ast.BoolOp, ast.Yield)


@dataclass(frozen=True)
class Unfilled:
    name: str
    line: int  # where it is first made
    method: str  # what grows it by one item: `append` for a list, `add` for a set


def unfilled(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[Unfilled]:
    """The locals of `func`'s own body bound only to a new empty list, set, deque or dict (`[]`,
    `set()`, `{}`), read, and never filled or handed on (`_hands_on`); none in a function that reads
    its locals by name (`locals()`, `eval`) or declares them global."""
    parents = {id(c): n for n in ast.walk(func) for c in ast.iter_child_nodes(n)}
    made: dict[str, tuple[int, str]] = {}
    spoiled: set[str] = set()  # bound otherwise, filled, or handed on
    read: set[str] = set()
    for node in ast.walk(func):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            spoiled.update(node.names)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in READS_ALL:
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
        elif _hands_on(node, parent) and not _tested(node, parents):
            spoiled.add(node.id)
        else:
            read.add(node.id)
    own = _own_names(func)
    return [
        Unfilled(name, line, grows)
        for name, (line, grows) in sorted(made.items(), key=lambda item: item[1][0])
        if name in read and name in own and name not in spoiled
    ]


def _own_names(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names `func`'s own body binds (not a nested function's or class's)."""
    return {n.id for n in own_nodes(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _made(name: ast.Name, parent: ast.AST | None) -> str | None:
    """The method that grows what `name` is bound to here, when it is the one target of `x = []` or
    `x: list[str] = []` (an empty list, set or deque)."""
    if isinstance(parent, ast.Assign) and parent.targets == [name]:
        return _empty(parent.value)
    if isinstance(parent, ast.AnnAssign) and parent.target is name and parent.value is not None:
        return _empty(parent.value)
    return None


def _empty(value: ast.expr) -> str | None:
    """The method that grows what `value` makes by one item, when it makes an empty container a
    function fills: a list, set, deque or bytearray, or a dict (by `update`: 3 of the 122,321
    functions of the projects screened for heldout50 and heldout51 hold an unfilled one, while 51
    of their 22,145 planted missing statements leave a new one)."""
    empty = (
        (isinstance(value, ast.List) and not value.elts)
        or (isinstance(value, ast.Dict) and not value.keys)
        or (isinstance(value, ast.Call) and not value.args and not value.keywords)
    )
    return MEMBER_METHODS.get(constructor(value) or "", (None,))[0] if empty else None


def _hands_on(node: ast.Name, parent: ast.AST | None) -> bool:
    """Whether this use of a name may fill what it holds, or lets someone else do so: a method but
    a read called on it, an item stored or deleted, passed to a call but a builtin that only reads
    (`len`, `sorted`) or `", ".join`, stored, packed or chosen elsewhere (HANDED)."""
    if isinstance(parent, ast.Attribute):
        return parent.attr not in READ_METHODS
    if isinstance(parent, ast.Subscript):
        return not isinstance(parent.ctx, ast.Load)
    if isinstance(parent, ast.Call):
        callee = parent.func
        reads = isinstance(callee, ast.Name) and callee.id in READERS
        return not (reads or isinstance(callee, ast.Attribute) and callee.attr == "join")
    return isinstance(parent, HANDED)


def _tested(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """Whether `node` is only tested for truth through `a or b`, `a if c else b` and `not`: `if
    in_part != "exponent" or exponent_digits:` reads what `t = cache or mine` hands on."""
    child, parent = node, parents.get(id(node))
    while isinstance(parent, (ast.BoolOp, ast.IfExp)) or (
        isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not)
    ):
        child, parent = parent, parents.get(id(parent))
    if child is node:
        return False
    return isinstance(parent, (ast.If, ast.While, ast.Assert, ast.comprehension)) and not (
        isinstance(parent, ast.comprehension) and child in (parent.iter, parent.target)
    )


def in_loop(func: ast.FunctionDef | ast.AsyncFunctionDef, after: int) -> set[int]:
    """The lines of the statements of `func`'s loops that start after line `after` (its own
    statements: none of a function or class nested in it): where a filling may be missing."""
    own = list(own_nodes(func))
    kept = set(map(id, own))
    loops = [n for n in own if isinstance(n, (ast.For, ast.AsyncFor, ast.While)) and n.lineno > after]
    return {
        s.lineno
        for loop in loops
        for s in ast.walk(loop)
        if isinstance(s, ast.stmt) and s is not loop and id(s) in kept
    }


class Fillable:
    """A function's unfilled collections, each with the lines where its filling may be missing,
    and the names it may be filled with (the function's own and its parameters)."""

    def __init__(self, func: ast.FunctionDef | ast.AsyncFunctionDef):
        self.where = {u: in_loop(func, u.line) for u in unfilled(func)}
        self.lines: set[int] = set().union(*self.where.values())
        self.own = _own_names(func) | set(parameters(func))
        self.loops = innermost_loops(func) if self.where else {}


def hinted_lines(src: SourceFile, near: set[int]) -> set[int]:
    """The lines of `src` where a function's unfilled collection may be filled, in the functions
    that hold one of the lines `near` (a large module's other functions are not looked at)."""
    found: set[int] = set()
    for func in ast.walk(src.tree):
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            func.lineno <= line <= (func.end_lineno or func.lineno) for line in near
        ):
            found |= Fillable(func).lines
    return found & near


def fills(
    src: SourceFile, node: ast.AST, parent: ast.AST | None, fillable: Fillable, scope: Scope
) -> Iterator[Mutation]:
    """After `node` (in place of it when it is a `pass`), a statement of a loop that runs after an
    unfilled collection is made, that collection grown by a name the function binds before it,
    the nearest first, or, under an `if` testing a part of that name, by the part: the test says
    what is kept (`if isinstance(sl.value, str): out.append(sl.value)`, quantlint, heldout38)."""
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
        before = [
            n
            for n in scope.names
            if n != u.name and n in fillable.own and scope.bound.get(n, node.lineno + 1) <= node.lineno
        ]
        by_distance = sorted(before, key=lambda n: node.lineno - scope.bound[n])
        # an `except ... as` name of a clause holding this line is nearer than any
        nearest = [*scope.caught_at(node.lineno), *by_distance][:MAX_VALUES]
        for value in nearest:
            yield added_after(src, node, f"{u.name}.{u.method}({value})", "fill-unfilled", PRIOR)
        if isinstance(parent, ast.If) and node in parent.body:
            for part in parts_tested(parent.test, set(nearest))[:MAX_VALUES]:
                yield added_after(src, node, f"{u.name}.{u.method}({part})", "fill-unfilled", PART)
        if u.method in ("append", "add") and node.lineno in fillable.loops:
            bound = loop_bound(fillable.loops[node.lineno], node.lineno)
            for pair in pairs([n for n in bound if n != u.name and n in fillable.own]):
                yield added_after(src, node, f"{u.name}.{u.method}({pair})", "fill-unfilled", PAIR)


def parts_tested(test: ast.expr, names: set[str]) -> list[str]:
    """The attributes and items of `names` that `test` reads, the outermost of each chain (`sl.value`
    of `isinstance(sl.value, str)`, `row['id']` of `row['id'] is not None`), in reading order; none
    that is called (a method) or holds a call."""
    skipped = {id(n.func) for n in ast.walk(test) if isinstance(n, ast.Call)}  # methods
    skipped |= {
        id(n.value) for n in ast.walk(test) if isinstance(n, (ast.Attribute, ast.Subscript))
    }  # `a.b` of `a.b.c`
    found: list[str] = []
    for node in ast.walk(test):
        if not isinstance(node, (ast.Attribute, ast.Subscript)) or id(node) in skipped:
            continue
        root: ast.expr = node
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        if (
            isinstance(root, ast.Name)
            and root.id in names
            and not any(isinstance(n, ast.Call) for n in ast.walk(node))
        ):
            found.append(ast.unparse(node))
    return list(dict.fromkeys(found))
