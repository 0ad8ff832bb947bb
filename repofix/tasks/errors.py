"""What every task reader reports: problems located by file, task and field (`SpecIssue`, `SpecError`).

Shared by the YAML spec loader and the row readers (SWE-bench, HumanEvalFix), which is why it is a
module of its own: the spec loader calls the readers, so the readers cannot import the loader."""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from repofix.tasks.model import Task, TasksError

TEST_LIST_FIELDS = ("FAIL_TO_PASS", "PASS_TO_PASS")


@dataclass(frozen=True)
class SpecIssue:
    """One problem, located as precisely as we can: file, task, field."""

    file: str
    task: str | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = [self.file]
        if self.task is not None:
            where.append(f"task {self.task!r}")
        if self.field:
            where.append(self.field)
        return ": ".join([*where, self.message])


class SpecError(TasksError):
    """One or more task specs are invalid; `issues` lists each problem."""

    def __init__(self, issues: list[SpecIssue]):
        self.issues = issues
        super().__init__("\n".join(str(issue) for issue in issues))


def display_path(path: Path) -> str:
    """The path as the user would type it: relative to the working directory when inside it."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)
    return str(path) if relative.startswith("..") else relative


def unreadable(error: OSError | UnicodeDecodeError) -> str:
    """Why a task file cannot be read, in a few words: the system's reason, or the first byte
    that is not UTF-8 (a binary file, another encoding)."""
    if isinstance(error, UnicodeDecodeError):
        return f"not UTF-8 text (byte {error.start} is {error.object[error.start]:#04x})"
    return f"cannot read: {error.strerror or error}"


def read_task_file(path: Path) -> str:
    """A task file's text; raises TasksError naming the file and why it cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise TasksError(f"{display_path(path)}: {unreadable(error)}") from None


def explain_error(error: Any, model: type[BaseModel] = Task) -> tuple[str | None, str]:
    """(field path, message a user can act on) for one pydantic error."""
    loc = [part for part in error["loc"] if part not in ("function-after", "function-before")]
    field = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc).lstrip(".") or None
    top = loc[0] if loc else None
    kind = error["type"]
    if kind == "missing":
        return field, "required field is missing"
    if kind == "extra_forbidden":
        known = _known_fields(model, loc[:-1])
        close = difflib.get_close_matches(str(loc[-1]), known, n=1)
        return field, "unknown field" + (f" (did you mean {close[0]!r}?)" if close else "")
    if top in TEST_LIST_FIELDS:
        return field, "expected a list of test ids" if len(loc) == 1 else "expected a test id (a string)"
    if kind == "list_type":
        return field, "expected a list"
    if kind == "dict_type":
        return field, "expected a mapping"
    if kind == "string_pattern_mismatch":
        if field == "id":
            return field, "may use only letters, digits, '_', '.', '-' and '/' between parts"
        if field == "repo.github":
            return field, "expected owner/name"
    message = str(error["msg"]).removeprefix("Value error, ")
    return field, message[:1].lower() + message[1:]


def _known_fields(model: Any, loc: list[Any]) -> list[str]:
    for part in loc:
        field = model.model_fields.get(part) if isinstance(part, str) else None
        model = getattr(field, "annotation", None) if field else None
        if not isinstance(model, type):
            return []
    return list(model.model_fields) if hasattr(model, "model_fields") else []


def add_unique(found: list, where: str, tasks: list, origin: dict[str, str], issues: list[SpecIssue]) -> None:
    """Append `found` to `tasks`; a task id seen before (in `origin`) is an issue naming both places."""
    for task in found:
        if task.id in origin:
            issues.append(SpecIssue(where, task.id, "id", f"already used in {origin[task.id]}"))
        else:
            origin[task.id] = where
            tasks.append(task)
