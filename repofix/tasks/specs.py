"""YAML task specs: load, validate (with errors naming file, task and field), write.

A spec file holds one task, a list of tasks, or an import pointer such as
``{"import": {"format": "humanevalfix", "path": "../../shared/data/.../x.jsonl"}}`` whose rows
are converted when the file is loaded. Patch fields hold diff text or a ``.patch``/``.diff``
file name relative to the spec file; ``repo.path`` is relative to the spec file too.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from repofix.tasks.checks import task_problems
from repofix.tasks.errors import SpecError, SpecIssue, add_unique, display_path, explain_error, unreadable
from repofix.tasks.model import ImportOverrides, ImportSource, Task, TasksError
from repofix.tasks.readers import read_rows

__all__ = ["SpecError", "SpecIssue", "display_path", "find_spec_files", "load_spec_file", "load_specs"]

PATCH_FIELDS = ("test_patch", "patch")
PATCH_SUFFIXES = (".patch", ".diff")
# Fields an import pointer may give next to `import`: they override the imported tasks' own (and
# so whatever an evaluation would derive for them, e.g. from SWE-bench's specs), part by part.
POINTER_OVERRIDES = tuple(ImportOverrides.model_fields)


def is_patch_file_name(value: str) -> bool:
    value = value.strip()
    return "\n" not in value and value.endswith(PATCH_SUFFIXES)


def load_spec_file(path: Path, *, check: bool = True) -> tuple[list[Task], list[SpecIssue]]:
    """All tasks of one YAML spec file and every problem found in it (nothing raised)."""
    shown = display_path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        return [], [SpecIssue(shown, None, None, unreadable(error))]
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error)
        return [], [SpecIssue(shown, None, None, f"not valid YAML{line}: {problem}")]
    if data is None:
        return [], [SpecIssue(shown, None, None, "the file holds no task")]
    entries = data if isinstance(data, list) else [data]
    tasks: list[Task] = []
    issues: list[SpecIssue] = []
    for index, entry in enumerate(entries):
        label = f"#{index + 1}" if isinstance(data, list) else "#1"
        if not isinstance(entry, dict):
            issues.append(SpecIssue(shown, label, None, f"expected a mapping, got {type(entry).__name__}"))
        elif "import" in entry:
            found, problems = _load_import(entry, path, shown, label, check)
            tasks += found
            issues += problems
        else:
            task, problems = _load_entry(entry, path, shown, label, check)
            issues += problems
            if task is not None:
                tasks.append(task)
    return tasks, issues


def _load_entry(
    entry: dict[str, Any], path: Path, shown: str, label: str, check: bool
) -> tuple[Task | None, list[SpecIssue]]:
    name = entry["id"] if isinstance(entry.get("id"), str) and entry["id"] else label
    issues: list[SpecIssue] = []
    entry = dict(entry)
    for field in PATCH_FIELDS:
        value = entry.get(field)
        if isinstance(value, str) and is_patch_file_name(value):
            patch_file = path.parent / value.strip()
            entry[field] = None
            try:
                entry[field] = patch_file.read_text(encoding="utf-8")
            except FileNotFoundError:
                issues.append(
                    SpecIssue(shown, name, field, f"file {value.strip()!r} not found next to the spec")
                )
            except (OSError, UnicodeDecodeError) as error:
                issues.append(SpecIssue(shown, name, field, f"cannot read {value.strip()!r}: {error}"))
    repo = entry.get("repo")
    if isinstance(repo, dict) and isinstance(repo.get("path"), str):
        entry["repo"] = {**repo, "path": str((path.parent / repo["path"]).resolve())}
    try:
        task = Task.model_validate(entry)
    except ValidationError as error:
        return None, issues + [SpecIssue(shown, name, *explain_error(e)) for e in error.errors()]
    if check:
        issues += [SpecIssue(shown, name, field, message) for field, message in task_problems(task)]
    return (task if not issues else None), issues


def _load_import(
    entry: dict[str, Any], path: Path, shown: str, label: str, check: bool
) -> tuple[list[Task], list[SpecIssue]]:
    extra = sorted(set(entry) - {"import", *POINTER_OVERRIDES})
    if extra:
        return [], [
            SpecIssue(
                shown,
                label,
                extra[0],
                f"unknown field next to 'import' (allowed: {', '.join(POINTER_OVERRIDES)})",
            )
        ]
    try:
        overrides = ImportOverrides.model_validate({k: entry[k] for k in POINTER_OVERRIDES if k in entry})
    except ValidationError as error:
        return [], [SpecIssue(shown, label, *explain_error(e, ImportOverrides)) for e in error.errors()]
    try:
        source = ImportSource.model_validate(entry["import"])
    except ValidationError as error:
        issues = []
        for problem in error.errors():
            field, message = explain_error(problem, ImportSource)
            issues.append(SpecIssue(shown, label, f"import.{field}" if field else "import", message))
        return [], issues
    rows_file = (path.parent / source.path).resolve()
    if not rows_file.is_file():
        return [], [SpecIssue(shown, label, "import.path", f"file {str(rows_file)!r} not found")]
    try:
        tasks = read_rows(source.format, rows_file, tests=source.tests)
    except TasksError as error:
        return [], [SpecIssue(shown, label, "import", str(error))]
    if source.ids is not None:
        known = {task.id for task in tasks}
        missing = [task_id for task_id in source.ids if task_id not in known]
        if missing:
            return [], [SpecIssue(shown, label, "import.ids", f"not in {source.path}: {', '.join(missing)}")]
        tasks = [task for task in tasks if task.id in set(source.ids)]
    if source.limit is not None:
        tasks = tasks[: source.limit]
    tasks = [_override(task, overrides) for task in tasks]
    issues = []
    if check:
        for task in tasks:
            issues += [SpecIssue(shown, task.id, f, m) for f, m in task_problems(task)]
    return tasks, issues


def _override(task: Task, overrides: ImportOverrides) -> Task:
    update: dict[str, Any] = {}
    if overrides.environment is not None:
        given = overrides.environment
        parts = {part: getattr(given, part) for part in given.model_fields_set}
        update["environment"] = task.environment.model_copy(update=parts)
    if overrides.test_cmd is not None:
        update["test_cmd"] = overrides.test_cmd
    return task.model_copy(update=update) if update else task


def find_spec_files(folder: Path) -> list[Path]:
    """YAML files directly in `folder`, and every `task.yaml` below it (not descending into a
    task's own folder, whose repository may contain YAML files of its own)."""
    found = sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        if Path(root) != folder and "task.yaml" in files:
            found.append(Path(root) / "task.yaml")
            dirs.clear()
    return found


def load_specs(paths: Iterable[Path], *, check: bool = True) -> list[Task]:
    """Tasks from spec files or folders of them; raises SpecError listing every problem."""
    tasks: list[Task] = []
    issues: list[SpecIssue] = []
    origin: dict[str, str] = {}
    for given in paths:
        files = find_spec_files(given) if given.is_dir() else [given]
        if given.is_dir() and not files:
            issues.append(SpecIssue(display_path(given), None, None, "no *.yaml or */task.yaml spec found"))
        for file in files:
            found, problems = load_spec_file(file, check=check)
            issues += problems
            add_unique(found, display_path(file), tasks, origin, issues)
    if issues:
        raise SpecError(issues)
    return tasks
