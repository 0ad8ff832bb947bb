"""A SWE-bench row's environment, derived from SWE-bench's official specs (swebench_specs.py).

Precedence, part by part: what the task states (its own fields, or an import pointer's) >
the official spec for (repo, version) > repofix's defaults. The parts: `environment.python`,
`environment.setup` (and `environment.image`: a task with an image of its own gets no derived
python or setup), and `test_cmd` (the task's own; else its row's `eval_script` command, which
swebench_verdict.test_command reads; else the spec's test_cmd with the test files of the row's
test_patch, as SWE-bench builds its eval script).

SWE-bench builds a conda environment; repofix installs with pip into the image's Python, in the
order SWE-bench's env and repo scripts run: the requirement list ("requirements.txt" kind), the
pip section of an environment.yml, or a plain package list; then pip_packages, the repository's
install, pre_install, install. What only conda can install is named in `notes` (per task), never
silently dropped.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from repofix.evaluation.environments import EnvironmentFailed
from repofix.evaluation.swebench_specs import Official, SpecsUnavailable, official_for
from repofix.tasks import DEFAULT_TEST_CMD, Task

_REQUIREMENTS = "/tmp/repofix-swebench-requirements.txt"
_HEREDOC = "EOF_REPOFIX_SWEBENCH"
# In a conda environment.yml: what the image's Python already is, not packages to install.
_NOT_PACKAGES = {"python", "pip"}


@dataclass
class Derived:
    task: Task  # with the derived parts filled in
    source: str = ""  # e.g. "swebench 4.1.0 specs for pallets/flask 2.3"; "" when nothing derived
    notes: list[str] = field(default_factory=list)  # what the environment lacks, and why


def is_swebench_row(task: Task) -> bool:
    return task.repo.github is not None and task.extra.get("version") is not None


def needs_specs(task: Task, official_image: bool = False) -> bool:
    """Whether any part of the environment is left for the specs to give (in the row's official
    image, `--images swebench`, only the test command is)."""
    env = task.environment
    if not is_swebench_row(task) or (env.image and not official_image):
        return False
    own_test_cmd = task.test_cmd != DEFAULT_TEST_CMD or isinstance(task.extra.get("eval_script"), str)
    return not own_test_cmd if official_image else env.python is None or not env.setup or not own_test_cmd


def derive(task: Task, repo: Path, official_image: bool = False) -> Derived:
    """`task` with the parts it does not state taken from the official specs; `repo` is a clone
    holding the row's environment_setup_commit. Without a package that has the specs the task
    keeps its own parts, with a note saying why; a spec whose requirement file the repository
    lacks is an environment that cannot be made (EnvironmentFailed)."""
    if not needs_specs(task, official_image):
        return Derived(task)
    where = f"{task.repo.github} {task.extra.get('version')}"
    try:
        official = official_for(task, repo)
    except SpecsUnavailable as error:
        return Derived(task, notes=[f"no environment derived: {error}"])
    if official.spec is None:
        return Derived(task, notes=[f"{official.package} has no specs for {where}"])
    if official.error:
        raise EnvironmentFailed(
            f"the official specs for {where} need a file the repository lacks: {official.error}"
        )
    return merge(task, official, f"{official.package} specs for {where}")


def merge(task: Task, official: Official, source: str) -> Derived:
    spec = official.spec or {}
    notes: list[str] = []
    env = task.environment
    update: dict[str, Any] = {}
    if env.python is None and spec.get("python"):
        update["python"] = str(spec["python"])
    if not env.setup:
        update["setup"] = setup_commands(spec, official, notes)
    test_cmd = task.test_cmd
    if test_cmd == DEFAULT_TEST_CMD and not isinstance(task.extra.get("eval_script"), str):
        test_cmd = spec_test_command(spec, official.test_directives) or test_cmd
    derived = task.model_copy(update={"environment": env.model_copy(update=update), "test_cmd": test_cmd})
    return Derived(derived, source, notes)


# SWE-bench's environments were made with a pip older than 25.3, which installs a project whose
# pinned build backend has no editable hook (setuptools < 64: astroid 2.12-2.14) the legacy way
# (`setup.py develop`); pip 25.3 refuses. The images' pip is newer: the environment gets such a pip.
PIP = "python -m pip install 'pip<25.3'"


def setup_commands(spec: dict[str, Any], official: Official, notes: list[str]) -> list[str]:
    """SWE-bench's env script, then its repo script, as pip and shell steps."""
    steps: list[str] = [PIP]
    if official.environment_yml is not None:
        steps += _environment_yml(official.environment_yml, notes)
    elif official.requirements is not None:
        steps += [
            f"cat > {_REQUIREMENTS} <<'{_HEREDOC}'\n{official.requirements}\n{_HEREDOC}",
            f"python -m pip install -r {_REQUIREMENTS}",
            f"rm {_REQUIREMENTS}",
        ]
    elif spec.get("packages"):
        steps += _package_list(shlex.split(str(spec["packages"])), notes)
    if spec.get("pip_packages"):
        steps.append("python -m pip install " + " ".join(shlex.quote(p) for p in spec["pip_packages"]))
    if official.install_repo:
        steps.append(official.install_repo)
    steps += list(spec.get("pre_install") or [])
    if spec.get("install"):
        steps.append(str(spec["install"]))
    return steps


def _package_list(packages: list[str], notes: list[str]) -> list[str]:
    # `conda create ... python=X <packages>`: conda's `name=version` is pip's `name==version`.
    wanted = []
    for package in packages:
        name, equals, version = package.partition("=")
        if equals and not version.startswith("="):
            package = f"{name}=={version}"
        wanted.append(package)
    if not wanted:
        return []
    notes.append("conda packages installed with pip under the same names: " + " ".join(wanted))
    return ["python -m pip install " + " ".join(shlex.quote(p) for p in wanted)]


def _environment_yml(text: str, notes: list[str]) -> list[str]:
    """The pip-installable part of a conda environment.yml; the conda-only rest named in notes."""
    import yaml  # lazy, as everywhere in repofix

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        notes.append(f"the environment.yml is not valid YAML, nothing of it installed: {error}")
        return []
    dependencies = data.get("dependencies") if isinstance(data, dict) else None
    pip: list[str] = []
    conda: list[str] = []
    for item in dependencies or []:
        if isinstance(item, dict):
            pip += [str(p) for p in item.get("pip") or []]
        elif str(item).split("=")[0].split("<")[0].split(">")[0].strip() not in _NOT_PACKAGES:
            conda.append(str(item))
    if conda:
        notes.append(
            "conda-only dependencies of the environment.yml not installed (repofix installs with pip): "
            + ", ".join(conda)
        )
    return ["python -m pip install " + " ".join(shlex.quote(p) for p in pip)] if pip else []


def spec_test_command(spec: dict[str, Any], directives: list[str]) -> str | None:
    command = spec.get("test_cmd")
    if isinstance(command, list):  # some specs give several commands; SWE-bench runs the last with the files
        command = " && ".join(command)
    if not command:
        return None
    # eval_commands run before the tests in SWE-bench's eval script (exports, locale setup).
    before = [str(c) for c in spec.get("eval_commands") or []]
    return " && ".join([*before, " ".join([str(command), *directives])])
