"""One target test's search on the agent path (`--model builtin`, model.py): the candidates made for
it, the batch being checked, the plausible patches found, and how much more to look. The model
moves from target to target; each gets a fresh `TargetSearch` with its share of the time left."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from repofix.repair.broken import BrokenRaise, broken_raises, mending
from repofix.repair.checker import Covering, Verdict, candidate_list, covering_tests
from repofix.repair.doubt import differ_seconds
from repofix.repair.expected import expected_errors
from repofix.repair.limits import (
    Budget,
    generation_deadline,
    searched_after,
    settled,
    sort_passed,
    timeouts,
    tried_after,
)
from repofix.repair.localize import RunRecord, raised_at, rank
from repofix.repair.search import CandidatePool
from repofix.repair.source import Mutation, SourceFile


@dataclass
class TargetSearch:
    focus: str  # the target test this search repairs
    others: list[str]  # the other failing targets: a patch that fixes them too ranks first
    passing: list[str]
    budget: Budget
    run_seconds: float  # what the coverage run took: the differential check's runs take as long
    deadline: float  # monotonic: when this target's share of the time ends
    share: float  # seconds it was given, of the time left
    split: int  # the targets the time left was shared among
    pool: CandidatePool | None = None
    stream: Iterator[Mutation | None] = field(default_factory=lambda: iter(()))  # None: one dropped
    covering: Covering = field(default_factory=dict)  # passing tests per suspicious line, run first
    timeouts: tuple[float, float] = (5.0, 30.0)  # the failing test's and the passing tests' limits
    searched_after: int = 0  # candidates searched past the settling patch: extra ones, then scouts
    fallback_left: int = 0  # candidates left to look for more than a patch that removes code
    batch: list[Mutation] = field(default_factory=list)
    calls: int = 0  # worker calls made for it: each takes more candidates (limits.batch_size)
    found: list[Mutation] = field(default_factory=list)  # its plausible patches: choices, then scouts
    choices: list[Mutation] = field(default_factory=list)  # those one of which is given (sort_passed)
    since: int | None = None  # candidates tried since the first that settles the search
    also: dict[Mutation, int] = field(default_factory=dict)  # other failing tests each patch fixes
    tried: int = 0
    # the `raise` statements the focus's TypeError says cannot raise (broken.py)
    broken: list[BrokenRaise] = field(default_factory=list)

    def for_candidates(self, left: float) -> float:
        """Seconds its candidates may take now (`left`: the whole budget's): its share of what is
        left, less what the differential check needs once a patch passed (the search for rivals
        leaves it that)."""
        remaining = min(left, self.deadline - time.monotonic())
        if self.found:
            remaining -= differ_seconds(len(self.found) + 1, self.run_seconds, self.budget, self.passing)
        return remaining

    def weigh(self) -> None:
        """The search is over: keep the plausible patches worth weighing (broken.mending)."""
        self.choices, self.found = mending(self.choices, self.found, self.broken)

    def check_request(self, seconds: float) -> dict[str, Any]:
        """The check worker's request for the batch, to end within `seconds`."""
        return {
            "mode": "check",
            "failing": [self.focus],
            "passing": self.passing,
            "also": self.others,
            "timeout": self.timeouts[0],
            "full_timeout": self.timeouts[1],
            "seconds": seconds,
            "until": time.time() + seconds,
            "stop_after": len(self.batch),
            "extra": self.extra_left(),
            "fallback": self.fallback_left,
            "slower": self.budget.slower,
            "hot": self.budget.hot,
            "candidates": candidate_list(self.batch, self.covering),
        }

    def extra_left(self) -> int:
        return self.searched_after - (self.since or 0)

    def take(self, verdicts: list[dict[str, Any]]) -> bool:
        """Record the check worker's verdicts on the batch; whether to search on. Only patches that
        remove code passed: look on for one that does more, while allowed; one that does more
        passed: look on for a smaller one, then for rivals."""
        self.tried += len(verdicts)
        checked = [Verdict.of(self.batch[v["id"]], v) for v in verdicts]
        self.fallback_left -= tried_after(checked, self.found, lambda m: True)
        chosen, scouted, self.since = sort_passed(checked, self.since, self.budget.extra_after_plausible)
        self.choices += chosen
        self.found += chosen + scouted
        self.also.update({v.mutation: v.also for v in checked if v.ok})
        if settled(self.found):
            return self.extra_left() > 0
        return not self.found or self.fallback_left > 0


def search_for(
    focus: str,
    targets: list[str],
    runs: list[RunRecord],
    sources: dict[str, SourceFile],
    tests: dict[str, str],
    budget: Budget,
    passing: list[str],
    run_seconds: float,
    left: float,
    waiting: int,
) -> TargetSearch:
    """The search for `focus` with a fair share of the `left` seconds (`waiting`: the targets after
    it). Every failing target sharpens the ranking (one bug often fails several tests), but only
    lines the focused test runs can repair it. `tests`: the test files' texts, read for the
    exception classes the focused test expects raised."""
    failing = [r.nodeid for r in runs if r.outcome == "failed"]
    others = [n for n in failing if n != focus and (not targets or n in targets)]
    ran = next(r for r in runs if r.nodeid == focus).lines
    suspects = [s for s in rank(runs, {focus, *others}) if s.line in ran.get(s.path, ())]
    raised = raised_at(runs, {focus, *others})
    split = 1 + waiting
    share = max(0.0, left) / split  # making candidates spends it too
    search = TargetSearch(focus, others, passing, budget, run_seconds, time.monotonic() + share, share, split)
    expected = expected_errors(tests, [focus])
    search.pool = CandidatePool(sources, suspects, budget.max_lines, raised, budget.outer_lines, expected)
    search.broken = broken_raises(sources, raised_at(runs, {focus}, "TypeError"))
    search.covering = covering_tests(runs, passing, search.pool.searched)
    singles = search.pool.singles(budget.ordered, generation_deadline(search.deadline - time.monotonic()))
    search.stream = search.pool.stream(singles, budget.pair_lines, budget.max_pairs)
    search.timeouts = timeouts(runs, [focus], run_seconds)[:2]
    search.fallback_left = budget.search_after_removal
    search.searched_after = searched_after(budget, passing)
    return search
