"""Test ids that differ from one interpreter to the next (insandbox/ids.py): a parametrize over a set
orders its cases by hash, and a hash that is an address (None's before Python 3.12: isodate's
suite) names the cases otherwise in the worker than in the coverage run that listed them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import backend_params
from tests.test_repair_engine import repaired_clamp

CASE = (
    "import pytest\nfrom pkg.clamp import clamp\n\n\n"
    "class Want:\n"
    "    # hashed by an address, None's, as a tuple holding None is before Python 3.12; pytest names\n"
    "    # a case by its x and the want's place in the set: `50-want3` here, `50-want0` elsewhere\n"
    "    def __init__(self, value):\n        self.value = value\n\n"
    "    def __hash__(self):\n        return hash((self.value, id(None)))\n\n\n"
)
WHICH = {
    # the failing tests' ids are the interpreter's own: the worker reads them all before it starts
    "failing cases": (
        "@pytest.mark.parametrize('x,want', {(x, Want(w)) for x, w in [(50, 10), (5, 5), (11, 10), (7, 7), (1, 1), (2, 2), (3, 3), (20, 10), (30, 10), (-1, 0)]})\n"
        "def test_clamp(x, want):\n    assert clamp(x, 0, 10) == want.value\n\n\n"
        "def test_low():\n    assert clamp(-5, 0, 10) == 0\n"
    ),
    # only passing tests' ids are: the worker reads them when pytest finds not every one
    "passing cases": (
        "@pytest.mark.parametrize('x,want', {(x, Want(0)) for x in [-3, -7, -100, -1, -50, -9, -2, -4, -5, -6]})\n"
        "def test_low(x, want):\n    assert clamp(x, 0, 10) == want.value\n\n\n"
        "def test_high():\n    assert clamp(50, 0, 10) == 10\n\n\n"
        "def test_mid():\n    assert clamp(5, 0, 10) == 5\n"
    ),
}


@pytest.mark.parametrize("which", sorted(WHICH))
@pytest.mark.parametrize("backend", backend_params(("bwrap", "none")))
def test_cases_named_by_address_are_run_under_the_workers_own_names(
    backend: str, which: str, make_sandbox, tmp_path: Path
) -> None:
    result = repaired_clamp(make_sandbox, backend, tmp_path, CASE + WHICH[which])
    assert len(result.failing_tests) == (9 if which == "failing cases" else 2)
