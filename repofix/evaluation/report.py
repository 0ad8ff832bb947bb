"""The evaluation report: `report.json` (SWE-bench's summary keys plus repofix's), `report.md`
and the chart, all made from the results store, so `repofix eval report DIR` can remake them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from repofix.atomic import write_atomic
from repofix.evaluation.chart import ChartUnavailable, draw_chart
from repofix.evaluation.model import Status, TaskResult
from repofix.evaluation.store import ResultsStore, open_existing


def summarize(
    meta: dict[str, Any], latest: dict[str, TaskResult], spent: float | None = None
) -> dict[str, Any]:
    """report.json's content. Rates are over every task of the set, run or not. `spent`: the money of
    every attempt, retried ones included (what `--max-cost` counts); the latest attempts' when not given."""
    task_ids: list[str] = meta.get("task_ids") or list(latest)
    results = [latest[t] for t in task_ids if t in latest]
    ids = {status: [r.task_id for r in results if r.status is status] for status in Status}
    resolved = ids[Status.RESOLVED]
    errors = [r.task_id for r in results if r.status.infra]
    # As SWE-bench: an empty patch is counted apart, never as completed or unresolved.
    graded = [r for r in results if not r.status.infra and not r.patch_is_None]
    unresolved = [t for t in ids[Status.UNRESOLVED] if not latest[t].patch_is_None]
    invalid = _invalid(meta, results)
    gradeable = [r.task_id for r in results if r.task_id not in invalid and r.status is not Status.ENV_FAILED]
    total = len(task_ids)
    return {
        "schema_version": 2,
        # SWE-bench's summary keys
        "total_instances": total,
        "submitted_instances": len(results),
        "completed_instances": len(graded),
        "resolved_instances": len(resolved),
        "unresolved_instances": len(unresolved),
        "empty_patch_instances": sum(r.patch_is_None for r in results),
        "error_instances": len(errors),
        "submitted_ids": [r.task_id for r in results],
        "completed_ids": [r.task_id for r in graded],
        "incomplete_ids": [t for t in task_ids if t not in latest],
        "empty_patch_ids": [r.task_id for r in results if r.patch_is_None],
        "resolved_ids": resolved,
        "unresolved_ids": unresolved,
        "error_ids": errors,
        # repofix's
        "run": meta,
        # tasks whose tests can judge a patch here: for --gold those the reference patch resolves,
        # otherwise those whose environment could run them
        "gradeable_instances": len(gradeable),
        "invalid_ids": invalid,
        "log_junit_disagreements": {r.task_id: r.disagreements for r in results if r.disagreements},
        "resolve_rate": len(resolved) / total if total else 0.0,
        "by_status": {status.value: len(found) for status, found in ids.items()},
        "cost": round(sum(r.cost for r in results), 6),  # of the attempts reported per task
        "cost_spent": round(max(spent or 0.0, sum(r.cost for r in results)), 6),
        "tokens": sum(r.tokens for r in results),
        "seconds": {
            "grading": round(sum(r.grade_seconds for r in results), 3),
            "tests": round(sum(r.test_seconds for r in results), 3),
            "agent": round(sum(r.agent_seconds for r in results), 3),
            # image builds, once per environment, apart from every task's time
            "build": round(float(meta.get("build_seconds") or 0.0), 3),
        },
        "tasks": {r.task_id: _task_row(r) for r in results},
    }


def _invalid(meta: dict[str, Any], results: list[TaskResult]) -> dict[str, str]:
    """--gold: the tasks whose reference patch does not resolve, and whose fault that is."""
    if meta.get("mode") != "gold":
        return {}
    return {
        r.task_id: "task" if r.status is Status.UNRESOLVED else "environment"
        for r in results
        if not r.resolved
    }


def _task_row(r: TaskResult) -> dict[str, Any]:
    f2p, p2p = r.tests_status.FAIL_TO_PASS, r.tests_status.PASS_TO_PASS
    # Out of the listed tests (a run where nothing ran is 0/N, not 0/0).
    listed = r.listed or [
        len(f2p["success"]) + len(f2p["failure"]),
        len(p2p["success"]) + len(p2p["failure"]),
    ]
    return {
        "status": r.status.value,
        "resolved": r.resolved,
        "attempt": r.attempt,
        "detail": r.detail,
        "FAIL_TO_PASS": [len(f2p["success"]), listed[0]],
        "PASS_TO_PASS": [len(p2p["success"]), listed[1]],
        "grader": r.grader or "junit",
        "disagreements": r.disagreements,
        "build_seconds": round(r.build_seconds, 3),
        "cost": r.cost,
        "tokens": r.tokens,
        "grade_seconds": round(r.grade_seconds, 3),
        "test_seconds": round(r.test_seconds, 3),
        "agent_seconds": round(r.agent_seconds, 3),
        "environment": r.environment,
    }


def markdown(summary: dict[str, Any], chart: str | None, chart_note: str = "") -> str:
    run, total = summary["run"], summary["total_instances"]
    resolved, done = summary["resolved_instances"], summary["submitted_instances"]
    rate = f"{100 * summary['resolve_rate']:.1f}%"
    per_task = summary["seconds"]["grading"] / done if done else 0.0
    by_status = summary["by_status"]
    lines = [
        f"# Evaluation: {run.get('model_name', '?')} on {total} task(s) ({run.get('mode', '?')})",
        "",
        f"**Resolved {resolved} of {total} ({rate})**; unresolved {by_status['unresolved']} "
        f"({summary['empty_patch_instances']} with an empty patch), "
        f"infrastructure errors {summary['error_instances']}, not run {len(summary['incomplete_ids'])}.",
        "",
        f"- gradeable: {summary['gradeable_instances']} of {total} task(s)"
        + (
            f"; invalid (the reference patch does not resolve): {_invalid_text(summary['invalid_ids'])}"
            if summary["invalid_ids"]
            else ""
        ),
        f"- task set: {', '.join(run.get('specs', [])) or '?'}; sandbox: {run.get('sandbox', '?')}",
        f"- cost: ${summary['cost']:.4f}, tokens: {summary['tokens']}"
        + (
            f" (spent ${summary['cost_spent']:.4f} with the retried attempts)"
            if summary["cost_spent"] > summary["cost"]
            else ""
        ),
        f"- time: grading {summary['seconds']['grading']:.1f}s in all ({per_task:.2f}s per task), of which "
        f"tests {summary['seconds']['tests']:.1f}s; agent {summary['seconds']['agent']:.1f}s",
        f"- environment images: built in {summary['seconds']['build']:.1f}s (not counted in the task times)",
        "",
        "## Outcomes",
        "",
        "| status | tasks | meaning |",
        "| --- | ---: | --- |",
    ]
    meaning = {
        "resolved": "every FAIL_TO_PASS and PASS_TO_PASS test passes",
        "unresolved": "the tests ran; some FAIL_TO_PASS or PASS_TO_PASS test does not pass",
        "patch_failed": "infrastructure: the candidate patch does not apply",
        "env_failed": "infrastructure: the environment (image build, setup) failed, or cannot run the task at its base commit",
        "timeout": "infrastructure: the test run timed out",
        "error": "infrastructure: sandbox, test patch or agent failure",
    }
    for status, count in summary["by_status"].items():
        lines.append(f"| {status} | {count} | {meaning[status]} |")
    if chart:
        lines += ["", f"![resolve rate and cost per task]({chart})"]
    elif chart_note:
        lines += ["", f"_No chart: {chart_note}_"]
    lines += [
        "",
        "## Tasks",
        "",
        "| task | status | FAIL_TO_PASS | PASS_TO_PASS | seconds | cost | detail |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for task_id, row in summary["tasks"].items():
        f2p, p2p = row["FAIL_TO_PASS"], row["PASS_TO_PASS"]
        detail = "" if row["resolved"] else row["detail"].replace("|", "\\|").replace("\n", " ")[:140]
        seconds = row["grade_seconds"] + row["agent_seconds"]
        lines.append(
            f"| {task_id} | {row['status']} | {f2p[0]}/{f2p[1]} | {p2p[0]}/{p2p[1]} | "
            f"{seconds:.1f} | {row['cost']:.4f} | {detail} |"
        )
    for task_id in summary["incomplete_ids"]:
        lines.append(f"| {task_id} | not run | | | | | |")
    if summary["log_junit_disagreements"]:
        lines += [
            "",
            "## Log grading vs JUnit",
            "",
            "SWE-bench's verdict comes from the test log; these tests read differently in the JUnit report:",
            "",
        ]
        for task_id, found in summary["log_junit_disagreements"].items():
            lines += [f"- {task_id}: {_escape(line)}" for line in found]
    return "\n".join(lines) + "\n"


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ").replace("<", "&lt;")


def _invalid_text(invalid: dict[str, str]) -> str:
    shown = [f"{task_id} ({why})" for task_id, why in list(invalid.items())[:10]]
    return ", ".join(shown) + (f" and {len(invalid) - 10} more" if len(invalid) > 10 else "")


def write_reports(out_dir: Path, store: ResultsStore | None = None) -> tuple[dict[str, Any], str]:
    """Write report.json, report.md and chart.png into `out_dir`; returns the summary and a note
    about the chart ("" when it was drawn)."""
    own = store is None
    store = store or open_existing(out_dir)
    try:
        summary = summarize(store.get_meta(), store.latest(), store.total_cost())
    finally:
        if own:
            store.close()
    chart, note = None, ""
    try:
        chart = draw_chart(summary, out_dir / "chart.png").name
    except ChartUnavailable as error:
        note = str(error)
    write_atomic(out_dir / "report.json", json.dumps(summary, indent=2) + "\n")
    write_atomic(out_dir / "report.md", markdown(summary, chart, note))
    return summary, note
