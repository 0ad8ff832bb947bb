"""A callable parameter nothing calls: `def if_(condition_func, validation_func)` whose nested
`wrapper` tests `if not obj:` where `if not condition_func(obj):` was meant (styler-validation,
heldout49). A parameter its function never reads is the trace a dropped call leaves, and a name
that says it is called (`*_func`, `callback`, `predicate`, `key`...) or a `Callable` annotation
says what the call was: the candidate calls it on a value the function or a function nested in it
uses. No scope offered it: a missing wrapper is one of the callables the module calls, and nothing
calls this one any more."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from repofix.repair.source import ATOMS, Mutation, SourceFile
from repofix.repair.wrappers import wrap_in, wrap_targets

IDLE_PRIOR = 0.4  # an unread parameter named to be called: little else explains it
MAX_IDLE = 2  # idle callables tried around a value, the innermost function's first
CALLED = re.compile(
    r"(^|_)(func|fn|function|callback|cb|hook|handler|predicate|pred|condition|cond|check|checker|"
    r"validator|validate|test|transform|transformer|converter|convert|factory|formatter|getter|mapper|"
    r"key|action|callable)$",
    re.IGNORECASE,
)


def idle_callables(module: ast.Module) -> list[tuple[int, int, str]]:
    """(first line, last line, parameter) for each parameter of a function of the module that the
    function never reads, there or in a function nested in it, and whose name or annotation says it
    is to be called; the innermost functions' first."""
    found: list[tuple[int, int, str]] = []
    for func in (n for n in ast.walk(module) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        read = {n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        for arg in _arguments(func):
            annotated = arg.annotation is not None and "Callable" in ast.unparse(arg.annotation)
            if arg.arg not in read and (annotated or CALLED.search(arg.arg)):
                found.append((func.lineno, func.end_lineno or func.lineno, arg.arg))
    return sorted(found, key=lambda f: f[0] - f[1])  # the shortest span first: the innermost


def call_idle(
    src: SourceFile, node: ast.AST, parent: ast.AST, idle: list[tuple[int, int, str]]
) -> Iterator[Mutation]:
    """`callable(value)` around each value a wrapper may be missing around, or a condition's operand
    (`if not obj:` -> `if not condition_func(obj):`), in a function with an idle callable."""
    line = getattr(node, "lineno", getattr(parent, "lineno", 0))
    names = [name for first, last, name in idle if first < line <= last][:MAX_IDLE]
    if not names:
        return
    for value in [*wrap_targets(node), *_condition_operands(node)]:
        if isinstance(value, ast.Constant) or not isinstance(value, (*ATOMS, ast.Call, ast.Subscript)):
            continue
        for name in names:
            if name not in src.segment(value):
                yield wrap_in(src, value, name, IDLE_PRIOR)


def _arguments(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    a = func.args
    return [*a.posonlyargs, *a.args, *a.kwonlyargs]


def _condition_operands(node: ast.AST) -> list[ast.expr]:
    """The test of an `if`, `while`, conditional expression or `assert` and, for an `and`/`or`,
    each of its operands; under a `not`, what it negates."""
    test = (
        getattr(node, "test", None) if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)) else None
    )
    if test is None:
        return []
    operands = test.values if isinstance(test, ast.BoolOp) else [test]
    return [o.operand if isinstance(o, ast.UnaryOp) and isinstance(o.op, ast.Not) else o for o in operands]
