"""SWE-bench rows graded as SWE-bench grades them: the row's eval_script command with -rA, the log
parsed with the row's log_parser, SWE-bench's rules; environments that cannot run a task are
env_failed. Synthetic rows in real bwrap sandboxes."""

from __future__ import annotations

import difflib
import json
import subprocess
import warnings
from pathlib import Path

import pytest

from repofix.evaluation.environments import Environments
from repofix.evaluation.grading import grade
from repofix.evaluation.model import Candidate, Status
from repofix.evaluation.swebench_verdict import eval_script_command, test_command
from repofix.tasks import Task
from repofix.tasks.swebench import row_to_task
from tests.conftest import TEST_LIMITS, require_backend

BUGGY = "def add(a, b):\n    return a - b\n\n\ndef name(x):\n    return str(x)\n"
FIXED = BUGGY.replace("a - b", "a + b")
VISIBLE = (
    "import pytest\n\nfrom calc.ops import name\n\n\n"
    "@pytest.mark.parametrize('x', ['create_app2(\"foo\", \"bar\")', 'plain'])\n"
    "def test_name(x):\n    assert name(x) == x\n\n\n"
    "@pytest.mark.skip(reason='not here')\ndef test_skipped():\n    pass\n"
)
HIDDEN = (
    VISIBLE.replace("import name", "import add, name") + "\n\ndef test_add():\n    assert add(2, 3) == 5\n"
)
FILE = "tests/test_ops.py"
# SWE-bench's parser cut this id at its first space; the dataset lists it that way.
CUT_ID = f'{FILE}::test_name[create_app2("foo",'


def diff(path: str, old: str, new: str) -> str:
    lines = difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"a/{path}", f"b/{path}")
    return f"diff --git a/{path} b/{path}\n" + "".join(lines)


def swebench_task(files: dict[str, str] | None = None, **row_changes) -> Task:
    row = {
        "repo": "octo/calc",
        "instance_id": "octo__calc-1",
        "base_commit": None,
        "problem_statement": "add() subtracts",
        "hints_text": "",
        "version": "1.0",
        "patch": diff("calc/ops.py", BUGGY, FIXED),
        "test_patch": diff(FILE, VISIBLE, HIDDEN),
        "FAIL_TO_PASS": json.dumps([f"{FILE}::test_add"]),
        "PASS_TO_PASS": json.dumps([CUT_ID, f"{FILE}::test_name[plain]"]),
        "eval_script": "#!/bin/bash\nset -uxo pipefail\ngit status\n: '>>>>> Start Test Output'\n"
        f"python -m pytest {FILE}\n: '>>>>> End Test Output'\ngit checkout {FILE}\n",
        "log_parser": "parse_log_pytest",
        "eval_type": "pass_and_fail",
    }
    row.update(row_changes)
    task = row_to_task({k: v for k, v in row.items() if v is not None})
    tree = {
        "pytest.ini": "[pytest]\npythonpath = .\n",
        "calc/__init__.py": "",
        "calc/ops.py": BUGGY,
        FILE: VISIBLE,
    }
    tree.update(files or {})
    return Task.model_validate({**task.model_dump(), "repo": {"files": tree}})


def test_the_row_eval_script_command_runs_with_rA():
    task = swebench_task()
    assert eval_script_command(task.extra["eval_script"]) == f"python -m pytest {FILE}"
    assert test_command(task) == f"python -m pytest {FILE} -rA"
    # A task's own test command wins; -rA is added once.
    own = Task.model_validate({**task.model_dump(), "test_cmd": "pytest -rA tests"})
    assert test_command(own) == "pytest -rA tests"
    assert eval_script_command("pytest -rA tests/x.py\n") is None  # no markers: nothing guessed


@pytest.fixture
def environments(tmp_path: Path) -> Environments:
    require_backend("bwrap")
    warnings.simplefilter("ignore")
    return Environments("bwrap", TEST_LIMITS, tmp_path / "logs")


def run(task: Task, patch: str, environments: Environments, tmp_path: Path):
    return grade(task, Candidate(patch, "test"), environments, timeout=120, log_dir=tmp_path / "task")


@pytest.mark.bwrap
def test_gold_resolves_with_ids_cut_at_their_first_space(environments, tmp_path):
    task = swebench_task()
    result = run(task, task.patch, environments, tmp_path)
    assert result.status is Status.RESOLVED, result.detail
    assert result.grader and "SWE-bench log grading" in result.detail
    passing = result.tests_status.PASS_TO_PASS
    assert passing["success"] == task.PASS_TO_PASS and passing["failure"] == []
    assert result.disagreements == []
    log = Path(result.log_path).read_text()
    assert f'PASSED {FILE}::test_name[create_app2("foo", "bar")]' in log


@pytest.mark.bwrap
def test_empty_patch_is_unresolved_not_env_failed(environments, tmp_path):
    result = run(swebench_task(), "", environments, tmp_path)
    assert result.status is Status.UNRESOLVED, result.detail
    targets = result.tests_status.FAIL_TO_PASS
    assert targets["success"] == [] and targets["failure"] == [f"{FILE}::test_add"]


@pytest.mark.bwrap
def test_skipped_fail_to_pass_is_a_failure(environments, tmp_path):
    skipping = BUGGY.replace("    return a - b", "    import pytest\n    pytest.skip('later')")
    result = run(swebench_task(), diff("calc/ops.py", BUGGY, skipping), environments, tmp_path)
    assert result.status is Status.UNRESOLVED, result.detail
    assert result.tests_status.FAIL_TO_PASS["failure"] == [f"{FILE}::test_add"]


@pytest.mark.bwrap
def test_candidate_breaking_the_package_is_unresolved_not_env_failed(environments, tmp_path):
    broken = "import no_such_module_anywhere\n" + FIXED
    result = run(swebench_task(), diff("calc/ops.py", BUGGY, broken), environments, tmp_path)
    assert result.status is Status.UNRESOLVED, result.detail


@pytest.mark.bwrap
@pytest.mark.parametrize("mode", ["gold", "empty"])
def test_package_that_does_not_import_is_env_failed(mode, environments, tmp_path):
    task = swebench_task({"calc/__init__.py": "import no_such_dependency_installed\n"})
    result = run(task, task.patch if mode == "gold" else "", environments, tmp_path)
    assert result.status is Status.ENV_FAILED, result.detail
    assert "does not import" in result.detail and "no_such_dependency_installed" in result.detail


@pytest.mark.bwrap
def test_pass_to_pass_failing_at_base_is_env_failed(environments, tmp_path):
    # The task says test_name[plain] passes at base; here it cannot (a missing data file, say).
    visible = VISIBLE.replace("assert name(x) == x", "assert name(x) == x and x != 'plain'")
    hidden = HIDDEN.replace("assert name(x) == x", "assert name(x) == x and x != 'plain'")
    task = swebench_task({FILE: visible}, test_patch=diff(FILE, visible, hidden))
    result = run(task, task.patch, environments, tmp_path)
    assert result.status is Status.ENV_FAILED, result.detail
    assert "PASS_TO_PASS" in result.detail and "test_name[plain]" in result.detail


@pytest.mark.bwrap
def test_log_and_junit_disagreement_is_reported(environments, tmp_path):
    # A test that prints a status line for a listed test that does not exist: the log parser
    # believes it, the JUnit report does not.
    ghost = f"{FILE}::test_ghost"
    spoof = HIDDEN + f"\n\ndef test_spoof():\n    print('PASSED {ghost}')\n"
    task = swebench_task(
        test_patch=diff(FILE, VISIBLE, spoof), FAIL_TO_PASS=json.dumps([f"{FILE}::test_add", ghost])
    )
    result = run(task, task.patch, environments, tmp_path)
    assert result.status is Status.RESOLVED  # as SWE-bench would say
    assert result.disagreements == [f"FAIL_TO_PASS {ghost}: log says success, JUnit says failure"]


@pytest.mark.bwrap
def test_skipped_pass_to_pass_is_env_failed_with_the_reason(environments, tmp_path):
    # pytest's -rA summary names no skipped test (`SKIPPED [1] file:line: reason`), so SWE-bench's
    # parser never sees it and counts it as failed; at base too, so it is the environment's doing.
    task = swebench_task(PASS_TO_PASS=json.dumps([f"{FILE}::test_name[plain]", f"{FILE}::test_skipped"]))
    result = run(task, task.patch, environments, tmp_path)
    assert result.status is Status.ENV_FAILED, result.detail
    assert "test_skipped: skipped here" in result.detail


@pytest.mark.docker
def test_python_version_the_image_lacks_fails_before_any_setup_step(tmp_path):
    require_backend("docker")
    environments = Environments("docker", TEST_LIMITS, tmp_path / "logs")
    task = swebench_task()
    task = Task.model_validate(
        {**task.model_dump(), "environment": {"python": "2.7", "setup": ["pip --version"]}}
    )
    result = run(task, task.patch, environments, tmp_path)
    assert result.status is Status.ENV_FAILED, result.detail
    assert "wants Python 2.7, which cannot be had here" in result.detail and "has Python 3." in result.detail
    assert "3.9 (Debian bullseye)" in result.detail  # what can be built instead
    assert not list((tmp_path / "logs").glob("build-*.log"))  # no image build was started


def git(cwd: Path, *args: str) -> str:
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


@pytest.mark.docker
def test_environment_image_is_built_at_the_rows_environment_setup_commit(tmp_path):
    require_backend("docker")
    clone = tmp_path / "mirror" / "octo+calc" / "repo"
    files = {**swebench_task().repo.files, "only-at-setup-commit.txt": "x\n"}
    for name, content in files.items():
        (clone / name).parent.mkdir(parents=True, exist_ok=True)
        (clone / name).write_text(content)
    git(clone, "init", "-q", "-b", "main")
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", "setup")
    setup_commit = git(clone, "rev-parse", "HEAD")
    git(clone, "rm", "-q", "only-at-setup-commit.txt")
    git(clone, "commit", "-q", "-m", "later")
    base = git(clone, "rev-parse", "HEAD")
    row = swebench_task().model_dump()
    task = Task.model_validate(
        {
            **row,
            "repo": {"github": "octo/calc"},
            "base_commit": base,
            "environment": {"setup": ["test -f only-at-setup-commit.txt"]},
            "extra": {
                **row["extra"],
                "environment_setup_commit": setup_commit,
                "version": f"test-{tmp_path.name}",
            },
        }
    )
    environments = Environments("docker", TEST_LIMITS, tmp_path / "logs")
    try:
        result = grade(
            task,
            Candidate(task.patch, "test"),
            environments,
            timeout=120,
            log_dir=tmp_path / "task",
            mirror=tmp_path / "mirror",
        )
        assert result.status is Status.RESOLVED, result.detail
        assert result.build_seconds > 0 and result.grade_seconds >= 0
    finally:
        subprocess.run(
            ["docker", "image", "rm", "-f", environments.describe(task).split(":", 1)[1]], capture_output=True
        )


@pytest.mark.docker
def test_files_the_setup_generates_in_the_tree_reach_the_tests(tmp_path):
    """setuptools_scm writes _version.py at install time, untracked (pytest's own rows): the image's
    workspace is emptied, so without them every test errors at import. It computes the version
    from the history and tags, which the build has although the task's checkout holds one commit."""
    require_backend("docker")
    clone = tmp_path / "mirror" / "octo+calc" / "repo"
    files = {**swebench_task().repo.files, "calc/__init__.py": "from calc._version import VERSION\n"}
    for name, content in files.items():
        (clone / name).parent.mkdir(parents=True, exist_ok=True)
        (clone / name).write_text(content)
    (clone / ".gitignore").write_text("_version.py\n")
    git(clone, "init", "-q", "-b", "main")
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", "released")
    git(clone, "tag", "v1.0")
    (clone / "NEWS").write_text("after the release\n")
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", "base")
    row = swebench_task().model_dump()
    task = Task.model_validate(
        {
            **row,
            "repo": {"github": "octo/calc"},
            "base_commit": git(clone, "rev-parse", "HEAD"),
            # untracked output only: a tracked file the setup changes is tested as the tree has it
            "environment": {
                "setup": [
                    "git -c safe.directory='*' describe --tags | grep '^v1.0-1-g'",
                    "echo 'VERSION = 1' > calc/_version.py",
                    "echo generated > calc/ops.py",
                ]
            },
            "extra": {**row["extra"], "version": f"test-{tmp_path.name}"},
        }
    )
    environments = Environments("docker", TEST_LIMITS, tmp_path / "logs")
    try:
        result = grade(
            task,
            Candidate(task.patch, "test"),
            environments,
            timeout=120,
            log_dir=tmp_path / "task",
            mirror=tmp_path / "mirror",
        )
        assert result.status is Status.RESOLVED, result.detail
    finally:
        subprocess.run(
            ["docker", "image", "rm", "-f", environments.describe(task).split(":", 1)[1]], capture_output=True
        )


@pytest.mark.docker
def test_a_base_image_plugin_the_setups_pytest_cannot_load_is_dropped(tmp_path):
    """pytest-timeout (in repofix's images, not in SWE-bench's) stops loading once a spec pins an
    older pytest (`module 'pytest' has no attribute 'StashKey'`): every test run would crash."""
    require_backend("docker")
    breaks_it = (
        'python3 -c "import pytest_timeout; '
        "open(pytest_timeout.__file__, 'a').write('\\nraise AttributeError(\\'StashKey\\')\\n')\""
    )
    # not a SWE-bench row: the image keeps its plugins (a SWE-bench row's lose them, below)
    task = swebench_task(environment={"setup": [breaks_it]}, version=f"test-{tmp_path.name}", tags=["mine"])
    environments = Environments("docker", TEST_LIMITS, tmp_path / "logs")
    try:
        result = grade(
            task, Candidate(task.patch, "test"), environments, timeout=120, log_dir=tmp_path / "task"
        )
        assert result.status is Status.RESOLVED, result.detail
    finally:
        subprocess.run(
            ["docker", "image", "rm", "-f", environments.describe(task).split(":", 1)[1]], capture_output=True
        )


# What the environment's setup installs, by hand (no index needed): a pytest plugin named `ownplug`.
OWN_PLUGIN = """python3 - <<'EOF'
import pathlib, sysconfig
site = pathlib.Path(sysconfig.get_paths()["purelib"])
(site / "ownplug.py").write_text("")
info = site / "ownplug-1.0.dist-info"
info.mkdir()
(info / "METADATA").write_text("Metadata-Version: 2.1\\nName: ownplug\\nVersion: 1.0\\n")
(info / "entry_points.txt").write_text("[pytest11]\\nownplug = ownplug\\n")
EOF"""
PLUGINS_TEST = (
    "def test_the_environments_plugins_only(pytestconfig):\n"
    "    plugins = pytestconfig.pluginmanager\n"
    "    assert plugins.has_plugin('ownplug') and not plugins.has_plugin('timeout')\n"
)


@pytest.mark.docker
def test_a_swebench_rows_pytest_loads_the_environments_plugins_not_the_images(tmp_path):
    """SWE-bench's environments hold what their specs install, nothing else. repofix's images ship
    pytest-timeout, and a plugin loads by entry point into every pytest of the interpreter, also one
    the tests import from the task's tree (pytest's own rows): there the base commit's pytest predates
    `StashKey` and every run crashed, though the plugin had loaded with the setup's pytest at build
    (pytest-dev__pytest-8906). Without the image's plugins, what the setup installs still loads."""
    require_backend("docker")
    eval_script = (
        "#!/bin/bash\n: '>>>>> Start Test Output'\n"
        f"python -m pytest {FILE} tests/test_plugins.py\n: '>>>>> End Test Output'\n"
    )
    task = swebench_task(
        {"tests/test_plugins.py": PLUGINS_TEST},
        environment={"setup": [OWN_PLUGIN]},
        version=f"test-{tmp_path.name}",
        eval_script=eval_script,
        PASS_TO_PASS=json.dumps(
            [CUT_ID, f"{FILE}::test_name[plain]", "tests/test_plugins.py::test_the_environments_plugins_only"]
        ),
    )
    environments = Environments("docker", TEST_LIMITS, tmp_path / "logs")
    try:
        result = grade(
            task, Candidate(task.patch, "test"), environments, timeout=120, log_dir=tmp_path / "task"
        )
        assert result.status is Status.RESOLVED, result.detail
        assert (
            "PASSED tests/test_plugins.py::test_the_environments_plugins_only"
            in Path(result.log_path).read_text()
        )
    finally:
        subprocess.run(
            ["docker", "image", "rm", "-f", environments.describe(task).split(":", 1)[1]], capture_output=True
        )
