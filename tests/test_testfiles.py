"""The one rule for "is this a test file?" that every room uses."""

import pytest

from repofix.testfiles import is_test_file, is_test_module


@pytest.mark.parametrize(
    ("path", "module", "test_file"),
    [
        ("tests/test_calc.py", True, True),
        ("test_calc.py", True, True),
        ("pkg/calc_test.py", True, True),
        ("conftest.py", False, True),  # fixtures and hooks: test code, but pytest collects no test from it
        ("tests/conftest.py", False, True),
        ("tests/helpers.py", False, True),
        ("tests/unit/helpers.py", False, True),
        ("test/util.py", False, True),
        ("pkg/calc.py", False, False),
        ("pkg/testing.py", False, False),
        ("pkg/contest.py", False, False),
        ("latest/mod.py", False, False),  # a folder that merely ends in "test"
        ("tests/data.json", False, False),  # data, not test code
        ("test_notes.txt", False, False),
    ],
)
def test_rule(path: str, module: bool, test_file: bool) -> None:
    assert is_test_module(path) is module
    assert is_test_file(path) is test_file
