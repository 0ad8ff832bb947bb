"""The row readers, by format name: what an `import:` entry of a spec and `load_tasks` dispatch on.

A new row format is a module with a `read_<format>(path, ...) -> list[Task]` and one line here (and its
name in `ImportSource.format`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from repofix.tasks.humanevalfix import read_humanevalfix
from repofix.tasks.model import Task
from repofix.tasks.swebench import read_swebench

# format -> reader(path, tests=...) ; `tests` says whether a row's tests are visible in the repository.
READERS: dict[str, Callable[..., list[Task]]] = {
    "swebench": lambda path, tests="hidden": read_swebench(path),
    "humanevalfix": read_humanevalfix,
}


def read_rows(name: str, path: Path, *, tests: str = "hidden") -> list[Task]:
    """The tasks of a rows file in a known format (raises SpecError / TasksError naming the problem)."""
    return READERS[name](path, tests=tests)


def sniff_format(path: Path) -> str:
    """The format of a rows file: HumanEvalFix JSONL is recognised by its fields, anything else is SWE-bench."""
    if path.suffix != ".jsonl":
        return "swebench"
    try:
        with path.open(encoding="utf-8") as stream:
            first = next((line for line in stream if line.strip()), "")
    except (OSError, UnicodeDecodeError):
        return "swebench"  # whose reader says why the file cannot be read
    try:
        row = json.loads(first) if first else None
    except json.JSONDecodeError:
        return "swebench"
    humanevalfix = isinstance(row, dict) and "buggy_solution" in row and "instance_id" not in row
    return "humanevalfix" if humanevalfix else "swebench"
