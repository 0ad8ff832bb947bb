"""repair(): localize, generate, search. Runs every test through the Sandbox protocol."""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field

from repofix.difftext import unified_diff
from repofix.repair.broken import broken_raises, mending
from repofix.repair.checker import Checker, covering_tests
from repofix.repair.doubt import differ_seconds, differential, doubts, rivals, unclaimed
from repofix.repair.expected import expected_errors
from repofix.repair.limits import (
    Budget,
    batch_size,
    failing_seconds,
    generation_deadline,
    give_up_reason,
    more_to_try,
    nothing_fails,
    searched_after,
    settled,
    sort_passed,
    timeouts,
    tried_after,
    until,
)
from repofix.repair.localize import RunRecord, Suspect, raised_at, rank
from repofix.repair.search import CandidatePool
from repofix.repair.search import best as choose
from repofix.repair.source import UNPARSABLE, Mutation, SourceFile
from repofix.sandboxes.base import Sandbox
from repofix.testfiles import is_test_file


@dataclass
class RepairResult:
    # "plausible" (failing tests now pass, no passing test broke), "ambiguous" (the best-ranked
    # plausible patch is given, not claimed: the tests cannot tell whether it is right, as it
    # deletes an exit or only removes code, or patches that do otherwise pass them too, or it only
    # swaps a value where other places pass too (these two with withhold_ambiguous): doubt.unclaimed),
    # "not_fixed", "no_failures"
    status: str
    patch_diff: str = ""
    files: dict[str, str] = field(default_factory=dict)  # path -> repaired content
    mutation: Mutation | None = None
    candidates_tried: int = 0
    candidates_generated: int = 0
    seconds: float = 0.0
    failing_tests: list[str] = field(default_factory=list)
    passing_tests: list[str] = field(default_factory=list)
    suspects: list[Suspect] = field(default_factory=list)
    plausible: list[Mutation] = field(default_factory=list)
    doubts: list[str] = field(default_factory=list)  # why the plausible patch may still be wrong
    rivals: list[Mutation] = field(default_factory=list)  # plausible patches that behave otherwise
    message: str = ""

    @property
    def fixed(self) -> bool:
        return self.status == "plausible"


def _pytest_file(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def _sources(sandbox: Sandbox, suspects: list[Suspect], protected: set[str]) -> dict[str, SourceFile]:
    paths = sorted({s.path for s in suspects if s.path not in protected and not is_test_file(s.path)})
    sources = {}
    for path, text in _texts(sandbox, paths).items():
        try:
            sources[path] = SourceFile(path, text)
        except UNPARSABLE:
            continue  # a file we cannot parse (or nested too deep to) is a file we cannot mutate safely
    return sources


def _texts(sandbox: Sandbox, paths: list[str]) -> dict[str, str]:
    """The files at `paths` that are UTF-8 text (one that is not can be neither mutated nor read)."""
    found = {}
    for path, data in sandbox.read_files(paths).items():
        if data is not None:
            try:
                found[path] = data.decode("utf-8")
            except UnicodeDecodeError:
                continue
    return found


def diff(sources: dict[str, SourceFile], mutation: Mutation) -> tuple[str, dict[str, str]]:
    src = sources[mutation.path]
    new = src.apply(mutation.edits)
    return unified_diff(mutation.path, src.text, new), {mutation.path: new}


def baseline(
    checker: Checker,
    failing_tests: list[str],
    passing_tests: list[str] | None,
    timeout: float,
    per_test: float,
    sample: int | None = None,
    share: float | None = None,
) -> tuple[list[RunRecord], list[str], list[str], float]:
    started = time.monotonic()
    selection = [] if passing_tests is None else list(dict.fromkeys([*failing_tests, *passing_tests]))
    runs, duration = checker.coverage(
        selection, timeout, per_test, trace=failing_tests, sample=sample, share=share
    )
    failed = {r.nodeid for r in runs if r.outcome == "failed"}
    wanted = set(failing_tests) if failing_tests else failed
    # the suite's own order, never sorted: a suite whose tests share state (a class's iterator
    # stepped by parametrized cases, custom-numbers') passes only so
    failing = list(dict.fromkeys(r.nodeid for r in runs if r.nodeid in wanted and r.nodeid in failed))
    untraced = [r for r in runs if r.nodeid in failing and not r.traced]
    if untraced:  # the failing tests were found by this run, not named: trace them on their own
        again, _ = checker.coverage(
            [r.nodeid for r in untraced], max(1.0, timeout - (time.monotonic() - started)), per_test
        )
        by_id = {r.nodeid: r for r in again}
        for run in untraced:
            if run.nodeid in by_id:
                run.lines, run.tb, run.traced = by_id[run.nodeid].lines, by_id[run.nodeid].tb, True
    passed = [r.nodeid for r in runs if r.outcome == "passed" and r.nodeid not in wanted]
    if passing_tests is not None:
        kept = set(passing_tests)
        passed = [n for n in passed if n in kept]
    return runs, failing, list(dict.fromkeys(passed)), duration


def candidates(
    sandbox: Sandbox, runs: list[RunRecord], failing: list[str], passing: list[str], budget: Budget
) -> tuple[list[Suspect], CandidatePool]:
    """The suspicious lines, most suspicious first, and the pool of candidates on them: every
    failing test's lines (one edit must fix them all), in files that are neither tests nor what
    the tests are in."""
    suspects = rank(runs, set(failing), together=True)
    protected = {_pytest_file(n) for n in failing + passing}
    sources = _sources(sandbox, suspects, protected)
    expected = expected_errors(_texts(sandbox, sorted({_pytest_file(n) for n in failing})), failing)
    pool = CandidatePool(
        sources, suspects, budget.max_lines, raised_at(runs, set(failing)), budget.outer_lines, expected
    )
    return suspects, pool


def repair(
    sandbox: Sandbox,
    failing_tests: list[str] | None = None,
    passing_tests: list[str] | None = None,
    budget: Budget | None = None,
    *,
    python: str = "python",
) -> RepairResult:
    """Search for a small patch that makes `failing_tests` pass without breaking `passing_tests`.

    Test ids are pytest node ids relative to the workspace. With no failing tests given, every test
    that fails in the first run is a target; with no passing tests given, every other test that
    passes must keep passing. Test files are never changed. The sandbox's files are left as found."""
    budget = budget or Budget()
    start = time.monotonic()
    checker = Checker(sandbox, python)
    runs, failing, passing, run_seconds = baseline(
        checker,
        failing_tests or [],
        passing_tests,
        budget.max_seconds,
        budget.test_timeout,
        budget.traced,
        budget.max_seconds * budget.trace_share,
    )
    result = RepairResult("not_fixed", failing_tests=failing, passing_tests=passing)
    if not failing:
        result.status, result.message = "no_failures", nothing_fails(failing_tests or [], runs)
        return _done(result, start)
    result.suspects, pool = candidates(sandbox, runs, failing, passing, budget)
    sources = pool.sources
    if not pool.lines:
        result.message = "the failing tests execute no line of a source file that could be mutated"
        return _done(result, start)
    timeout, full_timeout, failing = timeouts(runs, failing, run_seconds)
    covering = covering_tests(runs, passing, pool.searched)
    singles = pool.singles(
        budget.ordered, generation_deadline(budget.max_seconds - (time.monotonic() - start))
    )
    stages = pool.stream(singles, budget.pair_lines, budget.max_pairs)
    found: list[Mutation] = []  # every plausible patch: the choices, then the scouts (limits.sort_passed)
    choices: list[Mutation] = []
    since: int | None = None  # candidates tried since the first plausible patch that settles the search
    pending: list[Mutation] = []  # taken from the stream but not yet tried
    # candidates whose failing tests timed out: often an endless loop, sometimes a stall of a busy
    # machine; they are tried once more (with the worker's retry) after the stream runs out
    stalled: list[Mutation] = []
    retry = False
    searched = searched_after(budget, passing)
    extra_left, fallback_left = searched, budget.search_after_removal
    overhead = 0.0  # seconds a worker call takes besides its candidates, measured on each call
    expect = failing_seconds(runs, failing)
    calls = 0
    while (
        left := more_to_try(found, extra_left, fallback_left, budget.max_candidates - result.candidates_tried)
    ) > 0:
        limit = min(batch_size(budget, calls), left)
        taken = until(stages, start + budget.max_seconds)
        batch = pending[:limit] + list(itertools.islice(taken, max(0, limit - len(pending))))
        pending = pending[limit:]
        if not batch and stalled and not retry and not settled(found):
            retry, batch, pending, stalled = True, stalled[:limit], stalled[limit:], []
        remaining = budget.max_seconds - (time.monotonic() - start)  # making the batch took time too
        if found:  # the search for rivals leaves the differential check its time to compare them
            remaining -= differ_seconds(len(found) + 1, run_seconds, budget, passing)
        if not batch or remaining <= overhead:  # a call that could not finish its warm-up in time
            break
        called, calls = time.monotonic(), calls + 1
        verdicts = checker.check(
            batch,
            failing,
            passing,
            timeout=timeout,
            full_timeout=full_timeout,
            seconds=remaining,
            stop_after=len(batch),
            extra=extra_left,
            fallback=fallback_left,
            slower=budget.slower,
            retry=retry,
            covering=covering,
            expect=expect,
            hot=budget.hot and not retry,  # a stalled candidate's second try is the usual run
        )
        if not retry:  # a retried candidate was counted when it first timed out
            stalled += [v.mutation for v in verdicts if v.stage == "failing" and v.reason == "timeout"]
            result.candidates_tried += len(verdicts)
        # the worker's start and warm-up (collecting a large suite) come before its own deadline checks
        overhead = max(overhead, time.monotonic() - called - sum(v.seconds for v in verdicts))
        chosen, scouted, since = sort_passed(verdicts, since, budget.extra_after_plausible)
        extra_left = searched - (since or 0)
        fallback_left -= tried_after(verdicts, found, lambda m: True)
        choices += chosen
        found += chosen + scouted
        if len(verdicts) < len(batch) and not settled(chosen + scouted):
            break  # the worker ran out of time
        pending = batch[len(verdicts) :] + pending
    result.candidates_generated = pool.generated
    result.plausible = found
    if found:
        broken = broken_raises(sources, raised_at(runs, set(failing), "TypeError"))
        choices, found = mending(choices, found, broken)
        differ = differential(
            checker, choices, found, failing, passing, budget, full_timeout, start, pool.scores
        )
        best = choose(choices, pool.scores, changed=differ.changed)
        result.mutation, result.rivals = best, rivals(best, differ, sources)
        result.patch_diff, result.files = diff(sources, best)
        result.doubts = doubts(best, found, differ.changed.get(best, []), result.rivals)
        why = unclaimed(
            best,
            result.rivals,
            runs,
            passing,
            backing=len(failing),  # a candidate passes only when every failing test does
            found=found,
            changed=differ.changed,
            withhold_ambiguous=budget.withhold_ambiguous,
        )
        if why:
            result.status, result.message = "ambiguous", why
        else:
            result.status = "plausible"
            result.message = f"{best.description} ({best.path}:{best.line})" + (
                f"; doubtful: {'; '.join(result.doubts)}" if result.doubts else ""
            )
    else:
        result.message = give_up_reason(
            result.candidates_tried,
            sum(len(v) for v in pool.lines.values()),
            time.monotonic() - start >= budget.max_seconds,
            budget.max_seconds,
            cut=pool.deadline.cut,
        )
    return _done(result, start)


def _done(result: RepairResult, start: float) -> RepairResult:
    result.seconds = time.monotonic() - start
    return result
