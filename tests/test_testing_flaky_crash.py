"""A re-run that produces no result proves nothing: a real failure whose re-run crashes is not flaky,
so it keeps blocking done (a mutant that counted "no re-run result" as flaky survived the old suite)."""

from __future__ import annotations

import pytest
from conftest import TEST_LIMITS

from repofix.testing import done, find_flaky, take_baseline
from repofix.testing.runner import run_tests

pytestmark = pytest.mark.bwrap

CRASH_ON_RERUN = """
import os
from pathlib import Path

MARKER = Path("/tmp/ran-once")

def test_fails_then_crashes_the_run():
    if MARKER.exists():
        os._exit(3)  # the re-run dies before any report is written
    MARKER.write_text("1")
    assert 1 == 2

def test_stable():
    pass
"""
REAL = "tests/test_crash.py::test_fails_then_crashes_the_run"


@pytest.fixture
def box(make_sandbox, tmp_path):
    (tmp_path / "p" / "tests").mkdir(parents=True)
    (tmp_path / "p" / "tests" / "test_crash.py").write_text(CRASH_ON_RERUN)
    return make_sandbox("bwrap", source=tmp_path / "p", limits=TEST_LIMITS)


def test_a_crashed_rerun_is_not_flakiness(box) -> None:
    baseline = take_baseline(box, "python -m pytest", reruns=1, timeout=60)
    assert baseline.run.failing == [REAL]
    assert baseline.flaky == set()
    assert baseline.known_failures == [REAL]


def test_find_flaky_ignores_missing_results_and_the_failure_still_blocks_done(box) -> None:
    first = run_tests(box, "python -m pytest", timeout=60)
    assert first.failing == [REAL]
    assert find_flaky(box, first, [REAL], command="python -m pytest", reruns=2, timeout=60) == set()
    assert not done(first, first, [REAL]).done
