"""A loop over a container that its own body resizes has lost the copy it walked: `for k in
self._mem.keys(): ... self._mem.pop(k)` raises "dictionary changed size during iteration" (a list
silently skips items), and `for k in list(self._mem.keys()):` is the fix (ihexsrec's delete_bytes,
heldout34, made only as one of the module's wrappers at 0.3 and not reached in 60 s). Only when
the body pops, removes, deletes or adds, and goes on looping after it: `d.pop(k); break` is safe,
and `d[k] = v` on a key walked changes no size."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from repofix.repair.source import SCOPED, Edit, Mutation, SourceFile

PRIOR = 0.6
RESIZING = {
    "pop", "popitem", "clear", "update", "setdefault", "append", "extend", "insert", "remove", "add", "discard",
}  # fmt: skip
VIEWS = ("keys", "items", "values")
LEAVES = (ast.Break, ast.Return, ast.Raise)


def snapshot(src: SourceFile, node: ast.AST) -> Iterator[Mutation]:
    """`for k in d.keys():` -> `for k in list(d.keys()):` when the loop's body resizes `d`."""
    if not isinstance(node, ast.For):
        return
    walked = _walked(node.iter)
    if walked is None or not _resizes(node.body, walked):
        return
    text = src.segment(node.iter)
    yield src.mutation(
        "snapshot-iterated",
        f"{text} -> list({text}), as the loop resizes {walked}",
        [Edit(*src.span(node.iter), f"list({text})")],
        PRIOR,
    )


def _walked(iterated: ast.expr) -> str | None:
    """The container a loop walks itself (`d`, `self._mem`, of `d`, `d.keys()`, `d.items()`...)."""
    if (
        isinstance(iterated, ast.Call)
        and isinstance(iterated.func, ast.Attribute)
        and iterated.func.attr in VIEWS
        and not iterated.args
    ):
        iterated = iterated.func.value
    return ast.unparse(iterated) if isinstance(iterated, (ast.Name, ast.Attribute)) else None


def _resizes(block: list[ast.stmt], walked: str) -> bool:
    """A statement of `block` (or nested in it, not in a function, class or comprehension) resizes
    `walked` and is not followed in its own block by a `break`, `return` or `raise`."""
    for i, stmt in enumerate(block):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        leaves = i + 1 < len(block) and isinstance(block[i + 1], LEAVES)
        if not leaves and _resizing(stmt, walked):
            return True
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, name, None)
            if isinstance(inner, list) and _resizes(inner, walked):
                return True
        for handler in getattr(stmt, "handlers", []):
            if _resizes(handler.body, walked):
                return True
    return False


def _resizing(stmt: ast.stmt, walked: str) -> bool:
    """`stmt` itself (not a block it holds) calls a resizing method of `walked` or deletes an item."""
    if isinstance(stmt, ast.Delete):
        return any(isinstance(t, ast.Subscript) and ast.unparse(t.value) == walked for t in stmt.targets)
    if isinstance(stmt, LEAVES):
        return False  # `return d.pop(k)` ends the loop
    todo: list[ast.AST] = [
        getattr(stmt, f) for f in ("value", "test", "iter") if isinstance(getattr(stmt, f, None), ast.AST)
    ]
    while todo:
        part = todo.pop()
        if isinstance(part, SCOPED):
            continue  # a lambda's or a comprehension's call runs elsewhere or not at all
        if (
            isinstance(part, ast.Call)
            and isinstance(part.func, ast.Attribute)
            and part.func.attr in RESIZING
            and ast.unparse(part.func.value) == walked
        ):
            return True
        todo.extend(ast.iter_child_nodes(part))
    return False
