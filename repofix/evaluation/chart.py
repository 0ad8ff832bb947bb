"""The report's PNG: outcome counts with the resolve rate, and cost (or time) per task.
matplotlib is the optional `charts` extra; without it the report says so and has no chart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from repofix.atomic import replacing

COLORS = {"resolved": "#2e7d32", "unresolved": "#c62828", "infra": "#9e9e9e"}


class ChartUnavailable(Exception):
    """matplotlib is not installed."""


def draw_chart(summary: dict[str, Any], path: Path) -> Path:
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only: never a display
        import matplotlib.pyplot as plt
    except ImportError:
        raise ChartUnavailable("matplotlib is not installed (pip install 'repofix[charts]')") from None
    tasks = summary["tasks"]
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [1, 2.2]})
    counts = summary["by_status"]
    labels = [s for s, n in counts.items() if n] or ["resolved"]
    values = [counts.get(s, 0) for s in labels]
    left.bar(labels, values, color=[COLORS.get(s, COLORS["infra"]) for s in labels])
    left.set_title(
        f"resolved {summary['resolved_instances']}/{summary['total_instances']} "
        f"({100 * summary['resolve_rate']:.0f}%)"
    )
    left.set_ylabel("tasks")
    left.tick_params(axis="x", labelrotation=30)
    ids = list(tasks)
    use_cost = any(row["cost"] for row in tasks.values())
    heights = [
        tasks[t]["cost"] if use_cost else tasks[t]["grade_seconds"] + tasks[t]["agent_seconds"] for t in ids
    ]
    colors = [
        COLORS["resolved"]
        if tasks[t]["resolved"]
        else COLORS["unresolved"]
        if tasks[t]["status"] == "unresolved"
        else COLORS["infra"]
        for t in ids
    ]
    right.bar(range(len(ids)), heights, color=colors)
    right.set_title("cost per task (USD)" if use_cost else "time per task (s); no model cost in this run")
    right.set_ylabel("USD" if use_cost else "seconds")
    if len(ids) <= 40:
        right.set_xticks(range(len(ids)), [t[-28:] for t in ids], rotation=75, fontsize=7)
    else:
        right.set_xlabel(f"{len(ids)} tasks")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with replacing(path) as temporary:
            figure.savefig(temporary, dpi=100, format="png")
    finally:
        plt.close(figure)
    return path
