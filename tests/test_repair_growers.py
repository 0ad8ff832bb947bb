"""Methods named for growing the instance that change nothing (repair/growers.py) on their own
minimal cases: which methods count, the growth by a parameter ranked first in one, and the engine
repairing such a missing statement end to end."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from repofix.repair import Budget, repair
from repofix.repair.generate import mutations
from repofix.repair.growers import PRIOR, idle_grower
from repofix.repair.source import SourceFile


def _idle(method: str) -> list[str]:
    func = ast.parse(method).body[0]
    return sorted(idle_grower(func))


@pytest.mark.parametrize(
    ("method", "params"),
    [
        (
            "def push(self, symbol):\n    if symbol not in self.alphabet:\n        raise ValueError(symbol)\n",
            ["symbol"],
        ),
        ("def add_edge(self, a, b):\n    pass\n", ["a", "b"]),
        ("def _register(self, name, *, kind=None):\n    assert isinstance(name, str)\n", ["kind", "name"]),
        ("def add(self, item):\n    if len(item) > 3:\n        raise KeyError(str(item))\n", ["item"]),
        # it changes the instance or something else: an attribute, an item, a method's call
        ("def push(self, symbol):\n    self.stack.append(symbol)\n", []),
        ("def add(self, key, value):\n    self.items[key] = value\n", []),
        ("def add(self, n):\n    self.total += n\n", []),
        ("def add(self, item):\n    del self.removed[item]\n", []),
        ("def add(self, item):\n    self._check(item)\n", []),
        ("def add(self, item):\n    print(item)\n", []),
        ("def register(self, name):\n    global REGISTRY\n    REGISTRY = name\n", []),
        # it makes a value: an operator's result, a registering decorator's inner function
        ("def __add__(self, other):\n    return Vector(self.x + other.x)\n", []),
        ("def add(self, other):\n    return self.x + other\n", []),
        ("def register(self, name):\n    def deco(f):\n        return f\n    return deco\n", []),
        ("def add(self, items):\n    yield items\n", []),
        # not a method, not so named, decorated, no parameter but self
        ("def push(stack, symbol):\n    pass\n", []),
        ("def check(self, symbol):\n    pass\n", []),
        ("def padding(self, n):\n    pass\n", []),
        ("@abstractmethod\ndef add(self, item):\n    pass\n", []),
        ("def add(self):\n    pass\n", []),
    ],
    ids=[
        "checks-and-raises",
        "pass",
        "private-keyword-only",
        "pure-builtins",
        "appends",
        "stores-an-item",
        "augments",
        "deletes",
        "calls-a-method",
        "calls-a-function",
        "global",
        "dunder",
        "returns-a-value",
        "decorator-factory",
        "yields",
        "not-a-method",
        "not-a-growing-verb",
        "verb-only-as-a-prefix-of-a-word",
        "decorated",
        "no-parameter",
    ],
)
def test_which_methods_are_idle_growers(method: str, params: list[str]) -> None:
    assert _idle(method) == params


STACK = """\
class Stack:
    def __init__(self, alphabet):
        self.alphabet = set(alphabet)
        self.stack = []

    def push(self, symbol):
        if symbol not in self.alphabet:
            raise ValueError(symbol)
        symbol = str(symbol)

    def check(self, symbol):
        if symbol not in self.alphabet:
            raise ValueError(symbol)
        symbol = str(symbol)

    def pop(self):
        return self.stack.pop()
"""


def _updates(source: str, line: int) -> dict[str, float]:
    found = mutations(SourceFile("m.py", source), [line])
    return {m.edits[0].text.strip(): m.prior for m in found if m.op == "add-update"}


def test_the_growth_by_a_parameter_ranks_first_in_an_idle_grower_only() -> None:
    in_push = _updates(STACK, 9)  # after push's last statement
    assert in_push["self.stack.append(symbol)"] == PRIOR
    assert in_push["self.alphabet.add(symbol)"] == PRIOR  # any container of the instance's
    in_check = _updates(STACK, 14)  # the same statements in a method not named for growing
    assert in_check["self.stack.append(symbol)"] < PRIOR
    # what is grown by something else than a parameter keeps its prior
    assert all(p < PRIOR for text, p in in_push.items() if not text.endswith("(symbol)"))


STACK_TESTS = """\
import pytest

from stack import Stack


def test_push_then_pop():
    s = Stack("ab")
    s.push("b")
    s.push("a")
    assert [s.pop(), s.pop()] == ["a", "b"]


def test_a_new_stack_is_empty():
    with pytest.raises(IndexError):
        Stack("ab").pop()


def test_push_rejects_a_symbol_outside_the_alphabet():
    with pytest.raises(ValueError):
        Stack("ab").push("c")


def test_check():
    Stack("ab").check("a")
"""


def test_the_engine_repairs_the_missing_growth_of_an_idle_grower(make_sandbox, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "stack.py").write_text(STACK)
    (root / "test_stack.py").write_text(STACK_TESTS)
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=240, test_timeout=2))
    assert result.status == "plausible", result.message
    fixed = "        symbol = str(symbol)\n        self.stack.append(symbol)\n\n    def check"
    assert fixed in result.files["stack.py"], result.patch_diff
