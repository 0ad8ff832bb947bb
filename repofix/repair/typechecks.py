"""A condition that lost its type check: `len(nxt) == 0` -> `isinstance(nxt, Sized) and len(nxt)
== 0`, `not value or ...` -> `... or isinstance(value, (int, float))`, `len(value) != n` -> `not
isinstance(value, dict) or len(value) != n`.

Of the 290 planted missing clauses of the held-aside sets heldout to heldout29, 20 are an
`isinstance` check (after comparisons, names and `None` checks, the largest kind), and the engine
found 1 of the 10 measured since heldout10. Of the 17 whose projects are at hand, the fix was made
for 8: by the module's conditions (clones.add_condition: the same check of the same value
elsewhere, at 0.25) or an echo of the condition's other clause (echoes.py). Here the check is
built: the value is one the condition reads (a local or parameter, an attribute chain on one and its shorter chains, a constant
subscript of one and the others the function takes of it: `params[0]` beside `params[1]`), the
type one the module passes to `isinstance` (`dict`, `(int, float)`, `c_ast.Pragma`), those it
checks this value against first, then the most checked. That makes 8 of the 17 (4 of them new:
12 of 17 made in all) and puts them ahead; the 5 still not made check a value the condition does
not read (`isinstance(item, Undefined)` after `default is not None`), a type the module checks
nowhere else (`Sized`, in the clause the bug removed) or an item by a name (`self[k]`)."""

from __future__ import annotations

import ast
import functools
from collections import Counter
from collections.abc import Iterator

from repofix.repair.facts import BUILTIN_NAMES, module_facts, parameters
from repofix.repair.scope import Scope
from repofix.repair.source import ATOMS, Edit, Mutation, SourceFile, builtin_call, own_scope

MAX_VALUES = 3  # values a new check is made for: those the condition reads first
MAX_TYPES = 5  # types each is checked against
# (form, prior): a guard before the condition most often (9 of the 20), then the others (1-3 each)
FORMS = (
    ("{check} and {test}", 0.4),
    ("not {check} or {test}", 0.4),
    ("{check} or {test}", 0.3),
    ("{test} and {check}", 0.3),
    ("{test} or {check}", 0.3),
    ("{test} and not {check}", 0.25),
)


def _chain(node: ast.expr) -> str:
    """`a.b.c` as text for a chain of attributes on a name; "" for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    return ".".join([node.id, *reversed(parts)])


def _type_text(node: ast.expr) -> str:
    """A type as `isinstance` takes it, when it is a name, an attribute chain or a tuple of those."""
    if isinstance(node, ast.Tuple):
        parts = [_chain(e) for e in node.elts]
        return f"({', '.join(parts)})" if parts and all(parts) else ""
    return _chain(node)


def _checks(node: ast.AST) -> Iterator[tuple[str, str]]:
    """(value, type) of each `isinstance(value, type)` under `node`, as text."""
    for each in ast.walk(node):
        if call := builtin_call(each, "isinstance", 2):
            kind = _type_text(call.args[1])
            if kind:
                yield _value_text(call.args[0]), kind


@functools.lru_cache(maxsize=8)  # keyed by the tree itself, as facts.module_facts
def checked_types(module: ast.Module) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
    """The types the module checks with `isinstance`, the most checked first, and per value (as
    text) the types it is checked against."""
    counts: Counter[str] = Counter()
    per_value: dict[str, dict[str, None]] = {}
    for value, kind in _checks(module):
        counts[kind] += 1
        for part in _parts(kind):
            counts[part] += 0  # a tuple's own types: after every type checked by itself
        if value:
            per_value.setdefault(value, {}).update(dict.fromkeys([kind, *_parts(kind)]))
    ranked = tuple(kind for kind, _ in counts.most_common())
    return ranked, {value: tuple(kinds) for value, kinds in per_value.items()}


@functools.lru_cache(maxsize=8)  # keyed by the tree itself, as facts.module_facts
def _function_locals(module: ast.Module) -> frozenset[str]:
    """The names the module's functions bind (parameters, assignments), less what the module itself
    binds and the builtins."""
    names: set[str] = set()
    for func in ast.walk(module):
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            names.update(
                parameters(func) if not isinstance(func, ast.Lambda) else [a.arg for a in func.args.args]
            )
            names.update(
                n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            )
    return frozenset(names - module_facts(module).names - BUILTIN_NAMES)


def _roots(kind: str) -> set[str]:
    """The names a type's text starts from: `(c_ast.Pragma, str)` -> {c_ast, str}."""
    return {part.split(".")[0] for part in kind.strip("()").split(", ")}


def _parts(kind: str) -> list[str]:
    """The types of a tuple of types (`(type, TypeVar)` -> type, TypeVar): each checked by itself too."""
    return kind[1:-1].split(", ") if kind.startswith("(") else []


def _value_text(node: ast.expr) -> str:
    """A value a check may be made for: a name, an attribute chain, a name's constant subscript."""
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and isinstance(node.slice, ast.Constant)
        and type(node.slice.value) is int
    ):
        return f"{node.value.id}[{node.slice.value}]"
    return _chain(node)


@functools.lru_cache(maxsize=64)  # keyed by the function's node: once per function, not per condition
def _subscripts(func: ast.AST) -> dict[str, tuple[str, ...]]:
    """name -> the constant subscripts of it the function itself reads (`params[0]`, `params[1]`)."""
    found: dict[str, dict[str, None]] = {}
    for item in own_scope(func):
        if (
            isinstance(item, ast.Subscript)
            and isinstance(item.value, ast.Name)
            and isinstance(item.ctx, ast.Load)
        ):
            text = _value_text(item)
            if text:
                found.setdefault(item.value.id, {})[text] = None
    return {name: tuple(texts) for name, texts in found.items()}


def _values(test: ast.expr, func: ast.AST, scope: Scope) -> list[str]:
    """What the condition reads that a check may be made for, in the order it reads them: a local's
    or parameter's name, each attribute chain on one and its shorter chains, a constant subscript of
    one (and those the function takes of the same name); never a name the condition binds itself
    (`(m := match(...)) and m.group(0)`: a check before it would read it unbound)."""
    walrus = {
        n.target.id
        for n in own_scope(test)
        if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name)
    }
    local = set(scope.bound) - walrus
    called = {id(n.func) for n in own_scope(test) if isinstance(n, ast.Call)}
    found: dict[str, None] = {}
    subscripted: dict[str, None] = {}  # in reading order: a set's varies with the hash seed
    nodes = sorted(
        (n for n in own_scope(test) if isinstance(n, (ast.Name, ast.Attribute, ast.Subscript))),
        key=lambda n: (n.lineno, n.col_offset, -n.end_col_offset),  # type: ignore[operator]
    )
    for node in nodes:
        if id(node) in called or not isinstance(getattr(node, "ctx", None), ast.Load):
            continue
        text = _value_text(node)
        if not text or text.split(".")[0].split("[")[0] not in local:
            continue
        if isinstance(node, ast.Subscript):
            subscripted[node.value.id] = None  # type: ignore[attr-defined]
            found[text] = None
            continue
        pieces = text.split(".")
        for i in range(1, len(pieces) + 1):
            found[".".join(pieces[:i])] = None
    for name in subscripted:  # `params[0]` beside `params[1]`
        for text in _subscripts(func).get(name, ()):
            found.setdefault(text, None)
    # a container subscripted in the condition is checked less often than its items (`params[0]`)
    return [v for v in found if v != "self" and v not in subscripted] + [v for v in found if v in subscripted]


def _wrapped(test: ast.expr, text: str, joined_by: type[ast.boolop]) -> str:
    """The condition as an operand of a new `and`/`or`: parenthesized unless it binds tighter."""
    if isinstance(test, (*ATOMS, ast.Compare, ast.UnaryOp)):
        return text
    if isinstance(test, ast.BoolOp) and isinstance(test.op, joined_by):
        return text
    return f"({text})"


def type_check(src: SourceFile, test: ast.expr, func: ast.AST, scope: Scope) -> Iterator[Mutation]:
    """`T` -> `isinstance(v, K) and T`, `not isinstance(v, K) or T`, `T or isinstance(v, K)`...:
    v a value `T` reads, K a type the module checks (see the module's docstring)."""
    types, per_value = checked_types(src.tree)  # type: ignore[arg-type]
    # never a type named by another function's local (`isinstance(v, cls)` in `make(cls, v)`); a
    # module's name may come from a star import, so what is not such a local is kept
    foreign = _function_locals(src.tree) - set(scope.bound)  # type: ignore[arg-type]
    types = tuple(kind for kind in types if not _roots(kind) & foreign)
    if not types:
        return
    text = src.segment(test)
    present = set(_checks(test))
    start, end = src.span(test)
    head = " ".join(text.split())[:60]
    for value in _values(test, func, scope)[:MAX_VALUES]:
        own = [kind for kind in per_value.get(value, ()) if not _roots(kind) & foreign]
        kinds = list(dict.fromkeys([*own, *types]))[:MAX_TYPES]
        for kind in kinds:
            if (value, kind) in present:
                continue
            check = f"isinstance({value}, {kind})"
            for form, prior in FORMS:
                joined_by = ast.And if " and " in form else ast.Or
                new = form.format(check=check, test=_wrapped(test, text, joined_by))
                added = form.format(check=check, test="...")
                yield src.mutation(
                    "add-type-check", f"condition '{head}' -> '{added}'", [Edit(start, end, new)], prior
                )
