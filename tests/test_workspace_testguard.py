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
    "module pytestmark skip": BEFORE.replace(b"import pytest\n", b"import pytest\npytestmark = pytest.mark.skip\n"),
    "module pytestmark list": BEFORE.replace(
        b"import pytest\n", b"import pytest\npytestmark = [pytest.mark.slow, pytest.mark.skipif(True, reason='x')]\n"),
    "module pytestmark xfail": BEFORE.replace(b"import pytest\n", b"import pytest\npytestmark = pytest.mark.xfail\n"),
    "class skip": BEFORE.replace(b"class TestSub:", b"@pytest.mark.skip\nclass TestSub:"),
    "function skip": BEFORE.replace(b"def test_add", b"@pytest.mark.skip\ndef test_add"),
    "skip call in body": BEFORE.replace(b"    assert add(1, 2) == 3\n", b"    pytest.skip('later')\n    assert add(1, 2) == 3\n"),
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
    "assert added": BEFORE.replace(b"    assert add(0, 0) == 0\n", b"    assert add(0, 0) == 0\n    assert add(2, 2) == 4\n"),
    "non-skip pytestmark": BEFORE.replace(b"import pytest\n", b"import pytest\npytestmark = pytest.mark.slow\n"),
    "new test": BEFORE + b"\ndef test_more():\n    assert add(5, 5) == 10\n",
    "does not parse": b"def test_add(:\n",
}


@pytest.mark.parametrize("name", list(HONEST))
def test_honest_edits_pass(name: str):
    assert weakened("tests/test_m.py", BEFORE, HONEST[name], None) == []


def test_only_protected_tests_count():
    skipped = WEAKENED["function skip"]
    assert weakened("tests/test_m.py", BEFORE, skipped, frozenset({"tests/test_m.py::TestSub::test_sub"})) == []
    assert weakened("tests/test_m.py", BEFORE, skipped, frozenset({"tests/test_m.py::test_add[1-2]"})) != []
