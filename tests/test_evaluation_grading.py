"""Grading one task as SWE-bench does, on tiny inline tasks in real bwrap sandboxes."""

from __future__ import annotations

import difflib
import warnings
from pathlib import Path

import pytest

from repofix.evaluation.candidates import GoldSource
from repofix.evaluation.environments import Environments
from repofix.evaluation.grading import grade
from repofix.evaluation.model import Candidate, Status
from repofix.evaluation.patching import PatchError, apply_patch, restore
from repofix.tasks import Task
from tests.conftest import TEST_LIMITS, require_backend

pytestmark = pytest.mark.bwrap

BUGGY = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
FIXED = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
VISIBLE_TESTS = (
    "import pytest\n\nfrom mathx import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n\n\n"
    "@pytest.mark.skip(reason='not on this platform')\ndef test_skipped():\n    assert False\n"
)
HIDDEN_TESTS = VISIBLE_TESTS.replace("from mathx import mul", "from mathx import add, mul") + (
    "\n\ndef test_add():\n    assert add(2, 3) == 5\n"
)


def diff(path: str, old: str | None, new: str | None) -> str:
    """A unified diff as git writes it (None = the file does not exist on that side)."""
    lines = difflib.unified_diff(
        (old or "").splitlines(True),
        (new or "").splitlines(True),
        "/dev/null" if old is None else f"a/{path}",
        "/dev/null" if new is None else f"b/{path}",
    )
    return f"diff --git a/{path} b/{path}\n" + "".join(lines)


def make_task(**changes) -> Task:
    fields = dict(
        id="mathx-add",
        problem_statement="add() subtracts",
        repo={
            "files": {
                "pytest.ini": "[pytest]\npythonpath = .\n",
                "mathx.py": BUGGY,
                "tests/test_mathx.py": VISIBLE_TESTS,
            }
        },
        FAIL_TO_PASS=["tests/test_mathx.py::test_add"],
        PASS_TO_PASS=["tests/test_mathx.py::test_mul", "tests/test_mathx.py::test_skipped"],
        test_patch=diff("tests/test_mathx.py", VISIBLE_TESTS, HIDDEN_TESTS),
        patch=diff("mathx.py", BUGGY, FIXED),
    )
    fields.update(changes)
    return Task.model_validate(fields)


@pytest.fixture
def environments(tmp_path: Path) -> Environments:
    require_backend("bwrap")
    warnings.simplefilter("ignore")
    return Environments("bwrap", TEST_LIMITS, tmp_path / "logs")


def run(task: Task, patch: str, environments: Environments, tmp_path: Path, timeout: float = 60):
    return grade(task, Candidate(patch, "test"), environments, timeout=timeout, log_dir=tmp_path / "task")


def test_gold_resolves_with_skipped_pass_to_pass_and_reports_swebench_fields(environments, tmp_path):
    task = make_task()
    result = run(task, task.patch, environments, tmp_path)
    assert result.status is Status.RESOLVED, result.detail
    report = result.swebench_report()["mathx-add"]
    assert report["patch_is_None"] is False and report["patch_exists"] is True
    assert report["patch_successfully_applied"] is True and report["resolved"] is True
    assert report["tests_status"]["FAIL_TO_PASS"] == {
        "success": ["tests/test_mathx.py::test_add"],
        "failure": [],
    }
    # The skipped PASS_TO_PASS test counts neither way, as in SWE-bench.
    assert report["tests_status"]["PASS_TO_PASS"] == {
        "success": ["tests/test_mathx.py::test_mul"],
        "failure": [],
    }
    assert Path(result.log_path).is_file()


def test_empty_patch_is_graded_and_unresolved(environments, tmp_path):
    result = run(make_task(), "", environments, tmp_path)
    assert result.status is Status.UNRESOLVED
    assert result.patch_is_None and not result.patch_exists and not result.patch_successfully_applied
    assert result.tests_status.FAIL_TO_PASS["failure"] == ["tests/test_mathx.py::test_add"]


ADD, MUL = "tests/test_mathx.py::test_add", "tests/test_mathx.py::test_mul"


@pytest.mark.parametrize(
    "candidate, fail_to_pass, pass_to_pass",
    [
        pytest.param(
            FIXED.replace("return a * b", "return a * b + 1"),
            {"success": [ADD], "failure": []},
            {"success": [], "failure": [MUL]},
            id="fix-that-breaks-a-pass-to-pass-test",
        ),
        # The candidate makes the target test skip itself instead of passing.
        pytest.param(
            BUGGY.replace("    return a - b", "    import pytest\n    pytest.skip('later')"),
            {"success": [], "failure": [ADD]},
            {"success": [MUL], "failure": []},
            id="fail-to-pass-test-skips-itself",
        ),
    ],
)
def test_candidate_is_unresolved(candidate, fail_to_pass, pass_to_pass, environments, tmp_path):
    result = run(make_task(), diff("mathx.py", BUGGY, candidate), environments, tmp_path)
    assert result.status is Status.UNRESOLVED
    got_fail_to_pass, got_pass_to_pass = result.tests_status.FAIL_TO_PASS, result.tests_status.PASS_TO_PASS
    assert got_fail_to_pass == fail_to_pass
    assert got_pass_to_pass == pass_to_pass


def test_candidate_that_edits_the_tests_is_graded_on_the_original_tests(environments, tmp_path):
    task = make_task(protected_files=["pytest.ini"])
    # No fix; instead the candidate rewrites the tests the test patch touches to expect the bug,
    # and weakens a protected file. Both are put back before the test patch applies.
    lenient = HIDDEN_TESTS.replace("add(2, 3) == 5", "add(2, 3) == -1")
    cheat = diff("tests/test_mathx.py", VISIBLE_TESTS, lenient) + diff(
        "pytest.ini", "[pytest]\npythonpath = .\n", "[pytest]\npythonpath = .\naddopts = -p no:python\n"
    )
    result = run(task, cheat, environments, tmp_path)
    assert result.patch_successfully_applied
    assert result.status is Status.UNRESOLVED
    assert result.tests_status.FAIL_TO_PASS["failure"] == ["tests/test_mathx.py::test_add"]
    # The same rewrite plus the real fix resolves: the candidate's test edits are simply dropped.
    result = run(task, cheat + task.patch, environments, tmp_path)
    assert result.status is Status.RESOLVED, result.detail


def test_candidate_creating_a_hidden_test_file_does_not_shadow_it(environments, tmp_path):
    hidden = "from mathx import add\n\n\ndef test_add_hidden():\n    assert add(1, 1) == 2\n"
    task = make_task(
        test_patch=diff("tests/test_hidden.py", None, hidden),
        FAIL_TO_PASS=["tests/test_hidden.py::test_add_hidden"],
    )
    fake = "def test_add_hidden():\n    pass\n"
    result = run(task, diff("tests/test_hidden.py", None, fake), environments, tmp_path)
    assert result.status is Status.UNRESOLVED, result.detail


def test_patch_that_does_not_apply_is_an_infrastructure_status(environments, tmp_path):
    stale = diff("mathx.py", "def add(x, y):\n    return x - y\n", "def add(x, y):\n    return x + y\n")
    result = run(make_task(), stale, environments, tmp_path)
    assert result.status is Status.PATCH_FAILED and result.status.infra
    assert not result.patch_successfully_applied and result.patch_exists
    assert "does not apply" in result.detail


def test_test_run_timeout_is_an_infrastructure_status(environments, tmp_path):
    slow = HIDDEN_TESTS + "\n\ndef test_slow():\n    import time\n    time.sleep(120)\n"
    task = make_task(test_patch=diff("tests/test_mathx.py", VISIBLE_TESTS, slow))
    result = run(task, task.patch, environments, tmp_path, timeout=5)
    assert result.status is Status.TIMEOUT and result.status.infra


def test_failing_setup_is_an_environment_failure(environments, tmp_path):
    task = make_task(environment={"setup": ["echo preparing", "exit 3"]})
    result = run(task, task.patch, environments, tmp_path)
    assert result.status is Status.ENV_FAILED and result.status.infra
    assert "exit 3" in result.detail and "exit 3" in Path(result.log_path).read_text()


def test_gold_without_reference_patch_is_an_error(environments, tmp_path):
    task = make_task(patch=None)
    result = grade(task, GoldSource().candidate(task, None), environments, log_dir=tmp_path)
    assert result.status is Status.ERROR and "reference patch" in result.detail


def test_apply_patch_falls_back_to_fuzz_and_restore_puts_files_back(tmp_path):
    base, tree = tmp_path / "base", tmp_path / "tree"
    for root in (base, tree):
        (root / "pkg").mkdir(parents=True)
        (root / "pkg" / "m.py").write_text("a = 1\nb = 2\nc = 3\nd = 4\n")
    (tree / "pkg" / "m.py").write_text("a = 1\nb = 2 # drifted\nc = 3\nd = 4\n")
    patch = diff("pkg/m.py", "a = 1\nb = 2\nc = 3\nd = 4\n", "a = 1\nb = 2\nc = 30\nd = 4\n")
    assert apply_patch(tree, patch) == "patch --fuzz=5"
    assert (tree / "pkg" / "m.py").read_text() == "a = 1\nb = 2 # drifted\nc = 30\nd = 4\n"
    with pytest.raises(PatchError, match="git apply"):
        apply_patch(tree, diff("pkg/other.py", "x = 1\n", "x = 2\n"))
    (tree / "pkg" / "new.py").write_text("extra\n")
    assert sorted(restore(tree, base, ["pkg/m.py", "pkg/new.py", "pkg/absent.py"])) == [
        "pkg/m.py",
        "pkg/new.py",
    ]
    assert (tree / "pkg" / "m.py").read_text() == (base / "pkg" / "m.py").read_text()
    assert not (tree / "pkg" / "new.py").exists()


def git(cwd: Path, *args: str) -> str:
    import subprocess

    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "PATH": "/usr/bin:/bin",
    }
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


def test_github_task_is_graded_from_a_mirror_folder(environments, tmp_path):
    clone = tmp_path / "mirror" / "acme" / "mathx"
    clone.mkdir(parents=True)
    for name, content in make_task().repo.files.items():
        (clone / name).parent.mkdir(parents=True, exist_ok=True)
        (clone / name).write_text(content)
    git(clone, "init", "-q", "-b", "main")
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", "base")
    base = git(clone, "rev-parse", "HEAD")
    (clone / "mathx.py").write_text("later history the task must not see\n")
    git(clone, "commit", "-q", "-am", "later")
    task = make_task(repo={"github": "acme/mathx"}, base_commit=base)
    result = grade(
        task, Candidate(task.patch, "test"), environments, log_dir=tmp_path / "t", mirror=tmp_path / "mirror"
    )
    assert result.status is Status.RESOLVED, result.detail
    missing = grade(
        task,
        Candidate(task.patch, "test"),
        environments,
        log_dir=tmp_path / "t",
        mirror=tmp_path / "empty-mirror",
    )
    assert missing.status is Status.ERROR and "no clone of acme/mathx" in missing.detail
