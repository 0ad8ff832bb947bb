"""Methods named for growing the instance that change nothing: `def push(self, symbol)` whose body
checks `symbol` and raises, but never touches `self.stack`. Working code seldom holds one: 37 of the
1,226 undecorated methods so named in the projects helpers screened for heldout40 and heldout41
do (3%), while 138 of the 784 missing statements that can be planted in such methods there leave
one (18%). So in such a method a statement growing one of the instance's containers by a
parameter (`self.stack.append(symbol)`), which add_update makes at a low prior among hundreds of
updates, goes first (PRIOR: as unfilled.py's filling, the sign is as rare)."""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Iterable, Iterator

from repofix.repair.source import Mutation

PRIOR = 0.7
# the first word of a method's name that says it grows the instance (`push`, `add_tag`, `_register`)
VERBS = {"push", "add", "append", "appendleft", "insert", "put", "register", "enqueue", "attach"}
VERBS |= {"extend", "store", "record", "track", "remember", "collect", "accumulate", "subscribe"}
# calls that change nothing: a check, a conversion, a measure
PURE = {"len", "isinstance", "issubclass", "str", "int", "float", "bool", "repr", "tuple", "type"}
PURE |= {"abs", "min", "max", "sorted", "hash", "id", "callable", "hasattr", "getattr"}
# what add_update makes of a container the instance holds: `self.stack.append(symbol)`
GROWTH = re.compile(r"self(?:\.\w+)+\.(?:append|appendleft|add|extend|insert|update)\((?P<by>\w+)\)")


def idle_grower(func: ast.AST) -> frozenset[str]:
    """The parameters (but `self`) of `func` when it is a method named for growing the instance
    whose body changes nothing: it assigns to no attribute or item, deletes none, calls no method
    and nothing but PURE builtins outside a `raise`, and returns or yields no value (then it makes
    one, as `__add__` does). Empty otherwise."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) or func.decorator_list:
        return frozenset()
    words = func.name.lstrip("_").split("_")
    params = [a.arg for a in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]]
    if func.name.startswith("__") or words[0] not in VERBS or params[:1] != ["self"] or len(params) < 2:
        return frozenset()
    raised = {id(n) for r in ast.walk(func) if isinstance(r, ast.Raise) for n in ast.walk(r)}
    for node in ast.walk(func):
        if id(node) in raised or node is func:
            continue
        if _changes(node):
            return frozenset()
    return frozenset(params[1:])


def _changes(node: ast.AST) -> bool:
    """`node` may change something: a store into an attribute or an item, or any unpacking (taken
    as one: it may hold either), a call but a PURE builtin's, a value made to return or yield, a
    nested function or lambda, a global or nonlocal."""
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
        targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
        return any(isinstance(t, (ast.Attribute, ast.Subscript, ast.Tuple, ast.List)) for t in targets)
    if isinstance(node, ast.Call):
        return not (isinstance(node.func, ast.Name) and node.func.id in PURE)
    if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom)):
        return node.value is not None
    return isinstance(node, (ast.Global, ast.Nonlocal, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))


class Growers:
    """Raises the prior of a statement that grows one of the instance's containers by a parameter
    of the method it is added to, when that method is an idle grower."""

    def __init__(self, func: ast.AST):
        self.params = idle_grower(func)

    def all(self, found: Iterable[Mutation]) -> Iterator[Mutation]:
        if not self.params:  # most methods: nothing to look at
            yield from found
            return
        for m in found:
            yield self(m)

    def __call__(self, m: Mutation) -> Mutation:
        if m.op != "add-update" or len(m.edits) != 1:
            return m
        grown = GROWTH.fullmatch(m.edits[0].text.strip())
        if grown is None or grown["by"] not in self.params:
            return m
        return dataclasses.replace(m, prior=max(m.prior, PRIOR))
