"""The baseline run and telling flaky tests from real changes.

A test whose state changes without a code change is flaky. We find them by re-running: at
baseline, the failing tests are re-run (a pass on re-run means flaky); after an edit, tests
that flipped relative to the previous run are re-run on the same code, and any that flip again
are flaky, not caused by the edit.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from repofix.sandboxes.base import Sandbox
from repofix.testing.model import TestRun
from repofix.testing.runner import run_tests


@dataclass
class Baseline:
    run: TestRun
    flaky: set[str] = field(default_factory=set)

    @property
    def known_failures(self) -> list[str]:
        """Tests that already fail before any change (flaky ones excluded)."""
        return [i for i in self.run.failing if i not in self.flaky]

    @property
    def passing(self) -> list[str]:
        return [i for i in self.run.passing if i not in self.flaky]


def take_baseline(
    sandbox: Sandbox,
    command: str | None = None,
    *,
    reruns: int = 1,
    timeout: float | None = None,
    log_dir: Path | None = None,
) -> Baseline:
    """Run the whole suite once before any change; re-run its failures to spot flaky ones."""
    run = run_tests(sandbox, command, timeout=timeout, log_dir=log_dir)
    baseline = Baseline(run)
    if run.structured and run.failing and reruns > 0:
        baseline.flaky = find_flaky(
            sandbox, run, run.failing, command=run.command, reruns=reruns, timeout=timeout
        )
    return baseline


def flipped(previous: TestRun, current: TestRun) -> list[str]:
    """Tests present in both runs whose pass/fail state differs."""
    return [
        i
        for i, r in current.results.items()
        if i in previous.results
        and previous.results[i].outcome.ok != r.outcome.ok
        and (previous.results[i].outcome.bad or r.outcome.bad)
    ]


def find_flaky(
    sandbox: Sandbox,
    current: TestRun,
    suspects: Iterable[str],
    *,
    command: str,
    reruns: int = 2,
    timeout: float | None = None,
) -> set[str]:
    """Re-run `suspects` on unchanged code up to `reruns` times; those whose outcome differs from
    `current` at least once are flaky. Stops early once every suspect has been shown flaky."""
    pending = [i for i in dict.fromkeys(suspects) if i in current.results]
    flaky: set[str] = set()
    for _ in range(reruns):
        if not pending:
            break
        again = run_tests(sandbox, command, tests=pending, timeout=timeout)
        for test_id in pending:
            result = again.results.get(test_id)
            if result is not None and result.outcome.ok != current.results[test_id].outcome.ok:
                flaky.add(test_id)
        pending = [i for i in pending if i not in flaky]
    return flaky
