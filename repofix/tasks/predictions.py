"""SWE-bench predictions: `instance_id`, `model_name_or_path`, `model_patch` per instance.

Read from JSON lines, a JSON list, or a JSON object keyed by instance id (all three are in use);
written as JSON lines, or a JSON list when the file name ends in `.json`, which the official
harness reads either way. Other keys of a prediction are kept in `extra` and written back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from repofix.atomic import write_atomic
from repofix.tasks.errors import display_path, read_task_file
from repofix.tasks.model import TasksError


@dataclass(frozen=True)
class Prediction:
    instance_id: str
    model_name_or_path: str
    model_patch: str  # "" when the model produced no patch (the harness's None)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_row(self) -> dict[str, Any]:
        return {
            "instance_id": self.instance_id,
            "model_name_or_path": self.model_name_or_path,
            "model_patch": self.model_patch,
            **{k: v for k, v in self.extra.items() if k not in _FIELDS},
        }


_FIELDS = ("instance_id", "model_name_or_path", "model_patch")


def _parse(where: str, row: Any) -> Prediction:
    if not isinstance(row, dict):
        raise TasksError(f"{where}: expected a JSON object with {', '.join(_FIELDS)}")
    for key in ("instance_id", "model_name_or_path"):
        if not isinstance(row.get(key), str) or not row[key]:
            raise TasksError(f"{where}: {key}: expected a non-empty string")
    patch = row.get("model_patch")
    if patch is not None and not isinstance(patch, str):
        raise TasksError(
            f"{where}: prediction {row['instance_id']!r}: model_patch: expected a string or null"
        )
    extra = {k: v for k, v in row.items() if k not in _FIELDS}
    return Prediction(row["instance_id"], row["model_name_or_path"], patch or "", extra)


def read_predictions(path: Path) -> list[Prediction]:
    """Predictions from a file; raises TasksError naming the line and field, or a repeated id."""
    shown = display_path(path)
    text = read_task_file(path)
    rows: list[tuple[str, Any]] = []
    stripped = text.lstrip()
    if path.suffix == ".json" or stripped.startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise TasksError(f"{shown}: not valid JSON (line {error.lineno}): {error.msg}") from error
        if isinstance(data, dict):  # {instance_id: prediction}
            data = [
                {"instance_id": key, **value} if isinstance(value, dict) else value
                for key, value in data.items()
            ]
        if not isinstance(data, list):
            raise TasksError(f"{shown}: expected a list of predictions")
        rows = [(f"{shown}: item {number}", row) for number, row in enumerate(data, start=1)]
    else:
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    rows.append((f"{shown}:{number}", json.loads(line)))
                except json.JSONDecodeError as error:
                    raise TasksError(f"{shown}:{number}: not valid JSON: {error.msg}") from error
    predictions: list[Prediction] = []
    seen: dict[str, str] = {}
    for where, row in rows:
        prediction = _parse(where, row)
        if prediction.instance_id in seen:
            raise TasksError(
                f"{where}: instance_id {prediction.instance_id!r} already predicted at {seen[prediction.instance_id]}"
            )
        seen[prediction.instance_id] = where
        predictions.append(prediction)
    return predictions


def write_predictions(path: Path, predictions: Iterable[Prediction]) -> Path:
    """Write predictions atomically: JSON lines, or a JSON list when `path` ends in .json."""
    rows = [prediction.to_row() for prediction in predictions]
    ids = [row["instance_id"] for row in rows]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise TasksError(f"{display_path(path)}: more than one prediction for {', '.join(repeated)}")
    if path.suffix == ".json":
        return write_atomic(path, json.dumps(rows, indent=1) + "\n")
    return write_atomic(path, "".join(json.dumps(row) + "\n" for row in rows))
