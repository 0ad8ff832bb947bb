"""Running tests in a sandbox, per-test results, baseline and flaky handling, the done rule,
and condensed feedback for the model.

Public API:
    run_tests(sandbox, command=None, *, tests=(), timeout=None, log_dir=None) -> TestRun
    parse_junit(xml, *, strip_prefix="") -> dict[str, TestResult]
    take_baseline(sandbox, command=None, *, reruns=1, ...) -> Baseline
    find_flaky(sandbox, current, suspects, *, command, reruns=2, ...) -> set[str]
    select_tests(last, changed, test_files=()) -> list[str]
    done(baseline, current, targets=(), *, pass_to_pass=None, flaky=()) -> Verdict
    condense(current, baseline=None, *, budget=4000, flaky=(), workdir="") -> str
"""

from repofix.testing.baseline import Baseline, find_flaky, take_baseline
from repofix.testing.done import Verdict, done
from repofix.testing.feedback import condense
from repofix.testing.junit import ReportError, parse_junit
from repofix.testing.model import Frame, Outcome, RunStatus, TestResult, TestRun
from repofix.testing.runner import run_tests
from repofix.testing.selection import select_tests

__all__ = [
    "Baseline",
    "Frame",
    "Outcome",
    "ReportError",
    "RunStatus",
    "TestResult",
    "TestRun",
    "Verdict",
    "condense",
    "done",
    "find_flaky",
    "parse_junit",
    "run_tests",
    "select_tests",
    "take_baseline",
]
