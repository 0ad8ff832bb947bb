"""The exception classes the failing tests expect raised: `with pytest.raises(FileNotFoundError):`,
`self.assertRaises(KeyError, ...)`, or a parametrized `pytest.raises(error)` whose case names
`ZeroDivisionError`. A `raise "Missing include"` that lost its class is mended by the class the test
names; the operators' own classes (the module's and a few builtin ones) missed it, and a guard that
goes round the `raise` to reach another one that raises the class was claimed instead (heldout42's
calculator, heldout43's jxconfig). Test files are data here: they are parsed, never run."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator

from repofix.repair.scope import BUILTIN_ERRORS
from repofix.repair.source import UNPARSABLE

RAISES = {"raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp"}
MAX_TEST_BYTES = 400_000  # a test file larger than this is not read (as the coverage run's sources)
# each is tried at every `raise` of the searched lines: a suite naming hundreds (a generated or
# hostile one) must not multiply the candidates; the first met are kept
MAX_EXPECTED = 8


def expected_errors(tests: dict[str, str], failing: Iterable[str]) -> list[str]:
    """The exception class names (a dotted one by its last part) that the `failing` tests' functions
    expect raised, the first `MAX_EXPECTED` met; `tests` maps a test file's path to its text."""
    trees: dict[str, ast.Module | None] = {}
    found: list[str] = []
    for nodeid in failing:
        path, *names = nodeid.split("::")
        if not names or path not in tests:
            continue
        if path not in trees:
            trees[path] = _parsed(tests[path])
        tree = trees[path]
        if tree is None:
            continue
        name, _, case = names[-1].partition("[")
        func = _function(tree, [*names[:-1], name])
        if func is not None:
            found += _expected_by(func, tree, case.removesuffix("]"))
    return list(dict.fromkeys(found))[:MAX_EXPECTED]


def _parsed(text: str) -> ast.Module | None:
    if len(text) > MAX_TEST_BYTES:
        return None
    try:
        return ast.parse(text)
    except UNPARSABLE:  # a test file we cannot read tells nothing
        return None


def _function(tree: ast.Module, names: list[str]) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The test function the node id's names lead to (classes, then the function)."""
    body: list[ast.stmt] = tree.body
    for name in names[:-1]:
        cls = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == name), None)
        if cls is None:
            return None
        body = cls.body
    functions = (n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    return next((f for f in functions if f.name == names[-1]), None)


def _expected_by(func: ast.FunctionDef | ast.AsyncFunctionDef, tree: ast.Module, case: str) -> list[str]:
    """The classes `func`'s raises-calls name; a parameter's (`pytest.raises(error)`) are the
    exception classes its decorators list (or a module-level list they name: `parametrize("text,
    error", CASES)`), only those the case's id names when it names any."""
    params = {a.arg for a in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]}
    tokens = set(re.findall(r"\w+", case))
    found: list[str] = []
    for node in ast.walk(func):
        if not (isinstance(node, ast.Call) and _callee(node.func) in RAISES and node.args):
            continue
        first = node.args[0]
        if isinstance(first, ast.Name) and first.id in params:
            listed = [n for d in _cases(func, tree) for n in _errors_in(d)]
            named = [n for n in listed if n in tokens]
            found += named or listed
        else:
            found += _classes(first)
    return found


def _cases(func: ast.FunctionDef | ast.AsyncFunctionDef, tree: ast.Module) -> list[ast.AST]:
    """`func`'s decorators, and the values of the module-level names they read."""
    read = {n.id for d in func.decorator_list for n in ast.walk(d) if isinstance(n, ast.Name)}
    bound = [
        s.value
        for s in tree.body
        if isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id in read for t in s.targets)
    ]
    return [*func.decorator_list, *bound]


def _classes(node: ast.expr) -> list[str]:
    """What a raises-call's first argument names: a class (`FileNotFoundError`, `errors.BadQuery`)
    or a tuple of them, each by its last name."""
    items = node.elts if isinstance(node, ast.Tuple) else [node]
    names = [
        i.id if isinstance(i, ast.Name) else i.attr if isinstance(i, ast.Attribute) else "" for i in items
    ]
    return [n for n in names if n[:1].isupper()]


def _callee(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _errors_in(node: ast.AST) -> Iterator[str]:
    """Names (or a dotted name's last part) in `node` that are exception classes: a builtin one, or
    one named as such (`ParseError`, `errors.InvalidQuery`); a parametrized case's list holds other
    values too."""
    for sub in ast.walk(node):
        name = sub.id if isinstance(sub, ast.Name) else sub.attr if isinstance(sub, ast.Attribute) else ""
        if name in BUILTIN_ERRORS or name.endswith(("Error", "Exception")) and name[:1].isupper():
            yield name
