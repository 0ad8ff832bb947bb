"""The task file: JSON, replaced atomically on every save."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from todocli.models import Task


class StoreError(Exception):
    pass


class TaskStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def load(self) -> list[Task]:
        if not self.path.exists():
            return []
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return [Task.from_dict(item) for item in data["tasks"]]
        except (ValueError, KeyError, TypeError) as exc:
            raise StoreError(f"{self.path} is not a valid task file: {exc}") from exc

    def save(self, tasks: list[Task]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = json.dumps({"version": 1, "tasks": [t.to_dict() for t in tasks]}, indent=2)
        # Write then rename, so a crash never leaves a half-written file behind.
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".tasks-")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(payload)
        os.replace(tmp, self.path)

    @staticmethod
    def next_id(tasks: list[Task]) -> int:
        return max((t.id for t in tasks), default=0) + 1
