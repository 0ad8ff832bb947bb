"""Does a change delete or weaken tests? Compares test functions before and after with `ast`:
removed test functions, fewer assertions, and new skips / xfails each count."""

from __future__ import annotations

import ast
from dataclasses import dataclass


@dataclass(frozen=True)
class TestShape:
    asserts: int
    skips: int


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        return _dotted(node.func)
    return ""


def _is_skip(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return last in {"skip", "skipif", "xfail", "skipTest", "skipIf", "skipUnless", "expectedFailure"}


def _shape(func: ast.AST) -> TestShape:
    asserts = skips = 0
    for node in ast.walk(func):
        if isinstance(node, ast.Assert):
            # `assert True` (any truthy constant) asserts nothing: replacing a check with it weakens the test
            if not (isinstance(node.test, ast.Constant) and node.test.value):
                asserts += 1
        elif isinstance(node, ast.Call):
            name = _dotted(node.func)
            last = name.rsplit(".", 1)[-1]
            if last.startswith(("assert", "fail")) or last in {"raises", "warns", "approx", "assertRaises"}:
                asserts += 1
            elif _is_skip(name):
                skips += 1
    for decorator in getattr(func, "decorator_list", []):
        if _is_skip(_dotted(decorator)):
            skips += 1
    return TestShape(asserts, skips)


def _is_test_class(node: ast.ClassDef) -> bool:
    return node.name.startswith("Test") or any(_dotted(b).endswith("TestCase") for b in node.bases)


def _collect(body: list[ast.stmt], prefix: str, inherited_skips: int, shapes: dict[str, TestShape]) -> None:
    """Test functions in `body`, named like pytest node ids ("TestA::TestB::test_x"), nested classes included."""
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
            shape = _shape(node)
            shapes[prefix + node.name] = TestShape(shape.asserts, shape.skips + inherited_skips)
        elif isinstance(node, ast.ClassDef) and _is_test_class(node):
            skips = inherited_skips + sum(1 for d in node.decorator_list if _is_skip(_dotted(d)))
            _collect(node.body, f"{prefix}{node.name}::", skips, shapes)


def test_shapes(source: bytes) -> dict[str, TestShape] | None:
    """Test name ("test_x" or "TestY::test_x") -> its shape; None when the file does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):  # also a line nested deeper than the parser goes
        return None
    shapes: dict[str, TestShape] = {}
    module_skips = 0
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(_dotted(t) == "pytestmark" for t in node.targets):
            module_skips += sum(1 for n in ast.walk(node.value) if _is_skip(_dotted(n)))
    _collect(tree.body, "", 0, shapes)
    if module_skips:
        shapes = {k: TestShape(v.asserts, v.skips + module_skips) for k, v in shapes.items()}
    return shapes


def weakened(path: str, old: bytes | None, new: bytes | None, protected: frozenset[str] | None) -> list[str]:
    """Reasons why the change from `old` to `new` weakens protected tests in `path` (empty: it does not).
    `protected`: node ids ("path::test_x") passing at the baseline; None protects every test."""
    before = test_shapes(old) if old is not None else {}
    if not before:
        return []
    after = test_shapes(new) if new is not None else {}
    if after is None:  # does not parse: the tests will fail loudly, not pass quietly
        return []
    reasons = []
    # Node ids of parametrized tests carry "[params]"; the source knows only the function.
    bases = None if protected is None else {p.split("[", 1)[0] for p in protected}
    for name, shape in before.items():
        if bases is not None and f"{path}::{name}" not in bases:
            continue
        now = after.get(name)
        if now is None:
            reasons.append(f"removes test {name}")
        elif now.asserts < shape.asserts:
            reasons.append(f"removes {shape.asserts - now.asserts} assertion(s) from {name}")
        elif now.skips > shape.skips:
            reasons.append(f"adds a skip/xfail to {name}")
    return reasons
