"""Flaky detection at its edges: which outcome changes count as a flip (a table over every pair of
outcomes), and how many re-runs happen, counted by the tests themselves in a real bwrap sandbox: the
last allowed re-run still counts, a test shown flaky is not re-run, nothing is re-run once every
suspect is explained, repeated and unknown suspects are harmless."""

from __future__ import annotations

import itertools

import pytest
from conftest import TEST_LIMITS

from repofix.testing import find_flaky
from repofix.testing.baseline import flipped
from repofix.testing.model import Outcome, RunStatus, TestResult, TestRun
from repofix.testing.runner import run_tests

OK = {Outcome.PASSED, Outcome.XFAILED, Outcome.XPASSED}
BAD = {Outcome.FAILED, Outcome.ERROR}


def run_of(**outcomes: Outcome) -> TestRun:
    return TestRun("pytest", RunStatus.COMPLETED, 0, {k: TestResult(k, o) for k, o in outcomes.items()})


@pytest.mark.parametrize(("before", "after"), list(itertools.product(Outcome, repeat=2)))
def test_a_flip_is_passing_against_failing_either_way(before, after) -> None:
    # A skip is neither: skipped <-> passed is no flip, skipped <-> failed is (it is failing now or was).
    expected = (before in OK) != (after in OK) and (before in BAD or after in BAD)
    assert flipped(run_of(t=before, other=Outcome.PASSED), run_of(t=after, new=Outcome.FAILED)) == (
        ["t"] if expected else []
    )


COUNTED = """
from pathlib import Path

def bump(name):
    path = Path("/tmp") / name
    n = int(path.read_text()) + 1 if path.exists() else 1
    path.write_text(str(n))
    return n

def test_passes_on_third_run():
    assert bump("third") >= 3

def test_passes_on_second_run():
    assert bump("second") >= 2

def test_always_fails():
    bump("always")
    assert False

def test_stable():
    bump("stable")

def test_passes_only_the_first_time():
    assert bump("once") == 1
"""
P = "tests/test_counted.py::"


@pytest.fixture
def box(make_sandbox, tmp_path):
    (tmp_path / "p" / "tests").mkdir(parents=True)
    (tmp_path / "p" / "tests" / "test_counted.py").write_text(COUNTED)
    return make_sandbox("bwrap", source=tmp_path / "p", limits=TEST_LIMITS)


def runs(box, name: str) -> int:
    return int(box.run(f"cat /tmp/{name} 2>/dev/null || echo 0").stdout.strip())


@pytest.mark.bwrap
def test_reruns_count_to_the_last_and_stop_for_what_is_explained(box) -> None:
    first = run_tests(box, "python -m pytest", timeout=60)
    assert sorted(first.failing) == [
        P + "test_always_fails",
        P + "test_passes_on_second_run",
        P + "test_passes_on_third_run",
    ]
    suspects = [
        P + "test_passes_on_third_run",
        P + "test_passes_on_second_run",
        P + "test_always_fails",
        P + "test_passes_on_second_run",
        P + "test_not_there",
    ]
    flaky = find_flaky(box, first, suspects, command="python -m pytest", reruns=2, timeout=60)
    assert flaky == {P + "test_passes_on_third_run", P + "test_passes_on_second_run"}  # the 2nd re-run counts
    assert runs(box, "second") == 2  # shown flaky on the first re-run: not run again
    assert (runs(box, "third"), runs(box, "always"), runs(box, "stable")) == (3, 3, 1)


@pytest.mark.bwrap
def test_no_rerun_once_every_suspect_is_flaky(box) -> None:
    first = run_tests(box, "python -m pytest", timeout=60)
    assert find_flaky(
        box, first, [P + "test_passes_on_second_run"], command="python -m pytest", reruns=3, timeout=60
    ) == {P + "test_passes_on_second_run"}
    assert (runs(box, "second"), runs(box, "stable"), runs(box, "always")) == (2, 1, 1)


@pytest.mark.bwrap
@pytest.mark.parametrize("suspects", [[], [P + "test_not_there"]])
def test_nothing_to_rerun_runs_nothing(box, suspects) -> None:
    first = run_tests(box, "python -m pytest", timeout=60)
    assert find_flaky(box, first, suspects, command="python -m pytest", reruns=2, timeout=60) == set()
    assert runs(box, "stable") == 1


@pytest.mark.bwrap
def test_a_test_that_passed_and_then_fails_on_the_rerun_is_flaky(box) -> None:
    """A flip either way counts: passing at first and failing on the re-run is as flaky as the reverse."""
    first = run_tests(box, "python -m pytest", timeout=60)
    assert first.results[P + "test_passes_only_the_first_time"].outcome.ok
    assert find_flaky(
        box, first, [P + "test_passes_only_the_first_time"], command="python -m pytest", reruns=2, timeout=60
    ) == {P + "test_passes_only_the_first_time"}
    assert runs(box, "once") == 2
