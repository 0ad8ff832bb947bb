"""The record of a run: every message, action, observation, token and cost, the checkpoint ids
and the final status, rewritten atomically after every step so a crash loses nothing."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from repofix.atomic import write_json_atomic
from repofix.redaction import redact_data, secrets_from_env
from repofix.runs import read_json

FORMAT_VERSION = 1


@dataclass
class Trajectory:
    path: Path
    data: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def start(cls, path: Path, **header: Any) -> Trajectory:
        record = cls(
            path,
            {
                "format_version": FORMAT_VERSION,
                "started": time.time(),
                "status": "running",
                **header,
                "messages": [],
                "steps": [],
            },
        )
        record.save()
        return record

    @classmethod
    def load(cls, path: Path) -> Trajectory:
        data = read_json(path)
        if data.get("format_version") != FORMAT_VERSION:
            raise ValueError(
                f"{path}: trajectory format {data.get('format_version')} is not {FORMAT_VERSION}"
            )
        return cls(path, data)

    @property
    def steps(self) -> list[dict[str, Any]]:
        return self.data["steps"]

    def add_step(self, **step: Any) -> None:
        self.steps.append(step)

    def totals(self) -> dict[str, float]:
        return {
            "cost": sum(s.get("cost", 0.0) for s in self.steps),
            **{
                key: sum(s.get(key, 0) for s in self.steps)
                for key in ("input_tokens", "cached_tokens", "cache_write_tokens", "output_tokens")
            },
        }

    def save(self, messages: list[dict[str, Any]] | None = None, **fields: Any) -> None:
        if messages is not None:
            self.data["messages"] = messages
        self.data.update(fields)
        self.data["totals"] = self.totals() if "steps" in self.data else {}
        self.data["updated"] = time.time()
        write_json_atomic(self.path, redact_data(self.data, secrets_from_env()))
