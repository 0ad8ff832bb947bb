"""Task rows for the importer and grader tests: the shared third-party rows, and small synthetic rows
of the same shape that the tests write themselves.

The shared rows (SWE-bench Lite, HumanEvalFix) live in `../shared/data/` beside the checkout, never in
the repository. A user's clone has no such folder, so tests that need them skip with the reason; CI has
them, and there a missing file is a failure, not a skip. The synthetic rows keep the importers, exporters
and graders exercised on every machine.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
SWEBENCH_SPLITS = ("SWE-bench_Lite_dev", "SWE-bench_Lite_test")
HUMANEVALFIX_ROWS = "humanevalfix/humanevalpack_python.jsonl"


def shared_file(relative: str) -> Path:
    """`../shared/data/<relative>`, or skip (locally) / fail (in CI, where the data must be present)."""
    path = SHARED_DATA / relative
    if path.is_file():
        return path
    reason = f"needs the shared third-party rows at {path} (beside the checkout, as in CI); not present here"
    if os.environ.get("CI"):
        pytest.fail(f"CI must provide the shared data: {reason}")
    pytest.skip(reason)


def swebench_split(name: str) -> Path:
    return shared_file(f"swebench/{name}.jsonl")


def humanevalfix_rows() -> Path:
    return shared_file(HUMANEVALFIX_ROWS)


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def synthetic_swebench_rows(count: int = 3) -> list[dict]:
    """Rows with every field of the newer SWE-bench export, lists JSON-encoded as the dataset has them,
    and a test id with spaces and brackets the way SWE-bench's log parser cuts them."""
    rows = []
    for n in range(count):
        rows.append(
            {
                "repo": "octo/calc",
                "instance_id": f"octo__calc-{100 + n}",
                "base_commit": f"{n:040x}",
                "patch": f"diff --git a/calc/ops.py b/calc/ops.py\n--- a/calc/ops.py\n+++ b/calc/ops.py\n"
                f"@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b + {n}\n+    return a + b + {n}\n",
                "test_patch": "diff --git a/tests/test_ops.py b/tests/test_ops.py\n--- a/tests/test_ops.py\n"
                "+++ b/tests/test_ops.py\n@@ -1,2 +1,4 @@\n from calc.ops import add\n"
                " \n+def test_add():\n+    assert add(1, 2) == 3\n",
                "problem_statement": f"add() subtracts (case {n})\n\nSteps: call add(1, 2).",
                "hints_text": "" if n else "Look at calc/ops.py",
                "created_at": f"2023-0{n + 1}-02T10:00:00Z",
                "version": f"1.{n}",
                "FAIL_TO_PASS": json.dumps(["tests/test_ops.py::test_add"]),
                "PASS_TO_PASS": json.dumps(
                    ["tests/test_ops.py::test_sub", 'tests/test_ops.py::test_fmt[a-b("x",']
                ),
                "environment_setup_commit": f"{n + 7:040x}",
                "image": f"swebench/sweb.eval.x86_64.octo_1776_calc-{100 + n}:latest",
                "eval_script": "#!/bin/bash\nset -uxo pipefail\npytest -rA tests/test_ops.py\n",
                "log_parser": "parse_log_pytest",
                "eval_type": "pass_and_fail",
            }
        )
    return rows


_HUMANEVALFIX = [
    # (entry point, prompt, buggy body, canonical body, check body, bug type)
    (
        "add_one",
        'def add_one(x: int) -> int:\n    """Return x plus one."""\n',
        "    return x + 2\n",
        "    return x + 1\n",
        "    assert candidate(1) == 2\n    assert candidate(-1) == 0\n",
        "value misuse",
    ),
    (
        "first_even",
        'def first_even(numbers: list) -> int:\n    """The first even number, or -1."""\n',
        "    for n in numbers:\n        if n % 2 == 1:\n            return n\n    return -1\n",
        "    for n in numbers:\n        if n % 2 == 0:\n            return n\n    return -1\n",
        "    assert candidate([1, 4, 6]) == 4\n    assert candidate([1, 3]) == -1\n",
        "operator misuse",
    ),
    (
        "count_upper",
        'def count_upper(text: str) -> int:\n    """How many upper-case letters."""\n',
        "    return sum(1 for c in text[1:] if c.isupper())\n",
        "    return sum(1 for c in text if c.isupper())\n",
        "    assert candidate('ABc') == 2\n    assert candidate('') == 0\n",
        "missing logic",
    ),
]


def synthetic_humanevalfix_rows(count: int = 3) -> list[dict]:
    """Rows in HumanEvalPack's shape: the buggy solution fails `check`, the canonical one passes it.
    Past the three templates the rows repeat them under new numbers (file names stay unique)."""
    rows = []
    for n in range(count):
        entry, prompt, buggy, canonical, check, bug_type = _HUMANEVALFIX[n % len(_HUMANEVALFIX)]
        rows.append(
            {
                "task_id": f"Python/{n}",
                "prompt": prompt,
                "buggy_solution": buggy,
                "canonical_solution": canonical,
                "test": f"\n\ndef check(candidate):\n{check}\n\ncheck({entry})",
                "entry_point": entry,
                "bug_type": bug_type,
                "failure_symptoms": "incorrect output",
            }
        )
    return rows


def humanevalfix_pointer(folder: Path) -> Path:
    """The bundled HumanEvalFix pointer spec when the shared rows are here; otherwise (a user's clone) a
    pointer of the same form to ten synthetic rows, so the eval tests still run end to end."""
    bundled = Path(__file__).resolve().parents[1] / "task_specs" / "humanevalfix.yaml"
    if (SHARED_DATA / HUMANEVALFIX_ROWS).is_file():
        return bundled
    if os.environ.get("CI"):
        humanevalfix_rows()  # fails with the reason
    rows = write_jsonl(folder / "humanevalfix.jsonl", synthetic_humanevalfix_rows(10))
    spec = folder / "humanevalfix.yaml"
    spec.write_text(f"import:\n  format: humanevalfix\n  path: {rows}\n  tests: hidden\n", encoding="utf-8")
    return spec
