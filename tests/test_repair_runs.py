"""How repair() runs the tests per candidate: stable test ids, failing targets first."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from repofix.repair import Budget, repair
from tests.test_repair_engine import project

WORDS = "def shout(word):\n    if len(word) < 0:\n        return word.upper()\n    return word\n"
# a parametrize over a set: its ids follow string hashing, which differs per interpreter unless seeded
WORDS_TESTS = (
    "import pytest\nfrom words import shout\n\n"
    "WORDS = {'alpha', 'beta', 'gamma', 'delta', 'eps', 'zeta', 'eta', 'theta'}\n\n"
    "@pytest.mark.parametrize('word,box', {(w, (w,)) for w in WORDS})  # ids: alpha-box3 and so on\n"
    "def test_kept_length(word, box):\n    assert len(shout(word)) == len(box[0])\n\n"
    "def test_shout():\n    assert shout('hey') == 'HEY'\n"
)


def test_passing_tests_parametrized_over_a_set_keep_their_ids_between_runs(
    make_sandbox, tmp_path: Path
) -> None:
    root = project(tmp_path, {"words.py": WORDS, "test_words.py": WORDS_TESTS})
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=120))
    assert len(result.passing_tests) == 8
    assert result.status == "plausible", result.message
    assert "if len(word) > 0:" in result.files["words.py"] or ">= 0" in result.files["words.py"]


POINT = (
    "class Point:\n    def __init__(self, x):\n        self.x = x\n\n    def __eq__(self, other):\n"
    "        return isinstance(other, Point) and self.x == other.x\n\n\n"
    "def shift(p, d):\n    return Point(p.x - d)\n"
)


@pytest.mark.parametrize(
    "cases",
    [
        "'x,d,want', [(1, 2, 3), (0, 5, 5)])\ndef test_shift(x, d, want):\n    assert shift(Point(x), d) == Point(want)",
        # a parameter holding the workspace's own class: the child imports a fresh module, so it must
        # not compare against the collected instance (a false rejection); pytest runs it instead
        "'p,d,want', [(Point(1), 2, Point(3)), (Point(0), 5, Point(5))])\n"
        "def test_shift(p, d, want):\n    assert shift(p, d) == want",
    ],
)
def test_parametrized_failing_tests_are_checked_per_candidate(
    cases: str, make_sandbox, tmp_path: Path
) -> None:
    tests = f"import pytest\nfrom point import Point, shift\n\n@pytest.mark.parametrize({cases}\n"
    root = project(tmp_path, {"point.py": POINT, "test_point.py": tests})
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=120))
    assert len(result.failing_tests) == 2
    assert result.status == "plausible", result.message
    assert "Point(p.x + d)" in result.files["point.py"]


STACK = "class Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, x):\n        self.items.append(x)\n\n    def size(self):\n        return len(self.items) + 1\n"
STACK_TESTS = (
    "import unittest\nfrom stack import Stack\n\n\nclass StackTest(unittest.TestCase):\n"
    "    def setUp(self):\n        self.stack = Stack()\n        self.stack.push(1)\n\n"
    "    def test_size(self):\n        self.assertEqual(self.stack.size(), 1)\n\n"
    "    def test_empty(self):\n        self.assertEqual(Stack().size(), 0)\n\n\n"
    "class Fixtured(unittest.TestCase):\n    @classmethod\n    def setUpClass(cls):\n        cls.shared = 1\n\n"
    "    def test_shared(self):\n        self.assertEqual(self.shared, 1)\n"
)
# collects as the worker does, then runs the collected tests directly in a forked child
PROBE = (
    "import json, os, sys\nsys.path.insert(0, os.getcwd())\n"
    "from repofix.repair.insandbox.collect import _warm_up\n"
    "from repofix.repair.insandbox.children import _direct_body, _in_child\n"
    "plain, complete = _warm_up(sys.argv[1:])\n"
    "print(json.dumps([plain, complete, plain and _in_child(_direct_body(plain), 30)[0]]))\n"
)


@pytest.mark.parametrize(
    ("tests", "plain", "complete", "passes"),
    [
        (["test_stack.py::StackTest::test_size"], [["test_stack", "StackTest.test_size", None]], True, False),
        (
            ["test_stack.py::StackTest::test_empty"],
            [["test_stack", "StackTest.test_empty", None]],
            True,
            False,
        ),
        (["test_stack.py::Fixtured::test_shared"], None, True, None),  # setUpClass: pytest runs it
        # an id pytest does not find here (another interpreter's name, see insandbox/ids.py)
        (["test_stack.py::StackTest::test_size", "test_stack.py::StackTest::test_gone"], None, False, None),
    ],
)
def test_unittest_methods_are_run_directly_with_their_set_up(
    tests: list[str], plain: list | None, complete: bool, passes: bool | None, tmp_path: Path
) -> None:
    root = project(tmp_path, {"stack.py": STACK, "test_stack.py": STACK_TESTS})
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *tests], cwd=root, capture_output=True, text=True, env=env, timeout=120
    )
    assert json.loads(done.stdout.splitlines()[-1]) == [plain, complete, passes], done.stderr


def test_a_unittest_case_is_repaired(make_sandbox, tmp_path: Path) -> None:
    root = project(tmp_path, {"stack.py": STACK, "test_stack.py": STACK_TESTS})
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=120))
    assert result.failing_tests == [
        "test_stack.py::StackTest::test_empty",
        "test_stack.py::StackTest::test_size",
    ]
    assert result.status == "plausible", result.message
    assert result.files["stack.py"].splitlines()[-1] in (
        "        return len(self.items)",
        "        return len(self.items) + 0",
    )
