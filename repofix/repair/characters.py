"""Text and code points: `chr()` around a value that is an int for sure, `ord()` around one that may
be one character of text. Neither builtin is among the scope's wrappers (working code calls them
seldom, so every value would pay for them), yet a bug that drops one leaves a number where text is
meant or the reverse (`f"&#{ord(character)};"`, `chr(int(digits, 16))`: 5 of the 94 bugs that
heldout45 to heldout55 left unfound, none of them in the candidate stream). Each is offered only
where the value's kind says so, and each raises on any other kind (`chr("a")`, `ord(12)`,
`ord("ab")`), so a wrong one seldom passes a test. Part of the additions (additions.for_node
applies them to the values a wrapper may be missing around)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from repofix.repair.scope import Scope
from repofix.repair.source import Mutation, SourceFile
from repofix.repair.wrappers import wrap_in

CODE_POINT_PRIOR = 0.3  # above a plain builtin's guess (0.25): the value's kind asks for it


def code_points(src: SourceFile, value: ast.expr, scope: Scope) -> Iterator[Mutation]:
    """`chr(value)` where `value` is an `int()` or a name a `for` binds from a `range()`
    (`[chr(i) for i in range(32, 127)]`); `ord(value)` where it is a name a `for` binds to the items
    of something else (`for character in text`)."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        if value.func.id == "int":
            yield wrap_in(src, value, "chr", CODE_POINT_PRIOR)
        return
    if not isinstance(value, ast.Name):
        return
    if value.id in scope.counters:
        yield wrap_in(src, value, "chr", CODE_POINT_PRIOR)
    elif value.id in scope.items:
        yield wrap_in(src, value, "ord", CODE_POINT_PRIOR)
