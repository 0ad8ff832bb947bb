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
from dataclasses import dataclass, field

from repofix.repair.numbers import with_defaults
from repofix.repair.source import ATOMS, Mutation, SourceFile, own_scope
from repofix.repair.wrappers import wrap_in, wrap_targets

IDLE_PRIOR = 0.4  # an unread parameter named to be called: little else explains it
MAX_IDLE = 2  # idle callables tried around a value, the innermost function's first
# a name ending so is called (`condition_func`, `on_done_callback`); one of EXACT only as the whole
# name: `api_key`, `run_test`, `validate=True` are data and flags
CALLED = re.compile(
    r"(^|_)(func|fn|function|callback|cb|hook|handler|predicate|pred|transform|transformer|converter|"
    r"formatter|validator|checker|factory|getter|mapper|callable)$",
    re.IGNORECASE,
)
EXACT = {"key", "test", "check", "validate", "condition", "cond", "convert", "action", "filter"}
DATA = {"bool", "str", "int", "float", "bytes"}  # an annotation that says it is no callable


@dataclass
class Idle:
    """A callable parameter its function never reads: where a call of it may go (the function's
    body, not its header's defaults) and the nested scopes that bind the name to something else."""

    name: str
    first: int  # the function body's first line
    last: int
    shadowed: list[tuple[int, int]] = field(default_factory=list)  # lines of scopes rebinding it

    def visible(self, line: int) -> bool:
        return self.first <= line <= self.last and not any(a <= line <= b for a, b in self.shadowed)


def idle_callables(module: ast.Module) -> list[Idle]:
    """Each parameter of a function of the module that the function never reads or rebinds, there
    or in a function nested in it, and whose name or annotation says it is to be called, and no
    default says it is data (`validate=True`); the innermost functions' first."""
    found: list[Idle] = []
    for func in (n for n in ast.walk(module) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        used = {n.id for n in ast.walk(func) if isinstance(n, ast.Name)}  # read or rebound
        for arg, default in with_defaults(func):
            if arg.arg not in used and _callable(arg, default):
                shadowed = [_lines(n) for n in ast.walk(func) if n is not func and _binds(n, arg.arg)]
                found.append(Idle(arg.arg, func.body[0].lineno, func.end_lineno or func.lineno, shadowed))
    return sorted(found, key=lambda f: f.last - f.first)  # the shortest span first: the innermost


def call_idle(src: SourceFile, node: ast.AST, parent: ast.AST, idle: list[Idle]) -> Iterator[Mutation]:
    """`callable(value)` around each value a wrapper may be missing around, or a condition's operand
    (`if not obj:` -> `if not condition_func(obj):`), where an idle callable is visible."""
    line = getattr(node, "lineno", getattr(parent, "lineno", 0))
    names = list(dict.fromkeys(i.name for i in idle if i.visible(line)))[:MAX_IDLE]
    if not names:
        return
    for value in [*wrap_targets(node), *_condition_operands(node)]:
        if isinstance(value, ast.Constant) or not isinstance(value, (*ATOMS, ast.Call, ast.Subscript)):
            continue
        for name in names:
            if name not in src.segment(value):
                yield wrap_in(src, value, name, IDLE_PRIOR)


def _callable(arg: ast.arg, default: ast.expr | None) -> bool:
    annotation = ast.unparse(arg.annotation) if arg.annotation is not None else ""
    if annotation in DATA or (isinstance(default, ast.Constant) and default.value is not None):
        return False
    return "Callable" in annotation or arg.arg in EXACT or bool(CALLED.search(arg.arg))


def _binds(node: ast.AST, name: str) -> bool:
    """`node` is a nested function, lambda or comprehension with `name` among its own names."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        params = [a.arg for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]]
        params += [a.arg for a in (node.args.vararg, node.args.kwarg) if a is not None]
        stored = {n.id for n in own_scope(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        return name in params or name in stored
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        return any(
            isinstance(n, ast.Name) and n.id == name for g in node.generators for n in ast.walk(g.target)
        )
    return False


def _lines(node: ast.AST) -> tuple[int, int]:
    return node.lineno, getattr(node, "end_lineno", None) or node.lineno  # type: ignore[attr-defined]


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
