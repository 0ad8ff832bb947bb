"""The value a branch tests, put to use where the branch holds only a `pass`: `if extra: pass` ->
`kwargs.update(extra)`, `elif isinstance(target_data, dict): pass` ->
`initial_scope.update(target_data)`. A branch that tests a value and does nothing was mostly
meant to hand it on (empty.py fills the other kinds of `pass`)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from repofix.repair.scope import Scope

MAX_NEAREST = 4  # locals updated by a tested value: those bound nearest before the branch
UPDATE_METHODS = ("update", "extend", "append")


def use_tested(branch: ast.If, func: ast.AST, scope: Scope) -> Iterator[str]:
    """`if extra:`, `if isinstance(extra, dict):` or `if extra is not None:` (a name or an attribute
    tested): a local bound nearest before the branch, or a container the function writes items
    into (`initial_scope[alias] = target_data` in another branch, jxconfig's, heldout43, where
    `initial_scope` is the enclosing function's), updated, extended or grown by it."""
    tested_value = _tested_value(branch.test)
    if tested_value is None:
        return
    tested = ast.unparse(tested_value)  # not the source: it may span lines inside brackets
    before = [
        n for n, line in scope.bound.items() if line <= branch.lineno and n != tested and n in scope.names
    ]
    before.sort(key=lambda n: branch.lineno - scope.bound[n])
    written = [n for n in _written_into(func) if n != tested and n not in before]
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
    """The names `func` writes an item of (`table[key] = value`), in the order it first does."""
    return list(
        dict.fromkeys(
            n.value.id
            for n in ast.walk(func)
            if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name)
        )
    )
