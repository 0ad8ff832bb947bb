"""Which tasks a partial rerun of a held-aside set takes (evals/bench_builtin_heldout.py --tasks): a
slice, or the positions a change can touch; a position past the list, or what is neither, is refused with the range."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "evals"))

from bench_builtin_heldout import chosen  # noqa: E402
from test_bench_builtin_pooled import _bug  # noqa: E402

BUGS = [_bug(line, "comparison", 1) for line in range(1, 7)]


@pytest.mark.parametrize(
    ("tasks", "lines"),
    [
        (":", [1, 2, 3, 4, 5, 6]),
        ("2:4", [3, 4]),
        ("4:", [5, 6]),
        (":-4", [1, 2]),
        ("0,5,2", [1, 6, 3]),
        ("3", [4]),
    ],
)
def test_a_slice_or_positions_choose_the_tasks(tasks: str, lines: list[int]) -> None:
    assert [bug.line for bug in chosen(BUGS, tasks)] == lines


@pytest.mark.parametrize("tasks", ["1,6", "a,b", "1,,2", "-1", "a:b", "1:2:3", "1-3"])
def test_a_position_not_in_the_list_is_refused_with_the_range(tasks: str) -> None:
    with pytest.raises(SystemExit, match=r"give A:B or positions 0 to 5 joined by commas"):
        chosen(BUGS, tasks)
