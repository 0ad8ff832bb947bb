"""Selecting and ordering tasks for display."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from todocli.models import PRIORITIES, Task


def select(tasks: Iterable[Task], *, show_done: bool = False, tag: str | None = None,
           overdue_on: dt.date | None = None) -> list[Task]:
    out = []
    for task in tasks:
        if task.done and not show_done:
            continue
        if tag is not None and tag not in task.tags:
            continue
        if overdue_on is not None and not task.is_overdue(overdue_on):
            continue
        out.append(task)
    return out


def order(tasks: Iterable[Task], by: str = "id") -> list[Task]:
    if by == "id":
        return sorted(tasks, key=lambda t: t.id)
    if by == "priority":
        return sorted(tasks, key=lambda t: (-PRIORITIES.index(t.priority), t.id))
    if by == "due":
        # Tasks without a due date go last.
        return sorted(tasks, key=lambda t: (t.due is None, t.due or dt.date.max, t.id))
    raise ValueError(f"cannot sort by {by!r}")
