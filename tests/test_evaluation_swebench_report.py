"""report.json / report.md as SWE-bench writes them, from results alone (no sandbox)."""

from __future__ import annotations

from repofix.evaluation.model import Status, TaskResult
from repofix.evaluation.report import markdown, summarize


def result(task_id: str, status: Status, patch: str = "diff", **fields) -> TaskResult:
    return TaskResult(
        task_id, status, "m", patch=patch, patch_is_None=not patch, patch_exists=bool(patch), **fields
    )


def test_counts_are_the_lengths_of_their_lists_and_an_empty_patch_is_only_an_empty_patch():
    meta = {"mode": "predictions", "task_ids": ["a", "b", "c", "d", "e"], "build_seconds": 42.5}
    latest = {
        r.task_id: r
        for r in [
            result("a", Status.RESOLVED, build_seconds=40.0, grade_seconds=2.0),
            result("b", Status.UNRESOLVED, listed=[2, 3]),
            result("c", Status.UNRESOLVED, patch=""),
            result("d", Status.ENV_FAILED, detail="this environment cannot run the task: ..."),
        ]
    }
    summary = summarize(meta, latest)
    assert summary["empty_patch_ids"] == ["c"] and summary["unresolved_ids"] == ["b"]
    assert "c" not in summary["completed_ids"] and summary["completed_ids"] == ["a", "b"]
    for key in ("empty_patch", "unresolved", "resolved", "completed", "error", "incomplete"):
        if f"{key}_instances" in summary:
            assert summary[f"{key}_instances"] == len(summary[f"{key}_ids"]), key
    assert summary["incomplete_ids"] == ["e"] and summary["gradeable_instances"] == 3
    # Counted over the listed tests: nothing ran is 0 of 2, not 0/0.
    assert summary["tasks"]["b"]["FAIL_TO_PASS"] == [0, 2] and summary["tasks"]["b"]["PASS_TO_PASS"] == [0, 3]
    text = markdown(summary, None)
    assert "- environment images: built in 42.5s (not counted in the task times)" in text
    assert "gradeable: 3 of 5" in text


def test_gold_marks_what_its_reference_patch_does_not_resolve_as_invalid():
    meta = {"mode": "gold", "task_ids": ["a", "b", "c"]}
    latest = {
        r.task_id: r
        for r in [
            result("a", Status.RESOLVED),
            result("b", Status.UNRESOLVED),
            result("c", Status.ENV_FAILED),
        ]
    }
    summary = summarize(meta, latest)
    assert summary["invalid_ids"] == {"b": "task", "c": "environment"}
    assert summary["gradeable_instances"] == 1
    assert "invalid (the reference patch does not resolve): b (task), c (environment)" in markdown(
        summary, None
    )


def test_log_and_junit_disagreements_are_listed_per_task_and_escaped():
    meta = {"mode": "gold", "task_ids": ["a"]}
    line = "FAIL_TO_PASS t.py::test_x[a|<b>]: log says success, JUnit says failure"
    latest = {"a": result("a", Status.RESOLVED, grader="repofix", disagreements=[line])}
    summary = summarize(meta, latest)
    assert summary["log_junit_disagreements"] == {"a": [line]}
    assert summary["tasks"]["a"]["grader"] == "repofix"
    text = markdown(summary, None)
    assert "## Log grading vs JUnit" in text and "t.py::test_x[a\\|&lt;b>]" in text
