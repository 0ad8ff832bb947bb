"""SWE-bench rows get the environment SWE-bench's official per-version specs give them
(python, pre_install, packages, pip_packages, install, test command), unless the task or its
import pointer states a part itself. Synthetic repositories (CI has no GitHub) named like real
SWE-bench repositories; the oracle is the official package's own dict, read in its own
interpreter (REPOFIX_SWEBENCH_SPECS_PYTHON: a venv with swebench 4.x, made by .ci/run)."""

from __future__ import annotations

import functools
import json
import os
import platform
import shutil
import subprocess
import warnings
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from repofix.cli import main
from repofix.evaluation import swebench_specs
from repofix.evaluation.environments import EnvironmentFailed, Environments
from repofix.evaluation.grading import grade
from repofix.evaluation.model import Candidate, Status
from repofix.evaluation.swebench_env import PIP, derive, merge
from repofix.evaluation.swebench_specs import SPECS_PYTHON, Official, SpecsUnavailable, official_for
from repofix.tasks import SpecError, Task, load_tasks
from repofix.tasks.swebench import row_to_task, task_to_row
from tests.conftest import TEST_LIMITS, require_backend
from tests.test_evaluation_swebench import BUGGY, FILE, FIXED, HIDDEN, VISIBLE, diff, git

ENV_YML = (
    "name: xarray-tests\nchannels:\n  - conda-forge\ndependencies:\n  - python=3.10\n  - cartopy\n"
    "  - netcdf4>=1.5\n  - pip\n  - pip:\n      - numbagg==0.2.1\n      - pint\n"
)
REPO_FILES = {
    "pytest.ini": "[pytest]\npythonpath = .\n",
    "calc/__init__.py": "",
    "calc/ops.py": BUGGY,
    FILE: VISIBLE,
    "tests/test_other.py": "def test_other():\n    assert True\n",
    # SWE-bench's requirement file of pallets/flask, with a nested list and lines it leaves out
    "requirements/dev.txt": "-r docs.txt\nflake8==6.0.0\n-e .\n# a comment\n",
    "requirements/docs.txt": "sphinx==6.1.3\n",
    "ci/requirements/environment.yml": ENV_YML,  # pydata/xarray's
}
# (repo, version): one of each kind of spec: a requirements.txt, an environment.yml, a conda
# package list, pre_install steps.
KINDS = [
    ("pallets/flask", "2.3"),
    ("pydata/xarray", "2022.03"),
    ("psf/requests", "2.4"),
    ("pytest-dev/pytest", "6.3"),
]


def official_specs(pairs: list[tuple[str, str]]) -> list[dict]:
    """The official package's MAP_REPO_VERSION_TO_SPECS entries, read in its own interpreter."""
    python = os.environ.get(SPECS_PYTHON)
    if python is None:
        reason = f"needs swebench 4.x in a venv named by {SPECS_PYTHON} (the official specs)"
        if os.environ.get("CI"):
            pytest.fail(f"CI must provide it: {reason}")
        pytest.skip(reason)
    specs = _read_specs(python)
    return [specs[repo][version] for repo, version in pairs]


@functools.cache
def _read_specs(python: str) -> dict:
    wanted = [*KINDS, ("pallets/flask", "2.0")]
    code = (
        "import json, sys\nfrom swebench.harness.constants import MAP_REPO_VERSION_TO_SPECS as S\n"
        "json.dump([[r, v, S[r][v]] for r, v in json.load(sys.stdin)], sys.stdout)"
    )
    done = subprocess.run([python, "-c", code], input=json.dumps(wanted), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    specs: dict = {}
    for repo, version, spec in json.loads(done.stdout):
        specs.setdefault(repo, {})[version] = spec
    return specs


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> tuple[Path, str, str]:
    return make_clone(tmp_path_factory.mktemp("mirror") / "calc")


def make_clone(repo: Path) -> tuple[Path, str, str]:
    """A repository with the files of several SWE-bench repositories at its setup commit."""
    repo.mkdir()
    git(repo, "init", "-q")
    for name, text in REPO_FILES.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "setup")
    setup_commit = git(repo, "rev-parse", "HEAD")
    (repo / "requirements" / "docs.txt").write_text("sphinx==99\n")  # after the setup commit
    git(repo, "commit", "-q", "-am", "later")
    return repo, setup_commit, git(repo, "rev-parse", "HEAD")


def row(clone, repo: str, version: str, **changes) -> Task:
    _, setup_commit, base = clone
    fields = {
        "repo": repo,
        "instance_id": repo.replace("/", "__") + "-1",
        "base_commit": base,
        "environment_setup_commit": setup_commit,
        "version": version,
        "problem_statement": "add() subtracts",
        "patch": diff("calc/ops.py", BUGGY, FIXED),
        "test_patch": diff(FILE, VISIBLE, HIDDEN),
        "FAIL_TO_PASS": json.dumps([f"{FILE}::test_add"]),
        "PASS_TO_PASS": json.dumps([f"{FILE}::test_name[plain]"]),
        "log_parser": "parse_log_pytest",
        "eval_type": "pass_and_fail",
    }
    fields.update(changes)
    return row_to_task(fields)


@pytest.mark.parametrize(("repo", "version"), KINDS)
def test_a_known_repo_and_version_gets_the_official_spec(clone, repo, version):
    [spec] = official_specs([(repo, version)])
    derived = derive(row(clone, repo, version), clone[0])
    env, setup = derived.task.environment, derived.task.environment.setup
    assert derived.source.endswith(f"specs for {repo} {version}") and derived.source.startswith("swebench 4.")
    assert env.python == spec["python"]
    # SWE-bench's order: packages, pip_packages, then the repository's pre_install and install.
    tail = [*spec.get("pre_install", []), spec["install"]]
    assert setup[-len(tail) :] == tail
    assert setup[0] == PIP  # the pip SWE-bench's environments had (legacy editable installs)
    if "pip_packages" in spec:
        assert "python -m pip install " + " ".join(spec["pip_packages"]) in setup
    # No eval_script: the spec's test command on the test files of the row's test_patch.
    assert derived.task.test_cmd == f"{spec['test_cmd']} {FILE}"
    if spec.get("packages") == "requirements.txt":  # the list SWE-bench's get_requirements makes
        [listed] = [step for step in setup if step.startswith("cat > ")]
        lines = listed.splitlines()
        assert "sphinx==6.1.3" in lines and "flake8==6.0.0" in lines  # at the setup commit
        assert "-e ." not in lines and "# a comment" not in lines
        assert "python -m pip install -r /tmp/repofix-swebench-requirements.txt" in setup
    elif spec.get("packages") == "environment.yml":
        assert "python -m pip install numbagg==0.2.1 pint" in setup
        assert derived.notes == [
            "conda-only dependencies of the environment.yml not installed (repofix installs with pip): "
            "cartopy, netcdf4>=1.5"
        ]
    elif spec.get("packages"):
        assert f"python -m pip install {spec['packages']}" in setup
        assert derived.notes == [
            f"conda packages installed with pip under the same names: {spec['packages']}"
        ]


def test_what_a_task_states_wins_over_the_spec(clone):
    [spec] = official_specs([("pallets/flask", "2.3")])
    own = row(clone, "pallets/flask", "2.3", environment={"python": "3.12"}, test_cmd="pytest -x tests")
    derived = derive(own, clone[0])
    assert derived.task.environment.python == "3.12" and derived.task.test_cmd == "pytest -x tests"
    assert derived.task.environment.setup[-1] == spec["install"]  # the part it left open
    stated = row(clone, "pallets/flask", "2.3", environment={"setup": ["true"]}, eval_script=EVAL_SCRIPT)
    derived = derive(stated, clone[0])
    assert derived.task.environment.setup == ["true"] and derived.task.environment.python == spec["python"]
    assert derived.task.test_cmd == "python -m pytest -q"  # the eval_script's command runs (below)
    with_image = row(clone, "pallets/flask", "2.3", environment={"image": "mine:1"})
    assert derive(with_image, clone[0]).task == with_image  # a prebuilt image holds its environment


def test_an_import_pointer_overrides_parts_and_export_round_trips(clone, tmp_path):
    rows = tmp_path / "rows.jsonl"
    task = row(clone, "pallets/flask", "2.3", environment={"setup": ["pip install -e ."]})
    rows.write_text(json.dumps(task_to_row(task)) + "\n")
    pointer = {
        "import": {"format": "swebench", "path": "rows.jsonl"},
        "environment": {"python": "3.12"},
        "test_cmd": "pytest -rA tests",
    }
    (tmp_path / "set.yaml").write_text(yaml.safe_dump(pointer))
    [loaded] = load_tasks([tmp_path / "set.yaml"], check=False)
    assert loaded.environment.python == "3.12"  # the pointer's part
    assert loaded.environment.setup == ["pip install -e ."]  # the row's, kept
    assert loaded.test_cmd == "pytest -rA tests"
    # pointer > spec: the derived environment keeps the pointer's python and test command
    derived = derive(loaded, clone[0]).task
    assert derived.environment.python == "3.12" and derived.test_cmd == "pytest -rA tests"
    out = tmp_path / "out.jsonl"
    done = CliRunner().invoke(main, ["tasks", "export", str(tmp_path / "set.yaml"), "-o", str(out)])
    assert done.exit_code == 0, done.output
    [again] = load_tasks([out], check=False)
    assert again == loaded
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump({**pointer, "environment": {"pyton": "3.9"}}))
    with pytest.raises(SpecError, match=r"bad.yaml: task '#1': environment\.pyton: unknown field"):
        load_tasks([tmp_path / "bad.yaml"], check=False)


def test_without_a_package_that_has_the_specs_the_task_says_so(clone, monkeypatch, tmp_path):
    fake = tmp_path / "python"  # an interpreter whose swebench is 5.x-like: no specs
    (tmp_path / "swebench" / "harness").mkdir(parents=True)
    (tmp_path / "swebench" / "__init__.py").write_text("")
    (tmp_path / "swebench" / "harness" / "__init__.py").write_text("")
    (tmp_path / "swebench" / "harness" / "constants.py").write_text("X = 1\n")
    (tmp_path / "swebench-5.0.2.dist-info").mkdir()
    (tmp_path / "swebench-5.0.2.dist-info" / "METADATA").write_text("Name: swebench\nVersion: 5.0.2\n")
    fake.write_text(f'#!/bin/sh\nexec env PYTHONPATH={tmp_path} python3 "$@"\n')
    fake.chmod(0o755)
    monkeypatch.setenv(SPECS_PYTHON, str(fake))
    task = row(clone, "pallets/flask", "2.4")  # not asked before: nothing cached
    derived = derive(task, clone[0])
    assert derived.task == task
    [note] = derived.notes
    assert note.startswith("no environment derived: swebench 5.0.2 has no per-version install specifications")
    assert f"set {SPECS_PYTHON}=" in note
    swebench_specs._readers.pop(str(fake)).close()  # its reader of a fake interpreter: not for later tests


def test_a_requirement_file_the_repository_lacks_is_an_environment_failure(clone):
    official_specs([("pallets/flask", "2.3")])
    # The row's commit reaches git: an option there must not be taken as one (`git -C clone show
    # --output=x:requirements/dev.txt` would write that file, relative to the clone).
    target = clone[0] / "x:requirements"
    target.mkdir()
    try:
        task = row(clone, "pallets/flask", "2.3", environment_setup_commit="--output=x")
        with pytest.raises(EnvironmentFailed, match="for pallets/flask 2.3 need a file the repository lacks"):
            derive(task, clone[0])
        assert not (target / "dev.txt").exists()
    finally:
        shutil.rmtree(target)


def test_conda_only_dependencies_are_named():
    official = Official(
        "swebench 4.1.0", {"python": "3.10", "packages": "environment.yml"}, environment_yml=ENV_YML
    )
    task = Task(id="x", repo={"github": "octo/x"}, problem_statement="p", extra={"version": "1"})
    derived = merge(task, official, "test")
    assert derived.task.environment.setup == [PIP, "python -m pip install numbagg==0.2.1 pint"]
    assert "cartopy, netcdf4>=1.5" in derived.notes[0] and "not installed" in derived.notes[0]


EVAL_SCRIPT = (
    "#!/bin/bash\nset -uxo pipefail\ngit status\n: '>>>>> Start Test Output'\n"
    "python -m pytest tests/test_other.py " + FILE + "\n: '>>>>> End Test Output'\n"
)


@pytest.fixture
def bwrap(tmp_path: Path) -> Environments:
    require_backend("bwrap")
    warnings.simplefilter("ignore")
    return Environments("bwrap", TEST_LIMITS, tmp_path / "logs")


@pytest.mark.bwrap
@pytest.mark.parametrize("script", [True, False])
def test_the_eval_scripts_test_files_are_the_ones_run(clone, bwrap, tmp_path, script):
    official_specs([("pallets/flask", "2.3")])
    changes = {"eval_script": EVAL_SCRIPT} if script else {}
    task = row(clone, "pallets/flask", "2.3", environment={"setup": ["true"]}, **changes)
    mirror = tmp_path / "mirror"
    (mirror / "pallets").mkdir(parents=True)
    (mirror / "pallets" / "flask").symlink_to(clone[0])
    result = grade(
        task, Candidate(task.patch, "t"), bwrap, timeout=120, log_dir=tmp_path / "t", mirror=mirror
    )
    assert result.status is Status.RESOLVED, result.detail
    log = Path(result.log_path).read_text()
    # the eval_script's files; without one, the spec's command on the test patch's files only
    assert ("PASSED tests/test_other.py::test_other" in log) is script
    assert f"PASSED {FILE}::test_add" in log


@pytest.mark.bwrap
def test_a_python_the_sandbox_lacks_fails_before_any_setup_step(clone, bwrap, tmp_path):
    [spec] = official_specs([("pallets/flask", "2.0")])
    task = row(clone, "pallets/flask", "2.0", environment={"setup": ["false"]})
    mirror = tmp_path / "mirror"
    (mirror / "pallets").mkdir(parents=True)
    (mirror / "pallets" / "flask").symlink_to(clone[0])
    result = grade(
        task, Candidate(task.patch, "t"), bwrap, timeout=120, log_dir=tmp_path / "t", mirror=mirror
    )
    assert result.status is Status.ENV_FAILED, result.detail
    assert (
        f"wants Python {spec['python']}" in result.detail
        and f"has {platform.python_version()}" in result.detail
    )
    assert "setup command" not in result.detail  # `false` never ran


def test_a_reader_that_answers_garbage_is_an_error_and_is_let_go(clone, monkeypatch, tmp_path):
    """An interpreter that answers something other than one JSON line (out of step, or not the reader
    at all): a clear error instead of a traceback, and the reader's process and files are released, so
    the next request starts afresh."""
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'not json'\nexec sleep 30\n")
    fake.chmod(0o755)
    monkeypatch.setenv(SPECS_PYTHON, str(fake))
    for version in ("2.6", "2.7"):  # nothing cached; the second starts a new reader
        with pytest.raises(SpecsUnavailable, match="it answered 'not json"):
            official_for(row(clone, "pallets/flask", version), clone[0])
        reader = swebench_specs._readers[str(fake)]
        assert reader.process.poll() is not None and reader.errors.closed
