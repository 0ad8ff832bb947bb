"""The held-aside sets pooled (evals/bench_builtin_pooled.py): records joined to their frozen bugs,
outcomes summed per kind, per failing tests and per set, and a set not measured refused."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "evals"))

import bench_builtin_pooled as pool  # noqa: E402
from bench_builtin_bugs import Bug  # noqa: E402
from bench_builtin_heldout import planted  # noqa: E402


def _bug(line: int, kind: str, failing: int) -> Bug:
    return Bug(
        project="tiny==1.0",
        path="tiny.py",
        line=line,
        kind=kind,
        before="x",
        after="y",
        start=10 * line,
        end=10 * line + 1,
        failing=[f"test_tiny.py::test_{line}_{i}" for i in range(failing)],
        known=[],
    )


def _write_set(results: Path, name: str, bugs: list[tuple[Bug, str]]) -> None:
    frozen = {"set": name, "seed": 1, "projects": ["tiny==1.0"], "bugs": [asdict(b) for b, _ in bugs]}
    (results / f"bench_builtin_{name}.bugs.json").write_text(json.dumps(frozen))
    records = [{"task": f"tiny:tiny.py:{b.line}", "bug": planted(b), "outcome": o} for b, o in bugs]
    (results / f"bench_builtin_{name}.engine_now.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records)
    )


def test_outcomes_are_summed_per_kind_failing_tests_and_set(tmp_path: Path) -> None:
    _write_set(
        tmp_path,
        "heldout1",
        [
            (_bug(1, "comparison", 1), "fixed"),
            (_bug(2, "comparison", 5), "plausible but wrong"),
            (_bug(3, "missing-clause", 1), "ambiguous, best fixed"),
        ],
    )
    _write_set(
        tmp_path,
        "heldout2",
        [(_bug(1, "missing-clause", 2), "not found"), (_bug(2, "comparison", 1), "fixed (unverified)")],
    )
    views = pool.pooled(["heldout1", "heldout2"], tmp_path)
    assert views["kind"]["comparison"].counts == {"right": 2, "wrong": 1}
    assert views["kind"]["missing-clause"].counts == {"held, right": 1, "not found": 1}
    assert views["failing tests"]["1"].counts == {"right": 2, "held, right": 1}
    assert views["failing tests"]["4 or more"].counts == {"wrong": 1}
    assert views["set"]["heldout2"].counts == {"not found": 1, "right": 1}
    text = pool.report(["heldout1", "heldout2"], tmp_path)
    assert "5 bugs in 2 sets, 2 right (40.0%), 1 of 3 claims wrong (33.3%)" in text
    assert "| comparison | 3 | 2 (67%) | 1 | 33% | 0 (0 right) | 0 | 0 |" in text


@pytest.mark.parametrize(
    ("outcome", "column"),
    [("plausible, fails suite", "wrong"), ("an outcome no grader gives", "crashed")],
)
def test_a_claim_the_suite_failed_counts_as_wrong(tmp_path: Path, outcome: str, column: str) -> None:
    # heldout53's trieregex suite failed once under the grader (a memoizer keyed on an address):
    # the claim is counted against the engine, not as a crash
    _write_set(
        tmp_path, "heldout1", [(_bug(1, "comparison", 1), outcome), (_bug(2, "comparison", 1), "fixed")]
    )
    assert pool.pooled(["heldout1"], tmp_path)["all"]["all"].counts == {column: 1, "right": 1}


def test_a_set_whose_records_do_not_cover_its_bugs_is_refused(tmp_path: Path) -> None:
    _write_set(tmp_path, "heldout1", [(_bug(1, "comparison", 1), "fixed")])
    bugs_file = tmp_path / "bench_builtin_heldout1.bugs.json"
    data = json.loads(bugs_file.read_text())
    data["bugs"].append(asdict(_bug(2, "comparison", 1)))
    bugs_file.write_text(json.dumps(data))
    with pytest.raises(SystemExit, match="heldout1: 1 records for 2 bugs; measure the set first"):
        pool.pooled(["heldout1"], tmp_path)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (None, "heldout1: no frozen list"),
        ("{not json", "heldout1: .* is not a frozen list of bugs"),
        (
            '{"set": "heldout1", "bugs": [{"project": "tiny==1.0"}]}',
            "heldout1: .* is not a frozen list of bugs",
        ),
    ],
    ids=["missing", "not-json", "not-bugs"],
)
def test_a_frozen_list_that_is_missing_or_malformed_is_named(
    tmp_path: Path, text: str | None, error: str
) -> None:
    if text is not None:
        (tmp_path / "bench_builtin_heldout1.bugs.json").write_text(text)
    with pytest.raises(SystemExit, match=error):
        pool.pooled(["heldout1"], tmp_path)


def test_the_recorded_pool_adds_up() -> None:
    """On this repository's own records: every bug of heldout19 to heldout41 is counted once."""
    names = [f"heldout{n}" for n in range(19, 42)]
    views = pool.pooled(names)
    total = sum(views["all"]["all"].counts.values())
    for view in ("kind", "failing tests", "set"):
        assert sum(sum(t.counts.values()) for t in views[view].values()) == total
    assert total == sum(len(pool.load_set(pool.RESULTS / f"bench_builtin_{n}.bugs.json")[1]) for n in names)
