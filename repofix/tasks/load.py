"""One entry point for every task source: YAML specs (files or folders), SWE-bench rows
(.jsonl / .json / .parquet) and HumanEvalFix rows (.jsonl, recognised by their fields)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from repofix.tasks.model import Task, TasksError
from repofix.tasks.specs import SpecError, SpecIssue, add_unique, display_path, load_specs

ROW_SUFFIXES = (".jsonl", ".json", ".parquet")


def _is_humanevalfix(path: Path) -> bool:
    if path.suffix != ".jsonl":
        return False
    with path.open(encoding="utf-8") as stream:
        for line in stream:
            if line.strip():
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    return False
                return isinstance(row, dict) and "buggy_solution" in row and "instance_id" not in row
    return False


def load_tasks(paths: Iterable[Path], *, check: bool = True) -> list[Task]:
    """Tasks from any mix of sources, in order; raises SpecError / TasksError with every
    problem located by file, task and field. Task ids must be unique across all sources."""
    from repofix.tasks.checks import task_problems
    from repofix.tasks.humanevalfix import read_humanevalfix
    from repofix.tasks.swebench import read_swebench

    tasks: list[Task] = []
    issues: list[SpecIssue] = []
    origin: dict[str, str] = {}
    for path in paths:
        if not path.exists():
            raise TasksError(f"{display_path(path)}: no such file or folder")
        try:
            if path.is_file() and path.suffix in ROW_SUFFIXES:
                found = read_humanevalfix(path) if _is_humanevalfix(path) else read_swebench(path)
                if check:
                    for task in found:
                        issues += [
                            SpecIssue(display_path(path), task.id, f, m) for f, m in task_problems(task)
                        ]
            else:
                found = load_specs([path], check=check)
        except SpecError as error:
            issues += error.issues
            continue
        add_unique(found, display_path(path), tasks, origin, issues)
    if issues:
        raise SpecError(issues)
    return tasks
