"""Writing Tasks as spec folders: `<dir>/<id>/task.yaml` with `gold.patch` and `tests.patch`
next to it, the same layout as the bundled `task_specs/swe/<name>/`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from repofix.atomic import write_atomic
from repofix.tasks.model import DEFAULT_TEST_CMD, Task

PATCH_FILES = {"patch": "gold.patch", "test_patch": "tests.patch"}


class _Dumper(yaml.SafeDumper):
    pass


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    # Multi-line text (statements, inline files) as literal blocks, readable and diffable.
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def folder_name(task_id: str) -> str:
    return task_id.replace("/", "__")


def task_to_spec(task: Task) -> dict[str, Any]:
    """The task as a spec mapping, patches left inline; defaults left out for brevity."""
    spec = task.model_dump(exclude_none=True, exclude_defaults=True)
    spec["id"] = task.id
    spec["repo"] = task.repo.model_dump(exclude_none=True)
    spec.setdefault("base_commit", task.base_commit)
    spec["problem_statement"] = task.problem_statement
    if task.test_cmd != DEFAULT_TEST_CMD:
        spec["test_cmd"] = task.test_cmd
    order = list(Task.model_fields)
    return {key: spec[key] for key in sorted(spec, key=order.index)}


def write_task_dir(task: Task, root: Path) -> Path:
    """Write `root/<id>/task.yaml` (+ gold.patch, tests.patch); returns the task.yaml path."""
    folder = root / folder_name(task.id)
    spec = task_to_spec(task)
    for field, name in PATCH_FILES.items():
        text = getattr(task, field)
        if text:
            write_atomic(folder / name, text)
            spec[field] = name
    text = yaml.dump(spec, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    return write_atomic(folder / "task.yaml", text)
