"""One entry point for every task source: YAML specs (files or folders), SWE-bench rows
(.jsonl / .json / .parquet) and HumanEvalFix rows (.jsonl, recognised by their fields)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from repofix.tasks.checks import task_problems
from repofix.tasks.errors import SpecError, SpecIssue, add_unique, display_path
from repofix.tasks.model import Task, TasksError
from repofix.tasks.readers import read_rows, sniff_format
from repofix.tasks.specs import load_specs

ROW_SUFFIXES = (".jsonl", ".json", ".parquet")


def load_tasks(paths: Iterable[Path], *, check: bool = True) -> list[Task]:
    """Tasks from any mix of sources, in order; raises SpecError / TasksError with every
    problem located by file, task and field. Task ids must be unique across all sources."""
    tasks: list[Task] = []
    issues: list[SpecIssue] = []
    origin: dict[str, str] = {}
    for path in paths:
        if not path.exists():
            raise TasksError(f"{display_path(path)}: no such file or folder")
        try:
            if path.is_file() and path.suffix in ROW_SUFFIXES:
                found = read_rows(sniff_format(path), path)
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
