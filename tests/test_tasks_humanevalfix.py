"""HumanEvalFix rows -> tiny repositories, checked with real git and pytest: on all 164 rows the
buggy module fails its test and the reference patch makes it pass."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from repofix.difftext import unified_diff
from repofix.tasks import load_specs, materialize
from repofix.tasks.files import write_files
from repofix.tasks.humanevalfix import read_humanevalfix, row_to_task
from repofix.tasks.writer import write_task_dir
from tests.datasets import humanevalfix_rows, read_jsonl, synthetic_humanevalfix_rows, write_jsonl

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(params=["synthetic", "shared"])
def rows_file(request, tmp_path: Path) -> Path:
    """Rows the test writes itself (every machine), and the shared HumanEvalPack rows (CI)."""
    if request.param == "shared":
        return humanevalfix_rows()
    return write_jsonl(tmp_path / "rows.jsonl", synthetic_humanevalfix_rows())


def first_row(path: Path) -> dict:
    return read_jsonl(path)[0]


def run(cwd: Path, *command: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, input=stdin, capture_output=True, text=True)


def test_row_becomes_a_module_with_hidden_test_and_reference_patch():
    task = row_to_task(first_row(humanevalfix_rows()))
    assert task.id == "humanevalfix-python-0"
    assert set(task.repo.files) == {
        "pytest.ini",
        "humaneval/__init__.py",
        "humaneval/has_close_elements_0.py",
    }
    assert task.FAIL_TO_PASS == ["tests/test_has_close_elements_0.py::test_has_close_elements"]
    assert task.test_patch.startswith("diff --git a/tests/test_has_close_elements_0.py")
    assert "new file mode" in task.test_patch
    assert task.patch.startswith("diff --git a/humaneval/has_close_elements_0.py")
    assert "-                distance = elem - elem2" in task.patch
    assert "+                distance = abs(elem - elem2)" in task.patch
    assert task.extra["bug_type"] == "missing logic" and "humanevalfix" in task.tags
    assert "has_close_elements" in task.problem_statement and "missing logic" not in task.problem_statement


def test_synthetic_row_becomes_a_module_with_hidden_test_and_reference_patch():
    row = synthetic_humanevalfix_rows()[1]
    task = row_to_task(row)
    assert task.id == "humanevalfix-python-1"
    assert set(task.repo.files) == {"pytest.ini", "humaneval/__init__.py", "humaneval/first_even_1.py"}
    assert task.FAIL_TO_PASS == ["tests/test_first_even_1.py::test_first_even"]
    assert "new file mode" in task.test_patch and "check(first_even)" in task.test_patch
    assert "-        if n % 2 == 1:" in task.patch and "+        if n % 2 == 0:" in task.patch
    assert task.extra["bug_type"] == "operator misuse" and "operator misuse" not in task.problem_statement


def test_visible_tests_are_in_the_repository_and_protected(tmp_path: Path, rows_file: Path):
    row = first_row(rows_file)
    task = row_to_task(row, tests="visible")
    test_path = f"tests/test_{row['entry_point']}_0.py"
    assert task.test_patch is None and task.protected_files == [test_path] and test_path in task.repo.files
    repo = materialize(task, tmp_path / "repo")
    assert run(repo, sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider").returncode == 1
    assert run(repo, "git", "apply", "-", stdin=task.patch).returncode == 0
    done = run(repo, sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", task.FAIL_TO_PASS[0])
    assert done.returncode == 0, done.stdout


def test_written_spec_folders_load_back_identically(tmp_path: Path, rows_file: Path):
    tasks = read_humanevalfix(rows_file)[:5]
    for task in tasks:
        write_task_dir(task, tmp_path)
    assert (tmp_path / "humanevalfix-python-0" / "gold.patch").is_file()
    assert load_specs([tmp_path]) == tasks


def test_pointer_spec_converts_at_load_time(tmp_path: Path, rows_file: Path):
    spec = tmp_path / "set.yaml"
    spec.write_text(f"import:\n  format: humanevalfix\n  path: {rows_file}\n  ids: [humanevalfix-python-2]\n")
    [task] = load_specs([spec])
    assert task.id == "humanevalfix-python-2"
    spec.write_text(f"import:\n  format: humanevalfix\n  path: {rows_file}\n  limit: 2\n  tests: visible\n")
    assert [t.protected_files != [] for t in load_specs([spec])] == [True, True]
    spec.write_text("import:\n  format: humaneval\n  path: nowhere.jsonl\n")
    with pytest.raises(Exception, match=r"set.yaml: task '#1': import.format: input should be"):
        load_specs([spec])
    # The bundled pointer reads the shared data in place; the rows are not in the repository.
    assert "humanevalpack" in (ROOT / "task_specs" / "humanevalfix.yaml").read_text()


def outcomes(junit: Path) -> dict[str, str]:
    """test id -> passed / failed from a JUnit XML report."""
    result = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        test_id = case.get("classname", "").replace(".", "/") + ".py::" + case.get("name", "")
        failed = any(child.tag in ("failure", "error", "skipped") for child in case)
        result[test_id] = "failed" if failed else "passed"
    return result


@pytest.mark.slow
def test_all_rows_buggy_fails_and_reference_passes(tmp_path: Path, rows_file: Path):
    """All tiny repositories (164 for the shared rows) side by side in one tree (their file names are
    unique), so one pytest process per side checks them all: base + test patch fails, + reference passes."""
    tasks = read_humanevalfix(rows_file)
    assert len(tasks) == len(read_jsonl(rows_file)) and tasks
    tree = tmp_path / "all"
    for task in tasks:
        write_files(tree, task.repo.files)
    assert run(tree, "git", "init", "-q").returncode == 0
    for name, field in (("tests", "test_patch"), ("gold", "patch")):
        patch = "".join(getattr(task, field) for task in tasks)
        applied = run(tree, "git", "apply", "--whitespace=nowarn", "-", stdin=patch)
        assert applied.returncode == 0, applied.stderr
        pytest_run = run(
            tree, sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={name}.xml"
        )
        assert pytest_run.returncode in (0, 1), pytest_run.stdout[-2000:] + pytest_run.stderr[-2000:]
        results = outcomes(tree / f"{name}.xml")
        expected = "failed" if name == "tests" else "passed"
        wrong = [t.id for t in tasks if results.get(t.FAIL_TO_PASS[0]) != expected]
        assert not wrong, f"{name}: not {expected}: {wrong}"


lines = st.lists(st.sampled_from(["a", "b", "c", "", "  x = 1", "return y"]), max_size=12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(old=lines, new=lines, old_nl=st.booleans(), new_nl=st.booleans())
def test_unified_diff_applies_with_git(tmp_path_factory, old, new, old_nl, new_nl):
    """The reference patches are made by unified_diff; git must apply them exactly,
    including files without a final newline."""
    before = "\n".join(old) + ("\n" if old_nl and old else "")
    after = "\n".join(new) + ("\n" if new_nl and new else "")
    repo = tmp_path_factory.mktemp("diff")
    (repo / "m.py").write_text(before)
    diff = unified_diff("m.py", before, after)
    if before == after:
        assert diff == ""
        return
    applied = run(repo, "git", "apply", "--whitespace=nowarn", "-", stdin=diff)
    assert applied.returncode == 0, applied.stderr + diff
    assert (repo / "m.py").read_text() == after
