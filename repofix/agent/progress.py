"""What the agent knows about test progress: the baseline as plain id lists (so a resumed run is
judged against the same baseline), the merged latest outcome of every test, the targets, and
the score used to find the best checkpoint."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from repofix.testfiles import is_test_file
from repofix.testing import Outcome, RunStatus, TestResult, TestRun, Verdict, done

BROKEN_LIKE = ("SyntaxError", "IndentationError", "TabError")
IMPORT_LIKE = (
    "ImportError",
    "ModuleNotFoundError",
    "cannot import name",
    "AttributeError",
    "has no attribute",
    "NameError",
)  # a collection error on a name that does not exist yet
CANNOT_IMPORT = re.compile(r"cannot import name '(\w+)' from '([\w.]+)'")


class RedJudgement(NamedTuple):
    targets: list[str]  # collected test ids that fail as they should: empty when refused
    reason: str = ""  # why the tests were refused
    unimported: tuple[str, ...] = ()  # test modules that failed to import, typically on the task's new name
    missing: tuple[str, str] = (
        "pkg.mod",
        "new_name",
    )  # (module, name) the import error names, for the how-to


def missing_name(run: TestRun, unimported: list[str]) -> tuple[str, str]:
    """The (module, name) of the first `cannot import name 'x' from 'm'` among the unimported modules."""
    for test_id in unimported:
        result = run.results[test_id]
        found = CANNOT_IMPORT.search(result.message + "\n" + result.traceback)
        if found:
            return found.group(2), found.group(1)
    return ("pkg.mod", "new_name")


def test_file(test_id: str) -> str:
    return test_id.split("::", 1)[0]


@dataclass
class Progress:
    command: str = ""
    baseline: dict[str, str] = field(default_factory=dict)  # id -> outcome value, before any change
    flaky: set[str] = field(default_factory=set)
    targets: list[str] = field(default_factory=list)  # FAIL_TO_PASS-like ids
    latest: dict[str, str] = field(default_factory=dict)  # id -> latest outcome seen
    phase: str = "fix"  # "red", "green" or "fix"
    reference: int = 0  # checkpoint whose test files the verdict uses: 0, or where red tests were accepted

    # -- baseline --------------------------------------------------------------------------
    @classmethod
    def from_baseline(cls, run: TestRun, flaky: set[str]) -> Progress:
        outcomes = {i: r.outcome.value for i, r in run.results.items()}
        return cls(command=run.command, baseline=outcomes, flaky=set(flaky), latest=dict(outcomes))

    def baseline_run(self) -> TestRun:
        """The baseline as a TestRun, for the feedback's new/still-failing comparison."""
        return self.as_run(self.baseline)

    def latest_run(self) -> TestRun:
        """The latest outcome of every test as one TestRun (for selection and the final report)."""
        return self.as_run(self.latest)

    def as_run(self, outcomes: dict[str, str]) -> TestRun:
        results = {i: TestResult(i, Outcome(o)) for i, o in outcomes.items()}
        return TestRun(self.command, RunStatus.COMPLETED, 0, results)

    @property
    def passing_before(self) -> list[str]:
        return [i for i, o in self.baseline.items() if Outcome(o).ok]

    @property
    def failing_before(self) -> list[str]:
        return [i for i, o in self.baseline.items() if Outcome(o).bad and i not in self.flaky]

    # -- targets and verdicts ----------------------------------------------------------------
    def all_targets(self) -> list[str]:
        return list(dict.fromkeys(self.targets))

    def verdict(self, run: TestRun | None = None) -> Verdict:
        """The done rule on a full run, or on the merged latest outcomes."""
        pass_to_pass = [i for i in self.passing_before if i not in set(self.targets)]
        if run is not None:
            return done(None, run, self.all_targets(), pass_to_pass=pass_to_pass, flaky=self.flaky)
        latest = {i: Outcome(o) for i, o in self.latest.items()}
        return done(None, latest, self.all_targets(), pass_to_pass=pass_to_pass, flaky=self.flaky)

    def update(self, run: TestRun) -> None:
        if not run.structured:
            return
        if not run.selection:  # a full run: tests that vanished are no longer "latest"
            self.latest = {}
        self.latest.update({i: r.outcome.value for i, r in run.results.items()})

    def score(self) -> tuple[int, int]:
        """Higher is better: (-regressions, targets passing)."""
        verdict = self.verdict()
        return (-len(verdict.regressions), len(verdict.targets_passing))

    def summary(self, outcomes: dict[str, str] | None = None) -> str:
        outcomes = self.latest if outcomes is None else outcomes
        passed = sum(1 for o in outcomes.values() if Outcome(o).ok)
        failed = sum(1 for o in outcomes.values() if Outcome(o).bad)
        return f"{passed} passed, {failed} failed" + (f" of {len(outcomes)}" if outcomes else "")

    # -- red phase ---------------------------------------------------------------------------
    def judge_red(self, run: TestRun, changed_files: set[str]) -> RedJudgement:
        """The new failing test ids when the red-phase tests are acceptable, else why not. Only test
        ids that were collected count: a module that fails to import (the usual cause: a module-level
        import of the name the task will add) has no test ids yet, so it is refused with a how-to
        rather than becoming a target that no passing run could ever show."""
        new_files = {f for f in changed_files if is_test_file(f)}
        if not new_files:
            return RedJudgement([], "no test file was added or changed")
        if not run.structured or run.status not in (RunStatus.COMPLETED, RunStatus.COLLECTION_ERROR):
            return RedJudgement([], f"the tests did not run ({run.status.value}: {run.detail})")
        failing, broken, unimported = [], [], []
        for test_id, result in run.results.items():
            if test_file(test_id) not in new_files or not result.outcome.bad:
                continue
            text = result.message + "\n" + result.traceback
            if any(word in text for word in BROKEN_LIKE):
                broken.append(
                    f"{test_id}: {result.message.splitlines()[0] if result.message else 'syntax error'}"
                )
            elif result.phase == "collect" or "::" not in test_id:
                first = next((line for line in result.message.splitlines() if line.strip()), "")
                broken.append(f"{test_id}: collection error: {first[:200]}")
                if any(word in text for word in IMPORT_LIKE):
                    unimported.append(test_id)
            else:
                failing.append(test_id)
        if broken:
            return RedJudgement(
                [],
                "some tests are broken rather than failing:\n" + "\n".join(broken[:10]),
                tuple(unimported),
                missing_name(run, unimported),
            )
        if not failing:
            return RedJudgement([], "no new test fails; the tests must fail before the feature exists")
        return RedJudgement(failing, "")

    # -- persistence -------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "baseline": self.baseline,
            "flaky": sorted(self.flaky),
            "targets": self.targets,
            "latest": self.latest,
            "phase": self.phase,
            "reference": self.reference,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Progress:
        return cls(
            command=data["command"],
            baseline=data["baseline"],
            flaky=set(data["flaky"]),
            targets=list(data["targets"]),  # an older record's "target_files" (never set) is ignored
            latest=dict(data["latest"]),
            phase=data["phase"],
            reference=data.get("reference", 0),
        )
