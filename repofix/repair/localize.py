"""Spectrum-based fault localization: rank source lines by how strongly executing them goes
with failing. Ochiai over per-test line coverage, plus a bonus for lines in the traceback of a
failure (the deepest source frame most)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from repofix.testfiles import is_test_file


@dataclass
class RunRecord:
    """One test's outcome in the coverage run."""

    nodeid: str
    outcome: str  # "passed", "failed", "skipped"
    lines: dict[str, list[int]] = field(default_factory=dict)  # path -> executed lines
    tb: list[tuple[str, int]] = field(default_factory=list)  # failure frames in source files, outermost first
    duration: float = 0.0
    timed_out: bool = False  # stopped by the per-test limit of the coverage run
    traced: bool = True  # False: run untraced (a passing test left out of the sample): `lines` is empty
    error: str = ""  # the type of what a failed test raised: "AssertionError", "TypeError"...


@dataclass(frozen=True)
class Suspect:
    path: str
    line: int
    score: float
    ef: int  # failing tests that executed the line
    ep: int  # passing tests that executed the line


def records(tests: object) -> list[RunRecord]:
    """The coverage run's per-test results (its "tests" object) as RunRecords. The repository's
    own code runs in the process that prints them and could print anything: ValueError, naming
    the test, for what the worker never writes."""
    if not isinstance(tests, dict):
        raise ValueError("its tests are not a JSON object")
    found = []
    for nodeid, t in tests.items():
        try:
            lines = {p: list(ns) for p, ns in t["lines"].items()}
            tb = [(p, n) for p, n in t["tb"]]
            error = t.get("error", "")
            texts = [t["outcome"], error, *lines, *(p for p, _ in tb)]
            numbers = [t["duration"], *(n for ns in lines.values() for n in ns), *(n for _, n in tb)]
            if not all(isinstance(x, str) for x in texts) or not all(map(_is_number, numbers)):
                raise ValueError("a field of the wrong type")
            found.append(
                RunRecord(
                    nodeid,
                    t["outcome"],
                    lines,
                    tb,
                    float(t["duration"]),
                    t.get("timeout") is True,
                    t.get("traced", True) is not False,
                    error,
                )
            )
        except (AttributeError, KeyError, TypeError, ValueError) as why:
            raise ValueError(f"test {nodeid[:200]!r}: {why}") from None
    return found


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def ochiai(ef: int, ep: int, total_failed: int) -> float:
    if ef == 0 or total_failed == 0:
        return 0.0
    return ef / math.sqrt(total_failed * (ef + ep))


def rank(
    runs: list[RunRecord], failing: set[str], tb_weight: float = 0.3, together: bool = False
) -> list[Suspect]:
    """Lines of non-test files executed by at least one failing test, most suspicious first.

    `together`: the lines every failing test ran come first (those that ran a source line at all:
    one whose code ran in an untraced child counts for none). A single edit that must make every
    failing test pass lies on such a line, since a test that never runs a line cannot be changed
    by it; Ochiai alone ranked a line every failing test and a few passing ones ran below a hundred
    lines only some failing tests ran (icfpy's planted parser line 182nd, its missing `sb.append(c)`
    146th). Ties (common with a single failing test) keep a deterministic order: traceback lines
    first, then lines executed by fewer passing tests, then file and line number."""
    ef: dict[tuple[str, int], int] = {}
    ep: dict[tuple[str, int], int] = {}
    bonus: dict[tuple[str, int], float] = {}
    total_failed = 0
    every = 0  # failing tests that ran a source line
    for run in runs:
        is_failing = run.nodeid in failing
        if is_failing:
            total_failed += 1
            every += any(not is_test_file(path) and lines for path, lines in run.lines.items())
        counter = ef if is_failing else ep
        if not is_failing and run.outcome != "passed":
            continue
        for path, lines in run.lines.items():
            if is_test_file(path):
                continue
            for line in lines:
                counter[(path, line)] = counter.get((path, line), 0) + 1
        if is_failing:
            frames = [f for f in run.tb if not is_test_file(f[0])]
            for depth, (path, line) in enumerate(reversed(frames)):
                key = (path, line)
                bonus[key] = max(bonus.get(key, 0.0), 1.0 / (1 + depth))
    suspects = [
        Suspect(
            path,
            line,
            ochiai(count, ep.get((path, line), 0), total_failed)
            * (1 + tb_weight * bonus.get((path, line), 0.0)),
            count,
            ep.get((path, line), 0),
        )
        for (path, line), count in ef.items()
    ]
    suspects.sort(key=lambda s: (together and s.ef < every, -s.score, s.ep, s.path, s.line))
    return suspects


def raised_at(runs: list[RunRecord], failing: set[str], error: str = "") -> set[tuple[str, int]]:
    """The source lines where the failing tests' errors were raised (their deepest source frame),
    an error being anything but a failed `assert`: a `TypeError` at `if self < n:` says the values
    are of the wrong kind, which no other comparison at that line repairs. With `error`, only
    where an error of that type was raised."""
    found = set()
    for run in runs:
        frames = [f for f in run.tb if not is_test_file(f[0])]
        wanted = run.error == error if error else run.error and run.error != "AssertionError"
        if run.nodeid in failing and frames and wanted:
            found.add(frames[-1])
    return found


def internal_error(code: object, runs: list[RunRecord], tests: list[str]) -> str | None:
    """Why a coverage run that pytest stopped on an error of a hook (a conftest's, a plugin's; exit
    code 3) cannot be read, when it ran none or not all of `tests`: the tests it did not run are
    unknown, not passing, and "no target test fails" would say otherwise."""
    ran = {run.nodeid for run in runs}
    if code != 3 or (ran and all(test in ran for test in tests)):
        return None
    return (
        "the coverage run stopped on an internal error of pytest (exit code 3: a conftest or plugin "
        f"hook raised) after {len(ran)} test(s); run the tests to see it"
    )
