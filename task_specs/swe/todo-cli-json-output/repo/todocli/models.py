"""The Task record and its JSON form."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

PRIORITIES = ("low", "normal", "high")


@dataclass
class Task:
    id: int
    title: str
    done: bool = False
    priority: str = "normal"
    due: dt.date | None = None
    tags: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.priority not in PRIORITIES:
            raise ValueError(f"priority must be one of {', '.join(PRIORITIES)}, got {self.priority!r}")

    def is_overdue(self, today: dt.date) -> bool:
        return not self.done and self.due is not None and self.due < today

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "title": self.title, "done": self.done, "priority": self.priority,
            "due": self.due.isoformat() if self.due else None, "tags": list(self.tags),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Task:
        due = data.get("due")
        return cls(
            id=int(data["id"]), title=data["title"], done=bool(data.get("done", False)),
            priority=data.get("priority", "normal"),
            due=dt.date.fromisoformat(due) if due else None, tags=list(data.get("tags", [])),
        )
