"""What the done rule says, not only what it decides: the reasons users and models read, and the
corners the truth table does not reach (signals, collection-error notes). Written against the
mutants of `done()` that survived `evals/bench_mutation.py`."""

from __future__ import annotations

import pytest

from repofix.testing import Outcome, RunStatus, TestResult, TestRun, done

T, P = "tests/test_a.py::test_target", "tests/test_a.py::test_kept"


def run_of(
    outcomes: dict[str, Outcome], status: RunStatus = RunStatus.COMPLETED, detail: str = ""
) -> TestRun:
    return TestRun(
        "python -m pytest", status, 1, {i: TestResult(i, o) for i, o in outcomes.items()}, detail=detail
    )


@pytest.mark.parametrize(
    ("exit_code", "ok"), [(0, True), (1, False), (-9, False), (-15, False), (137, False)]
)
def test_a_command_killed_by_a_signal_is_not_a_pass(exit_code: int, ok: bool) -> None:
    run = TestRun("make test", RunStatus.COMPLETED, exit_code, structured=False)
    verdict = done(None, run, [])
    assert verdict.done is ok and f"exited with {exit_code}" in verdict.reason


@pytest.mark.parametrize(
    ("outcomes", "reason"),
    [
        ({T: Outcome.PASSED, P: Outcome.PASSED}, "all tests pass"),
        ({T: Outcome.PASSED, P: Outcome.FAILED}, "1 test(s) fail"),
        ({T: Outcome.ERROR, P: Outcome.FAILED}, "2 test(s) fail"),
    ],
)
def test_the_reason_without_targets_counts_the_failures(outcomes, reason) -> None:
    assert done(None, run_of(outcomes), []).reason == reason


def test_a_collection_error_is_noted_on_an_otherwise_good_verdict() -> None:
    broken = run_of(
        {T: Outcome.PASSED, P: Outcome.PASSED}, RunStatus.COLLECTION_ERROR, "tests/test_c.py: ImportError"
    )
    verdict = done(None, broken, [T], pass_to_pass=[P])
    assert verdict.done and verdict.reason.endswith("; note: tests/test_c.py: ImportError")
    clean = done(None, run_of({T: Outcome.PASSED, P: Outcome.PASSED}, detail="unused"), [T], pass_to_pass=[P])
    assert clean.done and "note:" not in clean.reason
    assert clean.reason == "all 1 target test(s) pass and 1 previously passing test(s) still pass"


def test_known_failures_without_targets_do_not_block() -> None:
    """`fix` with no named targets judges against the baseline: a test failing before and after is known."""
    baseline = run_of({T: Outcome.PASSED, P: Outcome.FAILED})
    verdict = done(baseline, run_of({T: Outcome.PASSED, P: Outcome.FAILED}), [])
    assert verdict.done and verdict.reason.startswith("all 0 target test(s) pass and 1 previously passing")


def test_with_targets_and_nothing_to_keep_only_the_targets_are_judged() -> None:
    verdict = done(None, run_of({T: Outcome.PASSED, P: Outcome.FAILED}), [T])
    assert verdict.done and verdict.targets_passing == (T,)
