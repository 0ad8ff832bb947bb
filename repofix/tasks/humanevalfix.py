"""HumanEvalFix rows (HumanEvalPack, Python) -> tiny repositories, one Task each.

Each task's repository (``repo.files``) is::

    pytest.ini                       pythonpath = . (so plain `pytest` finds the package)
    humaneval/__init__.py
    humaneval/<entry_point>_<n>.py   prompt + buggy solution (n from task_id "Python/<n>")

and its test is ``tests/test_<entry_point>_<n>.py``, which imports the module and runs the row's
``check(<entry_point>)`` as the single test ``test_<entry_point>`` (FAIL_TO_PASS).

``tests="hidden"`` (default, like SWE-bench): the test file arrives only through ``test_patch``
when grading; the agent sees the module and the statement. ``tests="visible"`` (HumanEvalFix's
"fix tests" variant, where the model is shown the tests): the test file is part of the
repository and listed in ``protected_files``, and there is no test patch.
The reference ``patch`` turns the buggy solution into the canonical one.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

from repofix.difftext import unified_diff
from repofix.tasks.errors import display_path, read_task_file
from repofix.tasks.model import Task, TasksError

Visibility = Literal["hidden", "visible"]
_REQUIRED = ("task_id", "prompt", "buggy_solution", "canonical_solution", "test", "entry_point")
_TRAILING_CALL = re.compile(r"\n\s*check\(\s*\w+\s*\)\s*$")
PYTEST_INI = "[pytest]\npythonpath = .\n"
CHECK_SECONDS = 5  # canonical solutions finish in well under 0.2 s each


def names(row: dict[str, Any]) -> tuple[str, str, str]:
    """(task id, module path, test file path) for a row."""
    number = str(row["task_id"]).rsplit("/", 1)[-1]
    stem = f"{row['entry_point']}_{number}"
    return f"humanevalfix-python-{number}", f"humaneval/{stem}.py", f"tests/test_{stem}.py"


def pytest_file(row: dict[str, Any], module: str) -> str:
    """A pytest file running the row's `check(entry_point)` as one test."""
    entry = row["entry_point"]
    dotted = module.removesuffix(".py").replace("/", ".")
    check_code = _TRAILING_CALL.sub("\n", row["test"]).strip("\n")
    return (
        f'"""HumanEvalFix {row["task_id"]}: the row\'s check() as one pytest test."""\n\n'
        "# The row's check may use the module's helpers and imports, as in the original harness.\n"
        f"from {dotted} import *  # noqa: F403\n"
        f"from {dotted} import {entry}\n\n"
        "import signal\n\n\n"
        f"{check_code}\n\n\n"
        "def _endless(signum, frame):\n"
        f'    raise TimeoutError("check() ran longer than {CHECK_SECONDS} s: an endless loop?")\n\n\n'
        f"def test_{entry}():\n"
        "    # A buggy solution may loop forever: fail this test rather than hang the whole run.\n"
        '    if hasattr(signal, "SIGALRM"):\n'
        "        signal.signal(signal.SIGALRM, _endless)\n"
        f"        signal.alarm({CHECK_SECONDS})\n"
        "    try:\n"
        f"        check({entry})\n"
        "    finally:\n"
        '        if hasattr(signal, "SIGALRM"):\n'
        "            signal.alarm(0)\n"
    )


def row_to_task(row: dict[str, Any], *, tests: Visibility = "hidden") -> Task:
    missing = [field for field in _REQUIRED if not isinstance(row.get(field), str)]
    if missing:
        raise TasksError(f"HumanEvalFix row {row.get('task_id', '?')!r}: missing {', '.join(missing)}")
    if tests not in ("hidden", "visible"):
        raise TasksError(f"tests must be 'hidden' or 'visible', not {tests!r}")
    task_id, module, test_path = names(row)
    entry = row["entry_point"]
    buggy = row["prompt"] + row["buggy_solution"]
    fixed = row["prompt"] + row["canonical_solution"]
    tests_text = pytest_file(row, module)
    files = {"pytest.ini": PYTEST_INI, "humaneval/__init__.py": "", module: buggy}
    statement = (
        f"Fix bugs in `{entry}` (in `{module}`). "
        f"It must behave as its docstring describes; keep its signature.\n"
    )
    if tests == "visible":
        files[test_path] = tests_text
        statement += f"The test in `{test_path}` shows the expected behaviour; do not change it.\n"
    return Task.model_validate(
        {
            "id": task_id,
            "repo": {"files": files},
            "problem_statement": statement,
            "test_cmd": "python -m pytest -q",
            "FAIL_TO_PASS": [f"{test_path}::test_{entry}"],
            "PASS_TO_PASS": [],
            "test_patch": unified_diff(test_path, None, tests_text) if tests == "hidden" else None,
            "patch": unified_diff(module, buggy, fixed),
            "protected_files": [test_path] if tests == "visible" else [],
            "time_limit": 300,
            "tags": ["humanevalfix", f"tests-{tests}", *([row["bug_type"]] if row.get("bug_type") else [])],
            "extra": {
                key: row[key]
                for key in ("task_id", "entry_point", "bug_type", "failure_symptoms")
                if key in row
            },
        }
    )


def read_humanevalfix(path: Path, *, tests: Visibility = "hidden") -> list[Task]:
    """All rows of a HumanEvalPack JSONL file as Tasks."""
    shown = display_path(path)
    lines = read_task_file(path).splitlines()
    tasks = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise TasksError(f"{shown}:{number}: not valid JSON: {error.msg}") from error
        try:
            tasks.append(row_to_task(row, tests=tests))
        except TasksError as error:
            raise TasksError(f"{shown}:{number}: {error}") from error
    return tasks
