"""Human-readable output."""

from __future__ import annotations

from todocli.models import Task

_MARKS = {"low": " ", "normal": "·", "high": "!"}


def format_task(task: Task) -> str:
    box = "[x]" if task.done else "[ ]"
    parts = [f"{task.id:>3} {box} {_MARKS[task.priority]} {task.title}"]
    if task.due:
        parts.append(f"(due {task.due.isoformat()})")
    if task.tags:
        parts.append(" ".join(f"#{t}" for t in task.tags))
    return "  ".join(parts)


def format_table(tasks: list[Task]) -> str:
    if not tasks:
        return "no tasks"
    return "\n".join(format_task(t) for t in tasks)
