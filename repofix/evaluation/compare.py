"""`repofix eval compare A B`: two runs on the same task set, task by task."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from repofix.evaluation.report import summarize
from repofix.evaluation.store import StoreError, open_existing


def load_summary(folder: Path) -> dict[str, Any]:
    """A run's summary, read from its results store (the source of truth, never a stale report)."""
    if not folder.is_dir():
        raise StoreError(f"{folder}: no such run folder")
    with open_existing(folder) as store:
        return summarize(store.get_meta(), store.latest(), store.total_cost())


def compare(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    ids_a, ids_b = a["run"].get("task_ids") or list(a["tasks"]), b["run"].get("task_ids") or list(b["tasks"])
    common = [t for t in ids_a if t in set(ids_b)]
    ra, rb = set(a["resolved_ids"]), set(b["resolved_ids"])
    return {
        "common": common,
        "only_in_a": [t for t in ids_a if t not in set(ids_b)],
        "only_in_b": [t for t in ids_b if t not in set(ids_a)],
        "both": [t for t in common if t in ra and t in rb],
        "a_only": [t for t in common if t in ra and t not in rb],
        "b_only": [t for t in common if t in rb and t not in ra],
        "neither": [t for t in common if t not in ra and t not in rb],
        "status_changed": [
            (
                t,
                a["tasks"].get(t, {}).get("status", "not run"),
                b["tasks"].get(t, {}).get("status", "not run"),
            )
            for t in common
            if a["tasks"].get(t, {}).get("status") != b["tasks"].get(t, {}).get("status")
        ],
    }


def markdown(a: dict[str, Any], b: dict[str, Any], name_a: str, name_b: str) -> str:
    diff = compare(a, b)
    n = len(diff["common"])

    def rate(summary: dict[str, Any]) -> str:
        got = sum(1 for t in diff["common"] if t in set(summary["resolved_ids"]))
        return f"{got}/{n} ({100 * got / n:.1f}%)" if n else "0/0"

    lines = [
        f"# {name_a} vs {name_b}",
        "",
        f"{n} task(s) in both runs"
        + (
            f"; {len(diff['only_in_a'])} only in A, {len(diff['only_in_b'])} only in B"
            if diff["only_in_a"] or diff["only_in_b"]
            else ""
        )
        + ".",
        "",
        "| | A | B |",
        "| --- | ---: | ---: |",
        f"| model | {a['run'].get('model_name', '?')} | {b['run'].get('model_name', '?')} |",
        f"| resolved (common tasks) | {rate(a)} | {rate(b)} |",
        f"| infrastructure errors | {a['error_instances']} | {b['error_instances']} |",
        f"| cost (USD) | {a['cost']:.4f} | {b['cost']:.4f} |",
        f"| grading time (s) | {a['seconds']['grading']:.1f} | {b['seconds']['grading']:.1f} |",
        "",
        f"Resolved by both: {len(diff['both'])}; only A: {len(diff['a_only'])}; only B: {len(diff['b_only'])}; "
        f"neither: {len(diff['neither'])}.",
        "",
    ]
    for title, key in (("Resolved only by A", "a_only"), ("Resolved only by B", "b_only")):
        if diff[key]:
            lines += [f"## {title}", "", *[f"- {t}" for t in diff[key]], ""]
    if diff["status_changed"]:
        lines += [
            "## Status changes",
            "",
            "| task | A | B |",
            "| --- | --- | --- |",
            *[f"| {t} | {sa} | {sb} |" for t, sa, sb in diff["status_changed"]],
            "",
        ]
    return "\n".join(lines)
