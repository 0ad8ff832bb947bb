"""The value a branch tests, put to use where the branch holds only a `pass`: `if extra: pass` ->
`kwargs.update(extra)`, `elif isinstance(target_data, dict): pass` ->
`initial_scope.update(target_data)`. A branch that tests a value and does nothing was mostly
meant to hand it on (empty.py fills the other kinds of `pass`)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from repofix.repair.scope import Scope
from repofix.repair.source import own_scope

MAX_NEAREST = 4  # locals updated by a tested value: those bound nearest before the branch
UPDATE_METHODS = ("update", "extend", "append")


def use_tested(branch: ast.If, func: ast.AST, scope: Scope) -> Iterator[str]:
    """`if extra:` (a name or an attribute tested for truth): a local bound nearest before the
    branch, updated, extended or grown by it; `if isinstance(extra, dict):` or `if extra is not
    None:`, one of those that holds a collection. Either way also a container the function writes
    items into, in its own scope, bound before the branch or not the function's own
    (`initial_scope[alias] = target_data` in another branch, jxconfig's, heldout43, where
    `initial_scope` is the enclosing function's)."""
    test = branch.test
    tested_value = _tested_value(test)
    if tested_value is None:
        return
    tested = ast.unparse(tested_value)  # not the source: it may span lines inside brackets
    before = [
        n for n, line in scope.bound.items() if line <= branch.lineno and n != tested and n in scope.names
    ]
    if tested_value is not test:  # a kind or None checked: the value is handed to a collection
        before = [n for n in before if n in scope.containers]
    before.sort(key=lambda n: branch.lineno - scope.bound[n])
    written = [
        n
        for n in _written_into(func)
        if n != tested
        and n not in before
        and (n not in scope.own_bound or scope.bound.get(n, branch.lineno + 1) <= branch.lineno)
    ]
    for local in [*before[:MAX_NEAREST], *written[:MAX_NEAREST]]:
        for method in UPDATE_METHODS:
            yield f"{local}.{method}({tested})"


def _tested_value(test: ast.expr) -> ast.expr | None:
    """The name or attribute a condition tests for truth, for a kind (`isinstance(x, dict)`) or
    against `None` (`x is not None`)."""
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance":
        test = test.args[0] if test.args else test
    elif (
        isinstance(test, ast.Compare)
        and isinstance(test.ops[0], ast.IsNot)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    ):
        test = test.left
    return test if isinstance(test, (ast.Name, ast.Attribute)) else None


def _written_into(func: ast.AST) -> list[str]:
    """The names `func` writes an item of in its own scope (`table[key] = value`), in the order it
    first does."""
    return list(
        dict.fromkeys(
            n.value.id
            for n in own_scope(func)
            if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name)
        )
    )
