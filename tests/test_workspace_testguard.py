"""The weakened-test guard on its own: each way of quietly weakening a protected test is caught, and
honest edits are not. (A mutant that ignored a module-level `pytestmark` skip survived the old suite.)"""

from __future__ import annotations

import pytest

from repofix.workspace.testguard import weakened

BEFORE = b"""import pytest

def test_add():
    assert add(1, 2) == 3
    assert add(0, 0) == 0

class TestSub:
    def test_sub(self):
        assert sub(3, 1) == 2
"""

WEAKENED = {
    "module pytestmark skip": BEFORE.replace(
        b"import pytest\n", b"import pytest\npytestmark = pytest.mark.skip\n"
    ),
    "module pytestmark list": BEFORE.replace(
        b"import pytest\n",
        b"import pytest\npytestmark = [pytest.mark.slow, pytest.mark.skipif(True, reason='x')]\n",
    ),
    "module pytestmark xfail": BEFORE.replace(
        b"import pytest\n", b"import pytest\npytestmark = pytest.mark.xfail\n"
    ),
    "class skip": BEFORE.replace(b"class TestSub:", b"@pytest.mark.skip\nclass TestSub:"),
    "function skip": BEFORE.replace(b"def test_add", b"@pytest.mark.skip\ndef test_add"),
    "skip call in body": BEFORE.replace(
        b"    assert add(1, 2) == 3\n", b"    pytest.skip('later')\n    assert add(1, 2) == 3\n"
    ),
    "assert True": BEFORE.replace(b"assert add(0, 0) == 0", b"assert True"),
    "assert dropped": BEFORE.replace(b"    assert add(0, 0) == 0\n", b""),
    "test removed": BEFORE.replace(b"def test_add", b"def helper_add"),
    "file deleted": None,
}


@pytest.mark.parametrize("name", list(WEAKENED))
def test_weakening_is_refused(name: str):
    assert weakened("tests/test_m.py", BEFORE, WEAKENED[name], None) != []


HONEST = {
    "unchanged": BEFORE,
    "assert added": BEFORE.replace(
        b"    assert add(0, 0) == 0\n", b"    assert add(0, 0) == 0\n    assert add(2, 2) == 4\n"
    ),
    "non-skip pytestmark": BEFORE.replace(
        b"import pytest\n", b"import pytest\npytestmark = pytest.mark.slow\n"
    ),
    "new test": BEFORE + b"\ndef test_more():\n    assert add(5, 5) == 10\n",
    "does not parse": b"def test_add(:\n",
}


@pytest.mark.parametrize("name", list(HONEST))
def test_honest_edits_pass(name: str):
    assert weakened("tests/test_m.py", BEFORE, HONEST[name], None) == []


def test_only_protected_tests_count():
    skipped = WEAKENED["function skip"]
    assert (
        weakened("tests/test_m.py", BEFORE, skipped, frozenset({"tests/test_m.py::TestSub::test_sub"})) == []
    )
    assert weakened("tests/test_m.py", BEFORE, skipped, frozenset({"tests/test_m.py::test_add[1-2]"})) != []


SKIPPED_BEFORE = BEFORE.replace(b"def test_add", b"@pytest.mark.skip\ndef test_add")


def test_skips_add_up_so_a_new_module_skip_counts_over_an_old_function_skip():
    """1 skip before (a decorator); decorator + module skip after is 2, not 1 | 1."""
    after = SKIPPED_BEFORE.replace(b"import pytest\n", b"import pytest\npytestmark = pytest.mark.skip\n")
    assert weakened("tests/test_m.py", SKIPPED_BEFORE, after, None) == [
        "adds a skip/xfail to test_add",
        "adds a skip/xfail to TestSub::test_sub",
    ]
    in_class = BEFORE.replace(b"    def test_sub", b"    @pytest.mark.skip\n    def test_sub")
    both = in_class.replace(b"class TestSub:", b"@pytest.mark.skip\nclass TestSub:")
    assert weakened("tests/test_m.py", in_class, both, None) == ["adds a skip/xfail to TestSub::test_sub"]


def test_the_reason_counts_the_removed_assertions():
    three = BEFORE.replace(
        b"    assert add(0, 0) == 0\n", b"    assert add(0, 0) == 0\n    assert add(2, 2) == 4\n"
    )
    one = BEFORE.replace(b"    assert add(0, 0) == 0\n", b"")
    assert weakened("tests/test_m.py", three, one, None) == ["removes 2 assertion(s) from test_add"]


def test_unittest_assert_methods_count_as_assertions():
    before = b"import unittest\n\nclass TestX(unittest.TestCase):\n    def test_x(self):\n        self.assertEqual(f(), 1)\n"
    after = before.replace(b"self.assertEqual(f(), 1)", b"f()")
    assert weakened("tests/test_x.py", before, after, None) == ["removes 1 assertion(s) from TestX::test_x"]


def test_only_an_assignment_to_pytestmark_is_a_module_mark():
    """A module-level alias such as `SKIP = pytest.mark.skip` marks nothing by itself; a non-skip
    pytestmark adds no skip either."""
    alias = BEFORE.replace(
        b"import pytest\n", b"import pytest\nSKIP = pytest.mark.skip\nZ = pytest.mark.skip\n"
    )
    assert weakened("tests/test_m.py", BEFORE, alias, None) == []
    marked = BEFORE.replace(b"import pytest\n", b"import pytest\npytestmark = pytest.mark.slow\n")
    marked = marked.replace(b"def test_add", b"@pytest.mark.skip\ndef test_add")
    assert weakened("tests/test_m.py", BEFORE, marked, None) == ["adds a skip/xfail to test_add"]


def test_removing_a_skip_is_honest():
    assert weakened("tests/test_m.py", SKIPPED_BEFORE, BEFORE, None) == []


def test_a_skip_on_a_nested_class_under_a_skipped_class_counts():
    nested = (
        b"import pytest\n\n@pytest.mark.skip\nclass TestOuter:\n    class TestInner:\n"
        b"        def test_x(self):\n            assert f() == 1\n"
    )
    inner_skipped = nested.replace(b"    class TestInner:", b"    @pytest.mark.skip\n    class TestInner:")
    assert weakened("tests/test_n.py", nested, inner_skipped, None) == [
        "adds a skip/xfail to TestOuter::TestInner::test_x"
    ]


def test_a_protected_test_after_an_unprotected_one_is_still_checked():
    # test_add comes first in the file and is not protected; TestSub::test_sub after it is.
    skipped = WEAKENED["class skip"]
    assert weakened(
        "tests/test_m.py", BEFORE, skipped, frozenset({"tests/test_m.py::TestSub::test_sub"})
    ) == ["adds a skip/xfail to TestSub::test_sub"]


def test_moving_a_skip_from_the_decorator_into_the_body_is_not_a_new_skip():
    moved = BEFORE.replace(
        b"    assert add(1, 2) == 3\n", b"    pytest.skip('later')\n    assert add(1, 2) == 3\n"
    )
    assert weakened("tests/test_m.py", SKIPPED_BEFORE, moved, None) == []
