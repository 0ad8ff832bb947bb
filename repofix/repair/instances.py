"""Operators for an instance used where its class is meant, a missing `type(...)`: a class's own
attribute read from an instance (`self.__name__`, `val.__name__`, `x.__mro__`), the instance called
to make another (`self()`), compared by identity with a class (`event is Request`, `self is
type(other)`), bound to a name or passed to a parameter that says it holds a class (`typ = x`,
`_shadowed_dict(klass)` given `entry`). Ten of the 172 missing wrappers planted in the fifteen
held-aside sets were a `type(...)`, and the plain wrapper ranked it past a minute's candidates
(1,428th and 2,046th in pure-eval): these say where a class is meant, so they rank it first. Part
of the additions."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from repofix.repair.facts import names_a_class
from repofix.repair.scope import Scope
from repofix.repair.source import Edit, Mutation, SourceFile

# attributes a class has and its instances do not; a function or a module has a name too, so that
# one says a class is meant for sure only when read from `self`, and likely when read from a value
# the function takes or makes that is not named for a callable or a module (heldout48: uzod's
# `expected int, got {type(val).__name__}` twice, pjscript's `"visit_" + type(node).__name__`, each
# out of reach: `type` is no wrapper of those modules)
CLASS_ATTRIBUTES = {"__mro__", "__bases__", "__subclasses__"}
NAMES = {"__name__", "__qualname__"}
CALLABLE_WORDS = {"func", "fn", "f", "function", "callback", "cb", "handler", "method", "meth", "wrapped"}
CALLABLE_WORDS |= {"decorator", "hook", "callable", "view", "module", "mod", "target"}
# what holds a class by its name's end: `exc_type`, `etype`, `ownerclass`, `_pathcls` (facts.names_a_class
# lets `content_type` through as text, but text has no `__name__` either)
CLASS_ENDINGS = ("type", "types", "cls", "class", "klass")
BUILTIN_TYPES = {"int", "float", "str", "bytes", "bool", "list", "dict", "tuple", "set", "frozenset", "type"}
SURE, LIKELY = 0.45, 0.35  # priors: `self.__name__` / `self()` is almost never meant; the rest less so


def type_of(src: SourceFile, node: ast.AST, scope: Scope) -> Iterator[Mutation]:
    """`type(value)` in place of `value`, where `node` shows a class is meant."""
    for value, prior in _meant_classes(node, scope):
        text = src.segment(value)
        yield src.mutation(
            "add-wrapper", f"wrap {text} in type()", [Edit(*src.span(value), f"type({text})")], prior
        )


def _meant_classes(node: ast.AST, scope: Scope) -> list[tuple[ast.expr, float]]:
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and _instance(node.value):
        if node.attr in NAMES:  # a function or a module has a name too: only a value's says a class
            if _is_self(node.value):
                return [(node.value, SURE)]
            return [(node.value, LIKELY)] if _a_value(node.value, scope) else []
        return (
            [(node.value, SURE if _is_self(node.value) else LIKELY)] if node.attr in CLASS_ATTRIBUTES else []
        )
    if isinstance(node, ast.Call) and _is_self(node.func):
        return [(node.func, SURE)]
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)):
        left, right = node.left, node.comparators[0]
        return [(a, LIKELY) for a, b in ((left, right), (right, left)) if _instance(a) and _a_class(b, scope)]
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        return [(node.value, LIKELY)] if names_a_class(node.targets[0].id) and _instance(node.value) else []
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        positions = scope.class_params.get(node.func.id, [])
        return [(node.args[i], LIKELY) for i in positions if i < len(node.args) and _instance(node.args[i])]
    return []


def _is_self(value: ast.expr) -> bool:
    return isinstance(value, ast.Name) and value.id == "self"


def _instance(value: ast.expr) -> bool:
    """A name or attribute that may hold an instance: not one that says it holds a class
    (`cls`, `klass`), not a CapWords name (a class) and not a `type(...)` already."""
    if isinstance(value, ast.Name):
        return not names_a_class(value.id) and not value.id[:1].isupper()
    if isinstance(value, ast.Attribute):
        return not names_a_class(value.attr) and not value.attr[:1].isupper()
    return False


def _a_value(value: ast.expr, scope: Scope) -> bool:
    """A local of the function (its own, a parameter, an `except ... as` name where its clause holds
    the line), or an attribute chain on one or on `self`, that may hold an instance (`_instance`)
    and is not named for a callable, a module or a class (`func`, `view_func`, `exc_type`, `ownercls`)."""
    root = value
    while isinstance(root, ast.Attribute):
        root = root.value
    local = isinstance(root, ast.Name) and (
        root.id in scope.own_bound
        or root.id in scope.caught_at(root.lineno)
        or (root is not value and _is_self(root))
    )
    name = (value.id if isinstance(value, ast.Name) else getattr(value, "attr", "")).lower()
    words = [w for w in name.split("_") if w]
    named = (bool(words) and words[-1] in CALLABLE_WORDS) or name.endswith(CLASS_ENDINGS)
    return local and _instance(value) and not named


def _a_class(value: ast.expr, scope: Scope) -> bool:
    """A class the module defines or imports (`Request`; not `Undefined = object()`, not
    `NotImplemented`), a builtin type, a CapWords attribute (`models.Response`), a `type(...)`."""
    if isinstance(value, ast.Call):
        return isinstance(value.func, ast.Name) and value.func.id == "type"
    if isinstance(value, ast.Name):
        return value.id in scope.classes or value.id in BUILTIN_TYPES
    return (
        isinstance(value, ast.Attribute) and value.attr[:1].isupper() and any(c.islower() for c in value.attr)
    )
