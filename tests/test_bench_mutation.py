"""evals/bench_mutation.py: how a mutant whose tests time out is counted."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SPEC = importlib.util.spec_from_file_location(
    "bench_mutation", Path(__file__).resolve().parents[1] / "evals" / "bench_mutation.py"
)
assert SPEC is not None and SPEC.loader is not None
bench = importlib.util.module_from_spec(SPEC)
sys.modules[SPEC.name] = bench  # its dataclass looks its module up there
SPEC.loader.exec_module(bench)

# (worker outcome, test outcome, diff, function, operator, output) as the benchmark reads them
FAILED = ("NORMAL", "KILLED", "d1", "f", "op", "1 failed")
PASSED = ("NORMAL", "SURVIVED", "d2", "f", "op", "3 passed")
HUNG = ("NORMAL", "KILLED", "d3", "f", "op", "timeout")
BROKEN = ("EXCEPTION", "INCOMPETENT", "d4", "f", "op", "Traceback")


@pytest.mark.parametrize(
    ("baseline", "is_kill"), [(10.0, True), (30.0, True), (31.0, False), (float("inf"), False)]
)
def test_a_timeout_is_a_kill_only_when_the_unmutated_tests_take_a_third_of_the_timeout(
    baseline: float, is_kill: bool
) -> None:
    assert bench.timeouts_kill(baseline, 90.0) is is_kill
    killed, survived, timed_out, not_run = bench.classify([FAILED, PASSED, HUNG, BROKEN], is_kill)
    assert timed_out == [HUNG] and not_run == [BROKEN]
    assert killed == ([FAILED, HUNG] if is_kill else [FAILED])
    assert survived == ([PASSED] if is_kill else [PASSED, HUNG])
