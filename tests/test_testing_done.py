"""The done rule's truth table (SWE-bench semantics), shared by the loop, the grader and the CI bot."""

from __future__ import annotations

import itertools

import pytest

from repofix.testing import Outcome, RunStatus, TestResult, TestRun, done

T, P, OTHER = "tests/test_a.py::test_target", "tests/test_a.py::test_kept[1]", "tests/test_b.py::test_other"
MISSING = None
TARGET_STATES = [*Outcome, MISSING]
P2P_STATES = [*Outcome, MISSING]
STATUSES = [
    RunStatus.COMPLETED,
    RunStatus.COLLECTION_ERROR,
    RunStatus.TIMEOUT,
    RunStatus.CRASHED,
    RunStatus.IMPORT_ERROR,
    RunStatus.NO_TESTS,
    RunStatus.RUNNER_MISSING,
]


def make_run(outcomes: dict[str, Outcome | None], status: RunStatus = RunStatus.COMPLETED) -> TestRun:
    results = {i: TestResult(i, o) for i, o in outcomes.items() if o is not None}
    return TestRun("python -m pytest", status, 1, results)


BASELINE = make_run({T: Outcome.FAILED, P: Outcome.PASSED, OTHER: Outcome.FAILED})


def expected(target: Outcome | None, kept: Outcome | None, flaky: bool, status: RunStatus) -> bool:
    """The rule, stated independently of the implementation."""
    ran = status in (RunStatus.COMPLETED, RunStatus.COLLECTION_ERROR)
    target_ok = target in (Outcome.PASSED, Outcome.XFAILED, Outcome.XPASSED)  # skipped / missing: not ok
    kept_ok = kept in (Outcome.PASSED, Outcome.SKIPPED, Outcome.XFAILED, Outcome.XPASSED) or flaky
    return ran and target_ok and kept_ok


@pytest.mark.parametrize(
    ("target", "kept", "flaky", "status"),
    list(itertools.product(TARGET_STATES, P2P_STATES, [False, True], STATUSES)),
    ids=lambda v: getattr(v, "value", str(v)),
)
def test_truth_table(target, kept, flaky, status) -> None:
    current = make_run({T: target, P: kept, OTHER: Outcome.FAILED}, status)
    verdict = done(BASELINE, current, [T], flaky=[P] if flaky else [])
    assert verdict.done is expected(target, kept, flaky, status), verdict.reason
    assert bool(verdict) is verdict.done


@pytest.mark.parametrize(
    ("target", "kept"),
    list(itertools.product(TARGET_STATES, P2P_STATES)),
    ids=lambda v: getattr(v, "value", str(v)),
)
def test_grader_form_gives_the_same_answer(target, kept) -> None:
    """The evaluation grader passes explicit FAIL_TO_PASS / PASS_TO_PASS and an id -> outcome map."""
    outcomes = {i: o for i, o in {T: target, P: kept}.items() if o is not None}
    verdict = done(None, outcomes, [T], pass_to_pass=[P])
    assert verdict.done is expected(target, kept, False, RunStatus.COMPLETED)


def test_known_failures_at_baseline_do_not_block() -> None:
    current = make_run({T: Outcome.PASSED, P: Outcome.PASSED, OTHER: Outcome.FAILED})
    verdict = done(BASELINE, current, [T])
    assert verdict.done and verdict.targets_passing == (T,)


def test_a_selection_run_is_never_done_because_unrun_tests_count_as_failing() -> None:
    current = make_run({T: Outcome.PASSED})
    verdict = done(BASELINE, current, [T])
    assert not verdict.done and verdict.regressions == (P,)


def test_flaky_regression_is_reported_not_counted() -> None:
    current = make_run({T: Outcome.PASSED, P: Outcome.FAILED})
    verdict = done(BASELINE, current, [T], flaky={P})
    assert verdict.done and verdict.flaky_ignored == (P,) and "flaky" in verdict.reason


def test_flaky_target_must_still_pass() -> None:
    assert not done(BASELINE, make_run({T: Outcome.FAILED, P: Outcome.PASSED}), [T], flaky={T}).done


@pytest.mark.parametrize(
    ("outcomes", "ok"),
    [
        ({T: Outcome.PASSED, P: Outcome.SKIPPED}, True),
        ({T: Outcome.PASSED, P: Outcome.ERROR}, False),
        ({}, False),
    ],
)
def test_without_targets_or_baseline_everything_must_pass(outcomes, ok) -> None:
    assert done(None, make_run(outcomes), []).done is ok


@pytest.mark.parametrize(("exit_code", "ok"), [(0, True), (2, False)])
def test_non_pytest_commands_are_judged_by_exit_code(exit_code, ok) -> None:
    run = TestRun("make test", RunStatus.COMPLETED, exit_code, structured=False)
    assert done(None, run, []).done is ok


def test_explicit_pass_to_pass_overrides_the_baseline() -> None:
    current = make_run({T: Outcome.PASSED, P: Outcome.FAILED, OTHER: Outcome.PASSED})
    assert done(BASELINE, current, [T], pass_to_pass=[OTHER]).done
    assert not done(BASELINE, current, [T]).done
