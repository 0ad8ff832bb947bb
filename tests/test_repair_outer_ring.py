"""The outer ring: the lines ranked just past the most suspicious ones get the one-token swaps
(a comparison's operator, `and` <-> `or`) at OUTER_WEIGHT of their priors, and nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from repofix.repair import Budget, repair
from repofix.repair.localize import Suspect
from repofix.repair.search import OUTER_WEIGHT, CandidatePool
from repofix.repair.source import SourceFile
from tests.test_repair_engine import project

SOURCE = "def f(a, b):\n    x = a + 1\n    if x < b and a:\n        return x\n    return b\n"


def singles(outer: int) -> list:
    suspects = [Suspect("m.py", 2, 1.0, 1, 0), Suspect("m.py", 3, 0.9, 1, 0)]
    return CandidatePool({"m.py": SourceFile("m.py", SOURCE)}, suspects, max_lines=1, outer=outer).singles()


def test_the_outer_ring_gets_only_one_token_swaps_at_a_lower_prior() -> None:
    ring = [m for m in singles(outer=1) if m.line == 3]
    assert {m.op for m in ring} == {"compare", "boolean"}
    priors = {m.description: m.prior for m in ring}
    assert priors["comparison < -> <="] == pytest.approx(1.0 * OUTER_WEIGHT)
    assert priors["boolean and -> or"] == pytest.approx(0.9 * OUTER_WEIGHT)
    # the inner line keeps every operator at its own prior
    inner = [m for m in singles(outer=1) if m.line == 2]
    assert {"arith", "constant"} <= {m.op for m in inner}


@pytest.mark.parametrize("outer", [0, 1])
def test_no_line_past_the_ring_is_edited(outer: int) -> None:
    made = singles(outer)
    assert {m.line for m in made} == ({2, 3} if outer else {2})


def test_the_ring_is_searched_but_not_counted_as_suspicious() -> None:
    suspects = [Suspect("m.py", 2, 1.0, 1, 0), Suspect("m.py", 3, 0.9, 1, 0), Suspect("m.py", 4, 0.5, 1, 0)]
    pool = CandidatePool({"m.py": SourceFile("m.py", SOURCE)}, suspects, max_lines=1, outer=1)
    assert pool.lines == {"m.py": {2}}
    assert pool.searched == {"m.py": {2, 3}}


def test_a_ring_swap_comes_after_the_inner_swaps_and_before_what_they_add() -> None:
    made = singles(outer=1)
    score = {2: 1.0, 3: 0.9}  # the suspects' scores in `singles`
    first_ring = next(i for i, m in enumerate(made) if m.line == 3)
    ring_weight = score[3] * made[first_ring].prior
    assert all(score[m.line] * m.prior >= ring_weight for m in made[:first_ring])
    assert any(m.op.startswith("add") and m.line == 2 for m in made[first_ring:])


LABEL = """\
def label(values):
    total = 0
    for v in values:
        total += v
    first = values[0]
    last = values[-1]
    size = len(values)
    mean = total / size
    if first != last:
        return "flat", mean
    return "varied", mean
"""

TESTS = """\
from stats import label

def test_flat():
    assert label([2, 2, 2]) == ("flat", 2.0)

def test_varied():
    assert label([1, 2, 3]) == ("varied", 2.0)
"""


@pytest.mark.parametrize("outer", [0, 20])
def test_a_flipped_comparison_ranked_past_the_suspicious_lines(
    make_sandbox, tmp_path: Path, outer: int
) -> None:
    # both tests fail and run every line up to the `if`: the lines tie, and the `if` (line 9) is
    # ranked after the eight before it, past the three most suspicious
    root = project(tmp_path, {"stats.py": LABEL, "test_stats.py": TESTS})
    budget = Budget(max_seconds=120, test_timeout=2, max_lines=3, outer_lines=outer)
    result = repair(make_sandbox("none", source=root), budget=budget)
    if not outer:
        assert result.status == "not_fixed", result.patch_diff
        return
    assert result.status == "plausible", result.message
    assert "-    if first != last:\n+    if first == last:\n" in result.patch_diff
