"""SWE-bench rows <-> Tasks.

Rows come as JSON lines, a JSON list, or parquet (when pyarrow is installed). FAIL_TO_PASS and
PASS_TO_PASS may be JSON-encoded strings (the official datasets) or lists. Fields a Task has no
place for (`version`, `environment_setup_commit`, `image`, `eval_script`, `created_at`, ...) are
kept verbatim in `Task.extra`, so exporting gives back the same rows. repofix's own fields that
SWE-bench has no name for (`environment`, `test_cmd`, `protected_files`, `time_limit`, `tags`) are
written under those names when they differ from the defaults, so a task set survives export and
import unchanged.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from repofix.atomic import write_atomic
from repofix.tasks.errors import SpecError, SpecIssue, display_path, explain_error, read_task_file
from repofix.tasks.model import Task, TasksError

# Row fields that map onto Task fields; everything else goes to Task.extra.
_MAPPED = {
    "instance_id",
    "repo",
    "base_commit",
    "problem_statement",
    "hints_text",
    "patch",
    "test_patch",
    "FAIL_TO_PASS",
    "PASS_TO_PASS",
    *("environment", "test_cmd", "protected_files", "time_limit", "tags"),
}
_IMPORTED_TAGS = ["swebench"]
_GITHUB_URL = re.compile(r"^(?:https://|git@)github\.com[/:]([\w.-]+/[\w.-]+?)(?:\.git)?/?$")


def read_rows(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(location, row) for each row of a .jsonl, .json (list) or .parquet file."""
    shown = display_path(path)
    if path.suffix == ".parquet":
        try:
            import pyarrow.parquet as parquet
        except ImportError as error:
            raise TasksError(f"{shown}: reading parquet needs pyarrow (pip install pyarrow)") from error
        for number, row in enumerate(parquet.read_table(path).to_pylist(), start=1):
            yield f"{shown}: row {number}", row
        return
    text = read_task_file(path)
    if path.suffix == ".json" or text.lstrip().startswith("["):
        try:
            rows = json.loads(text)
        except json.JSONDecodeError as error:
            raise TasksError(f"{shown}: not valid JSON (line {error.lineno}): {error.msg}") from error
        if not isinstance(rows, list):
            raise TasksError(f"{shown}: expected a JSON list of SWE-bench rows")
        for number, row in enumerate(rows, start=1):
            yield f"{shown}: row {number}", row
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                yield f"{shown}:{number}", json.loads(line)
            except json.JSONDecodeError as error:
                raise TasksError(f"{shown}:{number}: not valid JSON: {error.msg}") from error


def _test_list(value: Any) -> Any:
    # The official datasets store the lists as JSON text; leave anything else for pydantic to reject.
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def row_to_task(row: dict[str, Any]) -> Task:
    """One SWE-bench row as a Task (raises pydantic's ValidationError when malformed)."""
    data: dict[str, Any] = {
        "id": row.get("instance_id"),
        "repo": {"github": row.get("repo")},
        "base_commit": row.get("base_commit"),
        "problem_statement": row.get("problem_statement"),
        "hints": row.get("hints_text"),
        "patch": row.get("patch"),
        "test_patch": row.get("test_patch"),
        "FAIL_TO_PASS": _test_list(row.get("FAIL_TO_PASS", [])),
        "PASS_TO_PASS": _test_list(row.get("PASS_TO_PASS", [])),
        "tags": row.get("tags", _IMPORTED_TAGS),
        "extra": {key: value for key, value in row.items() if key not in _MAPPED},
    }
    for key in ("environment", "test_cmd", "protected_files", "time_limit"):
        if key in row:
            data[key] = row[key]
    return Task.model_validate(data)


def read_swebench(path: Path) -> list[Task]:
    """All rows of a SWE-bench file as Tasks; raises SpecError naming row, instance and field."""
    tasks: list[Task] = []
    issues: list[SpecIssue] = []
    for where, row in read_rows(path):
        if not isinstance(row, dict):
            issues.append(SpecIssue(where, None, None, "expected a JSON object"))
            continue
        name = row.get("instance_id") if isinstance(row.get("instance_id"), str) else None
        try:
            tasks.append(row_to_task(row))
        except ValidationError as error:
            for problem in error.errors():
                field, message = explain_error(problem)
                issues.append(SpecIssue(where, name, _row_field(field), message))
    if issues:
        raise SpecError(issues)
    return tasks


def _row_field(field: str | None) -> str | None:
    """Name the row's field, not the Task's, in errors about rows."""
    renames = {"id": "instance_id", "repo.github": "repo", "repo": "repo", "hints": "hints_text"}
    return renames.get(field or "", field)


def github_name(task: Task) -> str:
    if task.repo.github is not None:
        return task.repo.github
    match = _GITHUB_URL.match(task.repo.url or "")
    if match:
        return match.group(1)
    raise TasksError(
        f"task {task.id!r}: SWE-bench rows need a GitHub repository (owner/name), "
        f"but the task's repository is {task.repo.describe()}"
    )


def task_to_row(task: Task, *, lists_as_json: bool = True) -> dict[str, Any]:
    """A SWE-bench row for the task. Test lists are JSON text, as in the official datasets."""

    def test_list(items: list[str]) -> Any:
        return json.dumps(items) if lists_as_json else list(items)

    row: dict[str, Any] = {
        "repo": github_name(task),
        "instance_id": task.id,
        "base_commit": task.base_commit,
        "patch": task.patch,
        "test_patch": task.test_patch,
        "problem_statement": task.problem_statement,
    }
    if task.hints is not None:
        row["hints_text"] = task.hints
    row["FAIL_TO_PASS"] = test_list(task.FAIL_TO_PASS)
    row["PASS_TO_PASS"] = test_list(task.PASS_TO_PASS)
    own = task.model_dump(
        include={"environment", "test_cmd", "protected_files", "time_limit"}, exclude_defaults=True
    )
    row.update({key: value for key, value in own.items() if value != {}})
    if task.tags != _IMPORTED_TAGS:
        row["tags"] = list(task.tags)
    for key, value in task.extra.items():
        row.setdefault(key, value)
    return row


def write_swebench(path: Path, tasks: Iterable[Task], *, lists_as_json: bool = True) -> Path:
    """Write tasks as SWE-bench rows: JSON lines, or a JSON list when `path` ends in .json."""
    rows = [task_to_row(task, lists_as_json=lists_as_json) for task in tasks]
    if path.suffix == ".json":
        text = json.dumps(rows, indent=1) + "\n"
    else:
        text = "".join(json.dumps(row) + "\n" for row in rows)
    return write_atomic(path, text)
