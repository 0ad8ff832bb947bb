"""A repair's budget, when the search stops and what it says then: the per-candidate time limits,
how many more candidates it tries once patches passed, and the true reason when nothing did."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

from repofix.repair.checker import Verdict
from repofix.repair.localize import RunRecord
from repofix.repair.source import Mutation

GROWTH = 3  # each worker call takes twice the candidates of the one before, up to 8 x Budget.batch


@dataclass(frozen=True)
class Budget:
    max_candidates: int = 5000  # candidates run against the tests (the seconds are the usual limit)
    max_seconds: float = 300.0  # wall time for the whole repair, coverage run included
    max_lines: int = 40  # most suspicious lines that get mutated
    outer_lines: int = 80  # the next ones, whose comparisons and `and`/`or` are swapped (the outer ring)
    # candidates tried after the first plausible one, for a smaller one (300 found rivals more often
    # but also smaller wrong patches that outranked the right one: heldout7, see the README)
    extra_after_plausible: int = 10
    # candidates tried after those, only to find rivals (plausible patches that do otherwise on the
    # tests: they cannot tell which is right); a patch found then is never the one chosen. 1500, not
    # the 300 of b4fdbce: a right fix the ranking places far down is then found as a rival more often
    # (multirange's mirrored clause was candidate 922, scopedconfig's `len(nodes)` 1281). On the 26
    # wrong claims the engine still made on heldout40-58 (development data) it held back 6, and 1 of
    # 60 right claims sampled from heldout53-58; the search takes longer (median 16 -> 37 s), never
    # past the budget, which the loop checks
    scout_after_plausible: int = 1500
    # candidates tried for a patch that does more, once only patches that remove code or exit early
    # passed (they are kept, and claimed when nothing else passes, but rank last)
    search_after_removal: int = 1000
    pair_lines: int = 8  # when no single mutation works: pairs on the top lines...
    max_pairs: int = 2000  # ...at most this many
    batch: int = 150  # candidates of the first worker call (see GROWTH)
    test_timeout: float = 10.0  # per test in the coverage run: a hanging test fails there
    traced: int | None = 500  # passing tests traced for localization (evenly spaced); None: every one
    # the part of max_seconds those may take traced, paced over the run (a test runs up to 30 times
    # slower traced: crontimesequence's suite, 5 s, took 44 s of a 60 s repair traced whole)
    trace_share: float = 0.1
    ordered: bool = True  # rank by suspiciousness x prior; False: plain source order (a baseline)
    slower: float = 3.0  # reject a patch that makes the passing tests this many times slower (0: never)
    differential: bool = True  # trace the passing tests on the original and each plausible patch
    # reject candidates by hot patching the changed function in a warm process (insandbox/hot.py);
    # a candidate that passes so is tried again the usual way (False: always the usual way)
    hot: bool = True
    # repair() claims no patch when plausible ones behave differently on the tests (`rivals`): the
    # result is "ambiguous", its best patch given for review; off, the best is claimed and its
    # rivals are a doubt. With the scouts, on the 59 tasks of heldout17 and heldout18 the engine had
    # claimed: 41 claims, 2 wrong, where claiming every best patch makes 59, 11 wrong (9 right ones
    # are held back); `repofix fix` (repair/model.py) gives such a target up, with the reason
    withhold_ambiguous: bool = True


def batch_size(budget: Budget, calls: int) -> int:
    """Candidates for a worker call after `calls` earlier ones: twice the last call's, from
    `budget.batch` up to 2 ** GROWTH times it. A call costs a start (the worker's warm-up, the hot
    server's collection: 2-3 s on a project of some size) where a rejection takes tens of ms."""
    return budget.batch << min(calls, GROWTH)


def settled(found: list[Mutation]) -> bool:
    """A plausible patch that does more than remove code or exit early was found."""
    return any(not m.removes_only for m in found)


def searched_after(budget: Budget, passing: list[str]) -> int:
    """Candidates tried past the first plausible patch that settles the search: the extra ones
    (for a smaller patch), then the scouts (for rivals, which only the differential check can tell:
    none without passing tests)."""
    scouting = budget.scout_after_plausible if budget.differential and passing else 0
    return budget.extra_after_plausible + scouting


def more_to_try(found: list[Mutation], extra_left: int, fallback_left: int, allowed: int) -> int:
    """How many more candidates the search tries (at most `allowed`): any number until a patch
    passes; once a settled one passed, `extra_left` (for a smaller one); while only patches that
    remove code passed, `fallback_left` (for one that does more)."""
    if settled(found):
        return min(allowed, extra_left)
    return min(allowed, fallback_left) if found else allowed


def tried_after(verdicts: list[Verdict], found: list[Mutation], counts: Callable[[Mutation], bool]) -> int:
    """How many of `verdicts` came after the first plausible patch that `counts` (all of them when
    `found` already holds one)."""
    if any(counts(m) for m in found):
        return len(verdicts)
    first = next((i for i, v in enumerate(verdicts) if v.ok and counts(v.mutation)), None)
    return 0 if first is None else len(verdicts) - (first + 1)


def sort_passed(
    verdicts: list[Verdict], since: int | None, extra: int
) -> tuple[list[Mutation], list[Mutation], int | None]:
    """The plausible patches among `verdicts` as (choices, scouts), and how many candidates were
    tried since the first plausible patch that does more than remove code (`since`, None while
    there is none). One found more than `extra` candidates after it is a scout: it can show that
    the tests cannot tell, never be the patch given: chosen from all of them, a later, smaller
    wrong patch outranked the right one (heldout7), and on heldout17 and heldout18 it made 1 more
    wrong claim of 41."""
    choices: list[Mutation] = []
    scouts: list[Mutation] = []
    for verdict in verdicts:
        if since is not None:
            since += 1
        if verdict.ok:
            (choices if since is None or since <= extra else scouts).append(verdict.mutation)
            if since is None and not verdict.mutation.removes_only:
                since = 0
    return choices, scouts, since


def nothing_fails(asked: list[str], runs: list[RunRecord]) -> str:
    """Why there is nothing to repair: a test id that names no collected test is said as such (a
    parameter's id cut at a space, a renamed test), not taken for a test that passes."""
    ran = {r.nodeid for r in runs}
    unknown = [t for t in asked if t not in ran]
    if unknown:
        shown = ", ".join(repr(t) for t in unknown[:3]) + (
            f" and {len(unknown) - 3} more" if len(unknown) > 3 else ""
        )
        return f"no target test fails: {len(unknown)} of the {len(asked)} failing tests given name no test the run collected ({shown})"
    return "no target test fails, so there is nothing to repair"


def timeouts(runs: list[RunRecord], failing: list[str], run_seconds: float) -> tuple[float, float, list[str]]:
    """Per-candidate limits for the failing tests and for the whole selection, and the failing tests
    in the order to run them: a test that hung at baseline was detected once, in the coverage run;
    it says nothing about how long a fixed one needs, and it runs last, so a candidate that does
    not fix the quick ones is rejected without waiting for it."""
    hung = {r.nodeid for r in runs if r.timed_out}
    ordered = sorted(failing, key=lambda n: n in hung)
    return max(2.0, failing_seconds(runs, failing) + 1.5), max(5.0, 3 * run_seconds + 2.0), ordered


def failing_seconds(runs: list[RunRecord], failing: list[str]) -> float:
    """Three times what the failing tests took in the coverage run (those that hung left out):
    what a fixed program may need to pass them all."""
    targets = set(failing)
    return 3 * sum(r.duration for r in runs if r.nodeid in targets and not r.timed_out)


T = TypeVar("T")

# the share of the time left that making the single candidates may take: the rest is for running them
GENERATION_SHARE = 0.5
# the single candidates kept at most (about 300 MB): a task's 40 suspicious lines make a few thousand,
# a whole 3,000-line module of the standard library's (email's _header_value_parser) 474,443
MOST_MADE = 500_000


class Deadline:
    """When generating candidates must stop: a hostile function can make millions of them (no real
    one comes near), and the time budget must hold all the same, and so must memory (`most`: a
    1,000-clause condition made 2.7 million in 20 s, 1.6 GB). `reached` says it was cut short,
    `cut` why."""

    def __init__(self, at: float | None = None, most: int = MOST_MADE):
        self.at = at
        self.most = most
        self.left = most  # candidates that may still be kept
        self.reached = False

    def passed(self) -> bool:
        self.reached = self.reached or (self.at is not None and time.monotonic() >= self.at)
        return self.reached

    def room(self) -> bool:
        """Whether one more candidate may be kept (it is counted as kept)."""
        self.left -= 1
        self.reached = self.reached or self.left < 0
        return self.left >= 0

    @property
    def cut(self) -> str:
        """Why making candidates stopped early ("" when it did not)."""
        if not self.reached:
            return ""
        if self.left < 0:
            return f"making them stopped at the {self.most:,} kept at most"
        return f"making them took {GENERATION_SHARE:.0%} of the time it had and was stopped"


def generation_deadline(seconds_left: float) -> float:
    """The `time.monotonic()` time by which making candidates stops (search.CandidatePool.singles)."""
    return time.monotonic() + max(0.0, seconds_left) * GENERATION_SHARE


def until(stream: Iterator[T | None], at: float) -> Iterator[T]:
    """`stream`'s items until `time.monotonic()` reaches `at` (none taken from it after that): a
    batch of candidates is checked as it is taken (each parsed, its whole function in the worst
    case), so making one must stop at the deadline too. A None is a candidate dropped: not given,
    but the time is checked after it as after any other."""
    for item in stream:
        if item is not None:
            yield item
        if time.monotonic() >= at:
            return


def give_up_reason(
    tried: int, lines: int, out_of_time: bool, seconds: float, share: float | None = None, cut: str = ""
) -> str:
    """The true reason: candidates exhausted, or the time budget spent (never both claimed). `share`:
    the seconds this target was given of `seconds` when its share ran out, not the whole budget;
    `cut`: why making the candidates stopped early (Deadline.cut), so some lines have none."""
    why = f"no plausible patch among {tried} candidates on {lines} suspicious lines"
    if cut:
        why += f" ({cut}: some lines got none)"
    if out_of_time and share is not None:
        return why + f"; its share of the time ({share:.0f} s of the {seconds:.0f} s budget) ran out"
    return why + (f"; the time budget ({seconds:.0f} s) ran out" if out_of_time else "")


def stuck_reason(stuck: dict[str, str], repaired: list[str]) -> str:
    """Why a repair of several targets ended: what it repaired, then each reason a target was left
    with, said once for all the targets it holds for (a thousand out of time: one line)."""
    by_reason: dict[str, list[str]] = {}
    for test, why in stuck.items():
        by_reason.setdefault(why, []).append(test)
    said = [
        f"{tests[0]}{f' and {len(tests) - 1} more' if len(tests) > 1 else ''}: {why}"
        for why, tests in by_reason.items()
    ]
    if repaired:
        return f"repaired {len(repaired)} target(s) ({'; '.join(repaired)}), but for " + "; ".join(said)
    if len(stuck) == 1:
        return said[0].split(": ", 1)[1] + f" (target {next(iter(stuck))})"
    return "; ".join(said) or "no failing target test to work on"
