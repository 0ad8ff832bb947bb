"""Which files are tests: one rule for every room (the red phase, the test guard, the verdict's
protected files, test selection, fault localization and the repository map).

- a *test module* is a file pytest collects tests from by default (`python_files`): `test_*.py` or
  `*_test.py`. Only these are worth passing to pytest by path.
- a *test file* is any Python file of the test suite: a test module, a `conftest.py` (fixtures and
  hooks, which decide outcomes as much as the tests do), or a `.py` file anywhere under a `test/` or
  `tests/` folder (helpers the tests import). The model may write these in the red phase, the guard
  watches them, the verdict takes them from the reference, and a failure inside them is not blamed
  on the code under test.
"""

from __future__ import annotations

import re

_MODULE = re.compile(r"(^|/)(test_[^/]*|[^/]*_test)\.py$")
_IN_TESTS = re.compile(r"(^|/)tests?/.*\.py$")


def is_test_module(path: str) -> bool:
    """A module pytest collects tests from by default (`test_*.py`, `*_test.py`)."""
    return bool(_MODULE.search(path))


def is_test_file(path: str) -> bool:
    """Any Python file of the test suite: a test module, a `conftest.py`, or one under `test(s)/`."""
    return is_test_module(path) or path.rsplit("/", 1)[-1] == "conftest.py" or bool(_IN_TESTS.search(path))
