"""Missing calls around values that are not `wrappers.wrap_targets`: a bare expression statement,
what a condition tests, text with an attribute no text has, the receiver of a method call, a value
indexed, a value the module calls a callable on elsewhere. Part of the additions (additions.for_node
applies them)."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from typing import TypeGuard

from repofix.repair.scope import Scope
from repofix.repair.source import Mutation, SourceFile, function_spans
from repofix.repair.wrappers import NAMED_PRIOR, misfit_wrapper, named_for, wrap_in

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
        if misfit_wrapper(value, name):
            continue
        if name in RECEIVER_WRAPPERS and getattr(value, "id", None) not in scope.tests:
            continue  # `str(os).getcwd()`: a module, class or function of the module is never text
        boost = 0.1 if name in scope.unused else 0.05 if name in scope.own else 0.0
        yield wrap_in(src, value, name, max(prior + boost, NAMED_PRIOR if name in named else 0.0))


def indexed(src: SourceFile, node: ast.AST, parent: ast.AST, scope: Scope) -> Iterator[Mutation]:
    """`x[i]` -> `str(x)[i]`, `list(x)[i]`, `sorted(x)[i]`: a local, a parameter or an attribute of
    one indexed (not sliced: `str(x)[1:]` would be the slice's fix too) that was not yet text or a
    list; never a global, a module, a class or a call's result."""
    if not (
        isinstance(node, ast.Subscript)
        and isinstance(node.ctx, ast.Load)
        and not _sliced(node.slice)
        and _local_value(node.value, scope)
        # `x[i][j] += 1` -> `str(x)[i][j] += 1` writes into a copy, and may pass a weak suite
        and not (isinstance(parent, ast.Subscript) and not isinstance(parent.ctx, ast.Load))
    ):
        return
    for name in INDEXED_WRAPPERS:
        yield wrap_in(src, node.value, name, INDEXED_PRIOR)


def _sliced(index: ast.expr) -> bool:
    """`x[1:]`, `x[1:, 0]`."""
    return (
        isinstance(index, ast.Slice)
        or isinstance(index, ast.Tuple)
        and any(isinstance(e, ast.Slice) for e in index.elts)
    )


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


# `self._word in self.SCALE_VALUES` in a module that reads `Decimal(self._word)` twice elsewhere: the
# value lost the call the code makes on it elsewhere (text2digits, heldout31); a plain wrapper of the
# module's is one guess among dozens there (0.25-0.3), and the compared operand gets only the
# function's own callees
ECHO_PRIOR = 0.45
MAX_ECHOES = 3  # callees per value, the most used first
ECHO_SPAN = 200  # characters: a larger value is not looked up (its tree's dump on every line of it)


def wrapped_elsewhere(src: SourceFile, node: ast.AST, parent: ast.AST, scope: Scope) -> Iterator[Mutation]:
    """`x` -> `f(x)` where the module calls `f(x)` (one argument, the same tree) elsewhere; when `x`
    reads a name the function binds, only a call in the same function counts (another's `x` is
    another value)."""
    if not _echo_candidate(node, parent):
        return
    start, end = src.span(node)
    if end - start > ECHO_SPAN:
        return
    calls = _one_argument_calls(src.tree).get(ast.dump(node), [])
    if not calls:
        return
    if any(
        isinstance(n, ast.Name) and n.id in scope.bound and n.id not in ("self", "cls")
        for n in ast.walk(node)
    ):
        first, last = _function_around(src.tree, node.lineno)
        calls = [(name, line) for name, line in calls if first <= line <= last]
    inside = parent.func.id if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) else ""
    counted: dict[str, int] = {}
    for name, _ in calls:
        if name != inside:
            counted[name] = counted.get(name, 0) + 1
    ranked = sorted(counted, key=lambda n: (-counted[n], n))  # the most called first
    for name in [n for n in ranked if not misfit_wrapper(node, n)][:MAX_ECHOES]:
        yield wrap_in(src, node, name, ECHO_PRIOR)


def _echo_candidate(node: ast.AST, parent: ast.AST) -> TypeGuard[ast.expr]:
    """A value read (not stored, not a literal, not a callee, not unpacked)."""
    if not isinstance(node, ast.expr) or isinstance(node, (ast.Constant, ast.Starred, ast.Lambda)):
        return False
    if not isinstance(getattr(node, "ctx", ast.Load()), ast.Load):
        return False
    return not (isinstance(parent, ast.Call) and parent.func is node) and not isinstance(parent, ast.keyword)


@functools.lru_cache(maxsize=8)  # keyed by the tree itself (held while cached)
def _one_argument_calls(module: ast.Module) -> dict[str, list[tuple[str, int]]]:
    """Per argument (its tree's dump), the plain names the module calls with it alone, and where;
    not a raise's class (`raise ValueError(msg)`: a class is `raise_value`'s), nor a value's update
    (`text = plain_marks(text)`: the `text` after it has had that call)."""
    skipped: set[int] = set()
    for node in ast.walk(module):
        if isinstance(node, ast.Raise):
            skipped.update(id(n) for n in (node.exc, node.cause) if n is not None)
        elif isinstance(node, ast.Assign) and _updates_its_argument(node):
            skipped.add(id(node.value))
    found: dict[str, list[tuple[str, int]]] = {}
    for node in ast.walk(module):
        if (
            isinstance(node, ast.Call)
            and id(node) not in skipped
            and isinstance(node.func, ast.Name)
            and len(node.args) == 1
            and not node.keywords
            and not isinstance(node.args[0], (ast.Constant, ast.Starred))
        ):
            found.setdefault(ast.dump(node.args[0]), []).append((node.func.id, node.lineno))
    return found


def _updates_its_argument(node: ast.Assign) -> bool:
    """`x = f(x)`."""
    if not (isinstance(node.value, ast.Call) and len(node.value.args) == 1):
        return False
    return any(ast.unparse(t) == ast.unparse(node.value.args[0]) for t in node.targets)


def _function_around(module: ast.Module, line: int) -> tuple[int, int]:
    """The first and last line of the innermost function holding `line` (the module's, when none)."""
    around = [(first, last) for first, last in function_spans(module) if first <= line <= last]
    return max(around, default=(0, 1 << 30))
