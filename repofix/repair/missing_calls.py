"""Missing calls around values that are not `wrappers.wrap_targets`: a bare expression statement,
what a condition tests, text with an attribute no text has, the receiver of a method call, a value
indexed. Part of the additions (additions.for_node applies them)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from repofix.repair.scope import BUILTIN_NAMES, Scope
from repofix.repair.source import Mutation, SourceFile
from repofix.repair.wrappers import NAMED_PRIOR, literal_or_text, named_for, wrap_in

# `if items` -> `if any(items)`, `if self.wrapped` -> `if callable(self.wrapped)`; the module's own
# callees follow
TEST_WRAPPERS = ("any", "all", "len", "callable")
RECEIVER_WRAPPERS = ("str",)  # `name.lower()` -> `str(name).lower()`: a path or a number given for text
# `self.digits[0]` -> `str(self.digits)[0]`: a number, a set or a view indexed as text or a list
# (custom-numbers' planted `str(self.numeral_system)[0]`, twice); builtins only: any callable of
# the module around every indexed value would be a guess among many on the commonest of lines
INDEXED_WRAPPERS = ("str", "list", "sorted")
INDEXED_PRIOR = 0.2


def call_targets(node: ast.AST, parent: ast.AST) -> list[tuple[ast.expr, list[str], float]]:
    """Values whose missing call is not one of `wrap_targets`': a bare expression statement (it does
    nothing, so a call is almost certainly missing), what a condition tests (of an `if`, `while`,
    conditional expression, `assert` or comprehension filter: `condition_values`), text whose
    attribute no text has, the receiver of a method call (`value.setBitLength()` ->
    `SizedInteger(value).setBitLength()`); with callables to try besides the scope's callees, and a
    prior."""
    if isinstance(node, ast.Expr) and isinstance(node.value, (ast.Name, ast.Attribute, ast.Subscript)):
        return [(node.value, [], 0.45)]
    if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)) and not isinstance(
        node.test, ast.Constant
    ):
        return [(test, list(TEST_WRAPPERS), 0.25) for test in condition_values(node.test)]
    if isinstance(node, ast.comprehension):
        tests = [
            test for cond in node.ifs if not isinstance(cond, ast.Constant) for test in condition_values(cond)
        ]
        return [(test, list(TEST_WRAPPERS), 0.25) for test in tests]
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        and not hasattr(str, node.attr)
    ):
        return [(node.value, [], 0.45)]  # `"tables".TABLE` fails for sure: `load("tables").TABLE`
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id not in ("self", "cls")
        and isinstance(parent, ast.Call)
        and parent.func is node
    ):
        return [(node.value, list(RECEIVER_WRAPPERS), 0.2)]
    return []


def condition_values(test: ast.expr) -> list[ast.expr]:
    """What a condition tests, and so what a dropped predicate left bare: the whole test, the value of
    a `not`, and a plain value (a name, attribute or item) among the operands of an `and`/`or`,
    bare or under `not` (`not ascii_is_alpha(c) and c != "-"` -> `not c and c != "-"`)."""
    found = [test]
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        found.append(test.operand)  # `not xs` -> `not any(xs)`
    if isinstance(test, ast.BoolOp):
        for value in test.values:
            inner = (
                value.operand if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not) else value
            )
            if isinstance(inner, (ast.Name, ast.Attribute, ast.Subscript)):
                found.append(inner)
    return found


def add_call(
    src: SourceFile, value: ast.expr, also: list[str], prior: float, scope: Scope
) -> Iterator[Mutation]:
    """Wrap `value` in a call of the function's own callees (prior + 0.05), then `also` and the
    module's."""
    named = named_for(value, scope)
    for name in dict.fromkeys([*scope.unused, *scope.own, *also, *scope.callees]):
        if literal_or_text(value) and name in BUILTIN_NAMES:
            continue
        if name in RECEIVER_WRAPPERS and getattr(value, "id", None) not in scope.tests:
            continue  # `str(os).getcwd()`: a module, class or function of the module is never text
        boost = 0.1 if name in scope.unused else 0.05 if name in scope.own else 0.0
        yield wrap_in(src, value, name, max(prior + boost, NAMED_PRIOR if name in named else 0.0))


def indexed(src: SourceFile, node: ast.AST, scope: Scope) -> Iterator[Mutation]:
    """`x[i]` -> `str(x)[i]`, `list(x)[i]`, `sorted(x)[i]`: a local, a parameter or an attribute of
    one indexed (not sliced: `str(x)[1:]` would be the slice's fix too) that was not yet text or a
    list; never a global, a module, a class or a call's result."""
    if not (
        isinstance(node, ast.Subscript)
        and isinstance(node.ctx, ast.Load)
        and not isinstance(node.slice, ast.Slice)
        and _local_value(node.value, scope)
    ):
        return
    for name in INDEXED_WRAPPERS:
        yield wrap_in(src, node.value, name, INDEXED_PRIOR)


def _local_value(value: ast.expr, scope: Scope) -> bool:
    """A name the function binds or takes (`scope.bound`; a global may be a table, a module, a class)
    but the instance or class itself, or an attribute chain on one or on `self`/`cls`."""
    root = value
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name):
        return False
    if root is value:
        return root.id in scope.bound and root.id not in ("self", "cls")
    return root.id in scope.bound or root.id in ("self", "cls")


def named_receiver(src: SourceFile, node: ast.AST, parent: ast.AST, scope: Scope) -> Iterator[Mutation]:
    """`karyotype.valid` -> `validate_karyotype(karyotype).valid`: the receiver of an attribute read
    (not a method called: `call_targets` has those) wrapped in a callable of the module whose one
    argument bears its name; any other callable there would be a guess among many."""
    if not (
        isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Load)
        and isinstance(node.value, ast.Name)
        and not (isinstance(parent, ast.Call) and parent.func is node)
    ):
        return
    for name in sorted(named_for(node.value, scope)):
        yield wrap_in(src, node.value, name, NAMED_PRIOR)
