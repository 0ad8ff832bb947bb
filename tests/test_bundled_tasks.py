"""The bundled SWE-style tasks are valid: each FAIL_TO_PASS test fails before the reference
patch and passes after it, and each PASS_TO_PASS test passes throughout (real git, real pytest)."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

CHECKER_PATH = Path(__file__).resolve().parents[1] / "task_specs" / "swe" / "check_tasks.py"


def _load_checker():
    spec = importlib.util.spec_from_file_location("bundled_swe_check_tasks", CHECKER_PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look the module up while building classes
    spec.loader.exec_module(module)
    return module


check_tasks = _load_checker()
TASK_DIRS = check_tasks.task_dirs()


def test_at_least_twelve_tasks_with_bugs_and_features():
    kinds = [check_tasks.load_spec(d / "task.yaml")["tags"][0] for d in TASK_DIRS]
    assert len(TASK_DIRS) >= 12
    assert {"bug", "feature"} <= set(kinds)


@pytest.mark.parametrize("task_dir", TASK_DIRS, ids=[d.name for d in TASK_DIRS])
def test_task_is_valid(task_dir):
    report = check_tasks.check_task(task_dir)
    assert report.ok, "\n".join(report.problems)


def test_spec_reader_matches_yaml_on_every_task():
    yaml = pytest.importorskip("yaml")
    for d in TASK_DIRS:
        path = d / "task.yaml"
        assert check_tasks.parse_spec(path) == yaml.safe_load(path.read_text(encoding="utf-8")), path


def test_checker_reports_a_mislabelled_test(tmp_path):
    """A PASS_TO_PASS test listed as FAIL_TO_PASS is caught, so a green run means something."""
    source = check_tasks.TASKS_DIR / "ttlcache-expiry-boundary"
    task = tmp_path / source.name
    shutil.copytree(source, task, ignore=shutil.ignore_patterns("__pycache__"))
    spec = (task / "task.yaml").read_text(encoding="utf-8")
    moved = check_tasks.load_spec(task / "task.yaml")["PASS_TO_PASS"][0]
    spec = spec.replace(f'  - "{moved}"\n', "").replace("FAIL_TO_PASS:\n", f'FAIL_TO_PASS:\n  - "{moved}"\n')
    (task / "task.yaml").write_text(spec, encoding="utf-8")
    report = check_tasks.check_task(task)
    assert f"base+tests: FAIL_TO_PASS passes already: {moved}" in report.problems
