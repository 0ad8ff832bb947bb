"""THE done rule. The agent loop, the evaluation grader and the CI bot all call `done()`.

SWE-bench semantics: every target test (FAIL_TO_PASS) passes, and no test that passed before
(PASS_TO_PASS) fails. "Passes" means passed, xfailed or xpassed (non-strict), as pytest's exit
code counts it. A skipped PASS_TO_PASS test is fine (SWE-bench counts it neither way); a skipped
target is not: nothing verified it. A test missing from the run counts as failing, so a run of
only a selection of tests can never declare done. Flaky tests (seen to flip without a code
change) never block on their own: a flaky PASS_TO_PASS failure is reported, not counted. A run
that did not run the tests (crash, timeout, import error, nothing collected, runner missing) is
never done, whatever its partial results say.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from repofix.testing.model import Outcome, RunStatus, TestRun


@dataclass(frozen=True)
class Verdict:
    done: bool
    reason: str
    targets_failing: tuple[str, ...] = ()  # target tests that failed, errored, were skipped or missing
    regressions: tuple[str, ...] = ()  # PASS_TO_PASS tests that now fail or are missing
    flaky_ignored: tuple[str, ...] = ()  # PASS_TO_PASS failures excused because the test is flaky
    targets_passing: tuple[str, ...] = field(default=())

    def __bool__(self) -> bool:
        return self.done


def done(
    baseline: TestRun | None,
    current: TestRun | Mapping[str, Outcome],
    targets: Iterable[str] = (),
    *,
    pass_to_pass: Iterable[str] | None = None,
    flaky: Iterable[str] = (),
) -> Verdict:
    """Judge `current` against `targets` (FAIL_TO_PASS) and the tests that must keep passing.

    `pass_to_pass` defaults to every test that passed in `baseline` (minus targets). With
    neither, only the targets are judged. With no targets and no baseline, a run is done when it
    ran completely and nothing failed. `current` may be a plain id -> Outcome mapping (graders).
    """
    flaky_set = set(flaky)
    targets = list(dict.fromkeys(targets))
    if isinstance(current, TestRun):
        if not current.status.ran_tests:
            return Verdict(False, f"the tests did not run: {current.status.value} ({current.detail})")
        if not current.structured:
            ok = current.exit_code == 0
            return Verdict(ok, f"`{current.command}` exited with {current.exit_code} (judged by exit code)")
        outcomes = {i: r.outcome for i, r in current.results.items()}
    else:
        outcomes = dict(current)
    if pass_to_pass is None:
        pass_to_pass = [i for i in baseline.passing if i not in set(targets)] if baseline is not None else []
    target_set = set(targets)
    p2p = [i for i in dict.fromkeys(pass_to_pass) if i not in target_set]

    targets_failing = tuple(t for t in targets if t not in outcomes or not outcomes[t].ok)
    targets_passing = tuple(t for t in targets if t in outcomes and outcomes[t].ok)
    broken = [t for t in p2p if t not in outcomes or outcomes[t].bad]
    flaky_ignored = tuple(t for t in broken if t in flaky_set)
    regressions = tuple(t for t in broken if t not in flaky_set)

    if not targets and baseline is None and not p2p:
        bad = tuple(i for i, o in outcomes.items() if o.bad)
        if not outcomes:
            return Verdict(False, "no test results")
        return Verdict(not bad, "all tests pass" if not bad else f"{len(bad)} test(s) fail", regressions=bad)
    problems = []
    if targets_failing:
        problems.append(f"{len(targets_failing)} of {len(targets)} target test(s) not passing")
    if regressions:
        problems.append(f"{len(regressions)} test(s) that passed before now fail or did not run")
    if problems:
        return Verdict(
            False, "; ".join(problems), targets_failing, regressions, flaky_ignored, targets_passing
        )
    reason = f"all {len(targets)} target test(s) pass and {len(p2p)} previously passing test(s) still pass"
    if flaky_ignored:
        reason += f" ({len(flaky_ignored)} flaky test(s) ignored)"
    if isinstance(current, TestRun) and current.status is RunStatus.COLLECTION_ERROR:
        reason += f"; note: {current.detail}"
    return Verdict(True, reason, (), (), flaky_ignored, targets_passing)
