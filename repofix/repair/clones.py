"""Operators that reuse code the module already has, with one part changed:

- a missing in-place update (`ret.append("%sM" % minutes)`, `rv.update(d)`) cloned from an update
  statement of the same function, its receiver or one of its argument parts replaced by the
  enclosing `if`'s condition or by a local;
- a missing clause that is a comparison or a call (`time < curr.expires and ...`,
  `... and not isinstance(d, Mapping)`), taken from the conditions the module tests elsewhere,
  when every name it reads is in scope where it is added.

Real fixes mostly reuse code that is already there (the "redundancy assumption" of fix-pattern
studies): these build whole expressions without inventing any."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from dataclasses import dataclass, field

from repofix.repair.scope import BUILTIN_NAMES, UPDATES, parameters
from repofix.repair.source import ATOMS, Edit, Mutation, SourceFile

PARTS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript)  # what a clone may have replaced
MAX_CONDITIONS = 32  # conditions tried as a new clause: the function's own, then the module's nearest
MAX_ELSEWHERE = 16  # update statements of the rest of the module tried as a missing one, nearest first


@dataclass
class Reuse:
    """What one function can reuse: its update statements, and conditions it may add."""

    updates: list[ast.Call] = field(default_factory=list)  # `R.update(...)` / `R.append(...)` statements
    conditions: list[tuple[str, float]] = field(default_factory=list)  # (text, prior)
    locals: list[str] = field(default_factory=list)  # names bound in the function (parameters too)
    elsewhere: list[ast.Call] = field(default_factory=list)  # update statements made elsewhere, readable here


def _free_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _module_names(module: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return names


def _conditions(tree: ast.AST) -> list[ast.expr]:
    """Comparisons and calls tested as conditions: `if`/`while` tests, operands of `and`/`or`/`not`."""
    found: list[ast.expr] = []
    for node in ast.walk(tree):
        tests: list[ast.expr] = []
        if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            tests = [node.test]
        elif isinstance(node, ast.BoolOp):
            tests = list(node.values)
        for test in tests:
            while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                test = test.operand
            if isinstance(test, (ast.Compare, ast.Call)):
                found.append(test)
    return found


def _updates(tree: ast.AST) -> list[ast.Call]:
    """`R.update(...)` / `R.append(...)`... calls made as statements."""
    return [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Expr)
        and isinstance(n.value, ast.Call)
        and isinstance(n.value.func, ast.Attribute)
        and n.value.func.attr in UPDATES
    ]


@functools.lru_cache(maxsize=8)  # per module, not per function (keyed by the tree, held while cached)
def _module_facts(
    module: ast.Module,
) -> tuple[set[str], list[ast.expr], list[ast.Call], list[ast.FunctionDef | ast.AsyncFunctionDef]]:
    """The module's names, tested conditions, update statements and functions."""
    functions = [n for n in ast.walk(module) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return _module_names(module), _conditions(module), _updates(module), functions


def _enclosing(func: ast.AST, module: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The functions `func` is nested in, innermost first: their locals are its closure."""
    outer = [
        n
        for n in _module_facts(module)[3]
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        and n is not func
        and n.lineno < func.lineno  # type: ignore[attr-defined]
        and func.end_lineno <= (n.end_lineno or 0)  # type: ignore[attr-defined]
    ]
    return sorted(outer, key=lambda n: -n.lineno)


def reuse_of(func: ast.FunctionDef | ast.AsyncFunctionDef, module: ast.Module, src: SourceFile) -> Reuse:
    scopes = [func, *_enclosing(func, module)]
    local: list[str] = []
    for f in scopes:  # a nested function's closure: the names of the functions it is in
        stored = [n.id for n in ast.walk(f) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
        local += parameters(f) + stored
    local = list(dict.fromkeys(local))
    names, module_conditions, module_updates, _ = _module_facts(module)
    visible = set(local) | names | BUILTIN_NAMES
    updates = _updates(func)
    own = {src.segment(c) for c in updates}
    # the module's other update statements that read only what is visible here, nearest first:
    # `self.data.append(data)` made in another method, `placeholder.add(key)` in the outer function
    elsewhere = sorted(
        (c for c in module_updates if _free_names(c) <= visible and src.segment(c) not in own),
        key=lambda c: abs(c.lineno - func.lineno),
    )
    conditions: dict[str, float] = {}
    # the function's own first, then the module's nearest the function first
    nearest = sorted(module_conditions, key=lambda c: abs(c.lineno - func.lineno))
    for tree, prior in ((_conditions(func), 0.3), (nearest, 0.25)):
        for cond in tree:
            text = src.segment(cond)
            if "\n" not in text and _free_names(cond) <= visible and text not in conditions:
                conditions[text] = prior
    return Reuse(
        updates,
        list(conditions.items())[:MAX_CONDITIONS],
        [n for n in local if n != "self"],
        list({src.segment(c): c for c in reversed(elsewhere)}.values())[::-1][:MAX_ELSEWHERE],
    )


def _guard(node: ast.stmt, parent: ast.AST) -> ast.expr | None:
    """The condition of the `if` whose body holds `node`, when it is a plain value (`if minutes:`)."""
    if isinstance(parent, ast.If) and node in parent.body and isinstance(parent.test, PARTS):
        return parent.test
    return None


def _clones(
    src: SourceFile, call: ast.Call, guard: ast.expr | None, names: list[str]
) -> Iterator[tuple[str, float]]:
    """A template update with one part replaced: the receiver by a local; an argument part (name,
    attribute, call, subscript) by the guard."""
    text = src.segment(call)
    base = src.span(call)[0]
    receiver = call.func.value  # type: ignore[attr-defined]
    if isinstance(receiver, ast.Name):
        start, end = (x - base for x in src.span(receiver))
        for name in names:
            if name != receiver.id:
                yield text[:start] + name + text[end:], 0.3
    if guard is None:
        return
    new = src.segment(guard)
    callees = {id(n.func) for n in ast.walk(call) if isinstance(n, ast.Call)}
    for arg in [*call.args, *(k.value for k in call.keywords)]:
        for part in ast.walk(arg):
            if isinstance(part, PARTS) and id(part) not in callees and src.segment(part) != new:
                start, end = (x - base for x in src.span(part))
                yield text[:start] + new + text[end:], 0.4


def clone_update(src: SourceFile, node: ast.stmt, parent: ast.AST, reuse: Reuse) -> Iterator[Mutation]:
    """Add an update statement cloned from the function's own (see _clones) after `node`, or in
    place of it when it is a `pass`."""
    if not (reuse.updates or reuse.elsewhere) or isinstance(node, (ast.Return, ast.Raise)):
        return
    start = src.line_starts[node.lineno - 1]
    if src.data[start : start + node.col_offset].strip():
        return  # not the first statement on its line
    indent = " " * node.col_offset
    end = src.span(node)[1]
    guard = _guard(node, parent)
    seen = {src.segment(c) for c in reuse.updates}  # an exact copy is add_update's or a duplicate
    templates = [(call, _clones(src, call, guard, reuse.locals)) for call in reuse.updates]
    # from elsewhere in the module: as it is there, then with one part replaced
    templates += [(call, _copy_then_clones(src, call, guard, reuse.locals)) for call in reuse.elsewhere]
    for _call, texts in templates:
        for text, prior in texts:
            if text in seen:
                continue
            seen.add(text)
            if isinstance(node, ast.Pass):
                edit = Edit(*src.span(node), text)
            else:
                edit = Edit(end, end, f"\n{indent}{text}")
            yield src.mutation("clone-update", f"add '{text}' at line {node.lineno}", [edit], prior)


def _copy_then_clones(
    src: SourceFile, call: ast.Call, guard: ast.expr | None, names: list[str]
) -> Iterator[tuple[str, float]]:
    yield src.segment(call), 0.3
    for text, prior in _clones(src, call, guard, names):
        yield text, prior - 0.1


def add_condition(src: SourceFile, test: ast.expr, reuse: Reuse) -> Iterator[Mutation]:
    """`T` -> `C and T`, `T and not C`, `C or T`...: C a comparison or call the module tests."""
    text = src.segment(test)
    if "\n" in text:
        return
    start, end = src.span(test)
    inner = text if isinstance(test, (*ATOMS, ast.Compare, ast.UnaryOp)) else f"({text})"
    for cond, prior in reuse.conditions:
        if cond in text:
            continue
        wrapped = cond if cond.startswith("not ") or " " not in cond else f"({cond})"
        for new in (
            f"{cond} and {inner}",
            f"{inner} and {cond}",
            f"{inner} and not {wrapped}",
            f"not {wrapped} and {inner}",
            f"{cond} or {inner}",
            f"{inner} or {cond}",
        ):
            yield src.mutation(
                "add-condition", f"condition '{text}' -> '{new}'", [Edit(start, end, new)], prior
            )


def for_node(src: SourceFile, node: ast.AST, parent: ast.AST, reuse: Reuse) -> Iterator[Mutation]:
    """Every reuse that applies to `node` (inside a function)."""
    if isinstance(node, ast.stmt) and isinstance(
        parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.For, ast.While, ast.If, ast.With, ast.Try)
    ):
        yield from clone_update(src, node, parent, reuse)
    if isinstance(node, (ast.If, ast.While, ast.IfExp)):
        yield from add_condition(src, node.test, reuse)
