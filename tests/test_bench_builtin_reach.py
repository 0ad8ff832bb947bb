"""Where the fixed program is in the engine's candidate stream (evals/bench_builtin_reach.py): a bug
one of the engine's operators undoes is in reach, at a position; one none undoes is out of reach;
the table counts each kind's misses by where their fix was."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "evals"))

from bench_builtin_bugs import Bug  # noqa: E402
from bench_builtin_reach import probe, report  # noqa: E402

from tests.conftest import marks_for  # noqa: E402
from tests.test_bench_builtin_sets import SOURCE as MODULE  # noqa: E402  (tiny.py: clamp() and tail())
from tests.test_bench_builtin_sets import TESTS  # noqa: E402


def planted(before: str, after: str, failing: str) -> Bug:
    start = MODULE.index(before)
    line = MODULE[:start].count("\n") + 1
    return Bug("tiny==1.0", "tiny.py", line, "test", before, after, start, start + len(before), [failing], [])


@pytest.mark.parametrize("backend", [pytest.param("bwrap", marks=marks_for("bwrap"))])  # the bench's
@pytest.mark.parametrize(
    ("before", "after", "failing", "where", "fix"),
    [
        # a comparison turned: the engine's swap undoes it; turned and given a clause, nothing does
        ("x > high", "x < high", "test_tiny.py::test_clamp_high", "in reach", "comparison < -> >"),
        ("x > high", "x >= high + 1 and x > 100", "test_tiny.py::test_clamp_high", "out of reach", None),
        # a value lost for an empty list: nothing makes `items[1:]` from `[]`
        ("items[1:]", "[]", "test_tiny.py::test_tail", "out of reach", None),
    ],
)
def test_a_fix_is_in_reach_at_its_position_or_out_of_reach(
    tmp_path: Path, backend: str, before: str, after: str, failing: str, where: str, fix: str | None
) -> None:
    project = tmp_path / "cache" / "unpacked" / "tiny-1.0"
    project.mkdir(parents=True)
    bug = planted(before, after, failing)
    (project / "tiny.py").write_text(MODULE)
    (project / "test_tiny.py").write_text(TESTS)
    found = probe(bug, tmp_path / "cache", backend)
    assert found["where"] == where
    if fix is not None:
        assert found["fix"].startswith(fix)
        assert 0 <= found["position"] < found["singles"]
    assert (project / "tiny.py").read_text() == MODULE  # planted in a copy


def test_the_table_counts_each_kinds_misses_by_where_the_fix_was() -> None:
    rows = [
        {"kind": "comparison", "where": "in reach", "position": 3, "tried": 10},
        {"kind": "comparison", "where": "in reach", "position": 30, "tried": 10},
        {"kind": "missing-clause", "where": "out of reach", "tried": 500},
        {"kind": "missing-clause", "where": "file not suspected", "tried": 0},
    ]
    table = report(rows).splitlines()
    assert table[0].startswith(
        "| kind | misses | in reach, within tried | in reach, beyond tried | out of reach |"
    )
    assert table[2] == "| comparison | 2 | 1 | 1 | 0 | 0 | 0 |"
    assert table[3] == "| missing-clause | 2 | 0 | 0 | 1 | 1 | 0 |"
    assert table[4] == "| all | 4 | 1 | 1 | 1 | 1 | 0 |"


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--set", "nope"], "no frozen list"),
        (["--set", "heldout55", "--tasks", "99"], "give A:B or positions 0 to 35"),
        (["--set", "heldout55", "--records", "nosuch"], "0 records of 'nosuch' for the 36 bugs of heldout55"),
        (["--report", "--out", "missing.jsonl"], "no probes recorded in missing.jsonl"),
        ([], "--set is needed unless --report"),
    ],
    ids=["no-set", "task-out-of-range", "no-records", "no-probes", "nothing-asked"],
)
def test_bad_arguments_are_refused_by_name_and_nothing_is_written(
    tmp_path: Path, argv: list[str], said: str
) -> None:
    script = Path(__file__).resolve().parent.parent / "evals" / "bench_builtin_reach.py"
    done = subprocess.run([sys.executable, str(script), *argv], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode != 0
    assert said in done.stderr
    assert "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []
