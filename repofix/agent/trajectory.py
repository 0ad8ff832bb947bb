"""The record of a run: every message, action, observation, token and cost, the checkpoint ids
and the final status, rewritten atomically after every step so a crash loses nothing."""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from repofix.runs import read_json, write_json_atomic

FORMAT_VERSION = 1
# Values that look like credentials never reach the record, whatever wrote them.
_SECRET = re.compile(r"(sk-[A-Za-z0-9_\-]{8,}|gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{20,}|"
                     r"xox[abp]-[A-Za-z0-9\-]{10,}|AKIA[0-9A-Z]{16})")
_SECRET_ENV = ("KEY", "TOKEN", "SECRET", "PASSWORD")


def secret_values() -> list[str]:
    """The values of environment variables whose names say they are secrets."""
    return [value for name, value in os.environ.items()
            if len(value) >= 8 and any(word in name.upper() for word in _SECRET_ENV)]


def redact(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, "[REDACTED]")
        return _SECRET.sub("[REDACTED]", value)
    if isinstance(value, dict):
        return {key: redact(item, secrets) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(item, secrets) for item in value]
    return value


@dataclass
class Trajectory:
    path: Path
    data: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def start(cls, path: Path, **header: Any) -> Trajectory:
        record = cls(path, {"format_version": FORMAT_VERSION, "started": time.time(), "status": "running",
                            **header, "messages": [], "steps": []})
        record.save()
        return record

    @classmethod
    def load(cls, path: Path) -> Trajectory:
        data = read_json(path)
        if data.get("format_version") != FORMAT_VERSION:
            raise ValueError(f"{path}: trajectory format {data.get('format_version')} is not {FORMAT_VERSION}")
        return cls(path, data)

    @property
    def steps(self) -> list[dict[str, Any]]:
        return self.data["steps"]

    def add_step(self, **step: Any) -> None:
        self.steps.append(step)

    def totals(self) -> dict[str, float]:
        return {"cost": sum(s.get("cost", 0.0) for s in self.steps),
                **{key: sum(s.get(key, 0) for s in self.steps)
                   for key in ("input_tokens", "cached_tokens", "cache_write_tokens", "output_tokens")}}

    def save(self, messages: list[dict[str, Any]] | None = None, **fields: Any) -> None:
        if messages is not None:
            self.data["messages"] = messages
        self.data.update(fields)
        self.data["totals"] = self.totals() if "steps" in self.data else {}
        self.data["updated"] = time.time()
        write_json_atomic(self.path, redact(self.data, secret_values()))
