"""The engine runs a suite's tests in the suite's own order: tests that share state (a class's
iterator stepped by parametrized cases, as custom-numbers' GearIterator tests do) pass only in the
order pytest collects them, and a fix checked against them in another order (their ids sorted) was
rejected though the whole suite passes with it."""

from __future__ import annotations

from pathlib import Path

from repofix.repair import Budget, repair
from repofix.repair.checker import Checker
from repofix.repair.engine import baseline

CODE = """\
class Letters:
    def __init__(self, letters):
        self.letters = list(letters)

    def step(self):
        return self.letters.pop(0)


def is_positive(n):
    return n >= 0
"""

# a class whose parametrized cases step one iterator: collected z, y, x; their ids sorted run x
# first, which gets "z"
STEPS = """\
class TestSteps:
    @classmethod
    def setup_class(cls):
        cls.letters = Letters("zyx")

    @pytest.mark.parametrize("expected", ["z", "y", "x"])
    def test_step(self, expected):
        assert self.letters.step() == expected
"""
TESTS = f"""\
import pytest

from letters import Letters, is_positive


{STEPS}

def test_zero_is_not_positive():
    assert is_positive(0) is False


def test_one_is_positive():
    assert is_positive(1) is True


class TestMoreSteps:
    letters = Letters("cba")

    @pytest.mark.parametrize("expected", ["c", "b", "a"])
    def test_step(self, expected):
        assert self.letters.step() == expected
"""


def _repo(tmp_path: Path, code: str = CODE, tests: str = TESTS) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "letters.py").write_text(code)
    (root / "test_letters.py").write_text(tests)
    return root


def test_the_baseline_keeps_the_suite_s_order(make_sandbox, tmp_path: Path) -> None:
    box = make_sandbox("none", source=_repo(tmp_path))
    _, failing, passing, _ = baseline(Checker(box), [], None, 120, 5)
    assert failing == ["test_letters.py::test_zero_is_not_positive"]
    assert passing == [
        "test_letters.py::TestSteps::test_step[z]",
        "test_letters.py::TestSteps::test_step[y]",
        "test_letters.py::TestSteps::test_step[x]",
        "test_letters.py::test_one_is_positive",
        "test_letters.py::TestMoreSteps::test_step[c]",
        "test_letters.py::TestMoreSteps::test_step[b]",
        "test_letters.py::TestMoreSteps::test_step[a]",
    ]


def test_the_engine_repairs_a_suite_whose_tests_share_state(make_sandbox, tmp_path: Path) -> None:
    result = repair(
        make_sandbox("none", source=_repo(tmp_path)), budget=Budget(max_seconds=240, test_timeout=2)
    )
    assert result.status == "plausible", result.message
    fixed = result.files["letters.py"].splitlines()[-1].strip()
    assert fixed in ("return n > 0", "return n >= 1"), result.patch_diff


# the stateful tests run the buggy line: they are run first for each candidate, in their own order
STEPPED = """\
class Letters:
    def __init__(self, letters):
        self.letters = list(letters)

    def step(self):
        return norm(self.letters.pop(0))


def norm(s):
    if len(s) > 2:
        return s[:1]
    return s
"""
STEPPED_TESTS = f"""\
import pytest

from letters import Letters, norm


{STEPS}

def test_two_letters_are_cut():
    assert norm("ab") == "a"


@pytest.mark.parametrize("n", range(6))
def test_other(n):
    assert n >= 0
"""


def test_the_tests_that_ran_a_candidate_s_line_run_first_in_their_order(make_sandbox, tmp_path: Path) -> None:
    result = repair(
        make_sandbox("none", source=_repo(tmp_path, STEPPED, STEPPED_TESTS)),
        budget=Budget(max_seconds=240, test_timeout=2),
    )
    assert result.mutation is not None, result.message  # plausible, or held back: one test speaks for it
    assert result.mutation.description in ("constant 2 -> 1", "comparison > -> >="), result.message
