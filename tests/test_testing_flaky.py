"""Baseline and flaky detection on a real sandbox: a test that fails every other run is flaky,
a test that always fails is a known failure, and neither blocks done on its own."""

from __future__ import annotations

import pytest
from conftest import TEST_LIMITS

from repofix.testing import done, find_flaky, select_tests, take_baseline
from repofix.testing.baseline import flipped
from repofix.testing.runner import run_tests

pytestmark = pytest.mark.bwrap

FLIP = """
from pathlib import Path

COUNTER = Path("/tmp/flip-counter")

def test_every_other_run():
    n = int(COUNTER.read_text()) if COUNTER.exists() else 0
    COUNTER.write_text(str(n + 1))
    assert n % 2 == 1, f"run {n} fails"

def test_always_fails():
    assert 1 == 2

def test_stable():
    pass
"""


@pytest.fixture
def box(make_sandbox, tmp_path):
    (tmp_path / "flip" / "tests").mkdir(parents=True)
    (tmp_path / "flip" / "tests" / "test_flip.py").write_text(FLIP)
    return make_sandbox("bwrap", source=tmp_path / "flip", limits=TEST_LIMITS)


FLAKY, REAL, STABLE = (
    f"tests/test_flip.py::{n}" for n in ("test_every_other_run", "test_always_fails", "test_stable")
)


def test_baseline_reruns_failures_and_finds_the_flaky_one(box) -> None:
    baseline = take_baseline(box, "python -m pytest", reruns=1, timeout=60)
    assert set(baseline.run.failing) == {FLAKY, REAL}
    assert baseline.flaky == {FLAKY}
    assert baseline.known_failures == [REAL]
    assert baseline.passing == [STABLE]


def test_a_flip_without_code_change_is_flaky_and_does_not_block_done(box) -> None:
    first = run_tests(box, "python -m pytest", timeout=60)  # run 0: the flaky test fails
    second = run_tests(box, "python -m pytest", timeout=60)  # run 1: it passes
    assert flipped(first, second) == [FLAKY]
    third = run_tests(box, "python -m pytest", timeout=60)  # run 2: it fails again -> "regression"?
    assert flipped(second, third) == [FLAKY]
    flaky = find_flaky(box, third, flipped(second, third), command="python -m pytest", reruns=2, timeout=60)
    assert flaky == {FLAKY}
    assert not done(second, third, []).done  # without the flaky knowledge it looks like a regression
    assert done(second, third, [], flaky=flaky).done


def test_selection_puts_failures_and_edited_modules_first(box) -> None:
    run = run_tests(box, "python -m pytest", timeout=60)
    picked = select_tests(run, ["pkg/flip.py"], test_files=["tests/test_flip.py", "tests/test_other.py"])
    assert picked == ["tests/test_flip.py"]  # the failing ids are inside it: no need to name them
    assert select_tests(run, ["tests/test_other.py"]) == [FLAKY, REAL, "tests/test_other.py"]
    selected = run_tests(box, "python -m pytest", tests=select_tests(run, []), timeout=60)
    assert set(selected.results) == set(run.failing) and selected.selection
