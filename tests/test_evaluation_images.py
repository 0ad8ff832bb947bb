"""Environment images: the Python a task asks for (an image per Debian release, built offline on
first need), a clear failure before any setup step when no release ships it, and `--images
swebench` (the row's official image, the repository at /testbed) with a locally built image of
SWE-bench's name and layout."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import socket
import subprocess
import sys
import threading
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from repofix.cli import main
from repofix.evaluation.candidates import GoldSource
from repofix.evaluation.environments import Environments
from repofix.evaluation.executors import TaskWork
from repofix.evaluation.grading import grade
from repofix.evaluation.images import PYTHON_REPO, EnvironmentFailed, python_image, run_once
from repofix.evaluation.model import Candidate, Status
from repofix.evaluation.progress import Progress
from repofix.evaluation.runner import RunOptions, run_evaluation
from repofix.evaluation.store import ResultsStore
from repofix.sandboxes.docker import DEFAULT_IMAGE
from repofix.tasks import Task
from tests.conftest import TEST_LIMITS, require_backend
from tests.test_evaluation_grading import HIDDEN_TESTS, VISIBLE_TESTS, diff, make_task
from tests.test_evaluation_swebench import FILE, swebench_task


class AgentDouble:
    """A candidate source in the agent's mode that records which tasks it was asked for."""

    name, mode = "agent-double", "model"

    def __init__(self) -> None:
        self.asked: list[Task] = []

    def recorded_cost(self) -> float:
        return 0.0

    def candidate(self, task: Task, budget: float | None) -> Candidate:
        self.asked.append(task)
        return Candidate(task.patch or "", self.name)


def evaluate(tasks: list[Task], source, environments: Environments, folder: Path):
    with ResultsStore(folder) as store:
        run_evaluation(
            tasks,
            source,
            store,
            environments,
            folder,
            RunOptions(timeout=120),
            Progress(len(tasks), quiet=True),
        )
        return store.latest()


def test_each_python_has_an_image_from_a_debian_release_or_else_uv():
    assert python_image("3.9") == python_image("3.9.2") == f"{PYTHON_REPO}:3.9"
    assert python_image("3.13") == f"{PYTHON_REPO}:3.13"
    assert python_image("3.8") == f"{PYTHON_REPO}:3.8"  # uv's (tests/test_evaluation_uv_python.py)
    assert python_image("3.7") is None and python_image("2.7") is None  # neither Debian nor uv has them
    assert python_image("3") is None and python_image("three") is None


def test_a_python_the_host_lacks_fails_before_any_setup_step_naming_what_can_be_had(tmp_path):
    """Off Docker, the host's Python is the only one. With Docker, every major.minor version can be
    had online (uv); where it cannot: tests/test_evaluation_uv_python.py."""
    backend = "none"
    warnings.simplefilter("ignore")  # the none backend's warning
    marker = tmp_path / "setup-ran"
    task = make_task(environment={"python": "3.7", "setup": [f"touch {marker}"]})
    notes: list[str] = []
    environments = Environments(backend, TEST_LIMITS, tmp_path / "logs", echo=notes.append)
    agent = AgentDouble()
    results = evaluate([task], agent, environments, tmp_path / "run")
    result = results[task.id]
    assert result.status is Status.ENV_FAILED, result.detail
    assert "Python 3.7" in result.detail and "3.9" in result.detail and "3.13" in result.detail
    assert agent.asked == []  # the agent (which runs the setup steps in its sandbox) never started
    assert not marker.exists()
    assert not [n for n in notes if "building" in n]  # nor did any image build


@pytest.mark.docker
def test_a_given_image_without_the_python_fails_before_its_setup_is_built(tmp_path):
    require_backend("docker")
    task = make_task(environment={"image": DEFAULT_IMAGE, "python": "3.9", "setup": ["true"]})
    notes: list[str] = []
    environments = Environments("docker", TEST_LIMITS, tmp_path / "logs", echo=notes.append)
    result = evaluate([task], GoldSource(), environments, tmp_path / "run")[task.id]
    assert result.status is Status.ENV_FAILED
    assert f"wants Python 3.9, but the image {DEFAULT_IMAGE} has Python 3.11" in result.detail
    assert not [n for n in notes if "building" in n]


@pytest.mark.docker
def test_a_one_off_container_that_times_out_is_removed_and_named(tmp_path):
    """The python3 probe and the build-outputs read run one-off containers: killing the docker client
    on a timeout would leave the container running, so it is removed, and the error says what hung."""
    require_backend("docker")
    argv = ["--entrypoint", "sleep", DEFAULT_IMAGE, "120"]
    with pytest.raises(EnvironmentFailed, match="the sleepy probe did not finish within 3 s"):
        run_once(argv, subprocess.PIPE, timeout=3, what="the sleepy probe")
    mine = subprocess.run(
        ["docker", "ps", "-aq", "--filter", f"name=repofix-once-{os.getpid()}-"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert mine.stdout.strip() == ""
    done = run_once(["--entrypoint", "true", DEFAULT_IMAGE], subprocess.PIPE, timeout=60, what="x")
    assert done.returncode == 0


@pytest.mark.docker
def test_the_default_python_runs_in_the_default_image_without_a_build(tmp_path):
    require_backend("docker")
    notes: list[str] = []
    environments = Environments("docker", TEST_LIMITS, tmp_path / "logs", echo=notes.append)
    task = make_task(environment={"python": "3.11"})
    assert environments.describe(task) == f"docker:{DEFAULT_IMAGE}"
    assert TaskWork(AgentDouble(), 60).prepare(task, environments) is task  # the agent's default image
    assert not [n for n in notes if "building" in n]


def logs_end(folder: Path) -> str:
    """The last lines of each build log: what CI shows of a build that failed."""
    return "\n".join(
        f"{log.name}: ...\n" + "\n".join(log.read_text().splitlines()[-15:])
        for log in sorted(folder.glob("*.log"))
    )


@pytest.mark.docker
@pytest.mark.slow
def test_python_3_9_task_runs_in_the_bullseye_image_built_on_first_need(tmp_path):
    """Builds repofix-python:3.9 when absent (debootstrap bullseye + the sandbox Dockerfile: about
    two minutes, once per machine); the runner and the pytest plugin then run on Python 3.9."""
    require_backend("docker")
    checks = HIDDEN_TESTS + (
        "\n\ndef test_python():\n    import sys\n    assert sys.version_info[:2] == (3, 9), sys.version\n"
    )
    task = make_task(
        id="py39",
        environment={
            "python": "3.9",
            "setup": ["python3 -c 'import sys; assert sys.version_info[:2] == (3, 9)'"],
        },
        test_patch=diff("tests/test_mathx.py", VISIBLE_TESTS, checks),
        FAIL_TO_PASS=["tests/test_mathx.py::test_add", "tests/test_mathx.py::test_python"],
    )
    environments = Environments("docker", TEST_LIMITS, tmp_path / "logs")
    recipe = environments.describe(task).removeprefix("docker:")  # builds the Python image if absent
    try:
        results = evaluate([task], GoldSource(), environments, tmp_path / "run")
        assert results["py39"].status is Status.RESOLVED, (
            results["py39"].detail,
            logs_end(tmp_path / "logs"),
        )
        assert results["py39"].tests_status.FAIL_TO_PASS["success"] == task.FAIL_TO_PASS
        prepared = TaskWork(AgentDouble(), 60).prepare(task, environments)
        assert isinstance(prepared, Task) and prepared.environment.image == f"{PYTHON_REPO}:3.9"
    finally:
        subprocess.run(["docker", "image", "rm", "-f", recipe], capture_output=True)


LAYOUT_TEST = (
    "\n\ndef test_layout():\n"
    "    import os, sys\n    import calc\n"
    "    assert os.getcwd() == '/testbed' and calc.__file__.startswith('/testbed/')\n"
    "    assert sys.prefix == '/opt/miniconda3/envs/testbed'\n"
    "    assert os.path.exists(sys.prefix + '/official-image')\n"
    "    from calc._speedups import FAST  # built in place by the image's install, untracked\n"
    "    assert FAST\n"
)
# SWE-bench's layout, built from the sandbox image: a conda-like env `testbed` with the package
# installed in develop mode from /testbed (the .pth a `setup.py develop` writes) and the image's
# own test tools, conda's base Python at /opt/miniconda3/bin.
SWEBENCH_DOCKERFILE = f"""FROM {DEFAULT_IMAGE}
USER root
COPY repo/ /testbed/
RUN mkdir -p /opt/miniconda3/bin /opt/miniconda3/envs && ln -s /usr/bin/python3 /opt/miniconda3/bin/python3 \\
 && python3 -m venv --without-pip /opt/miniconda3/envs/testbed \\
 && site=$(/opt/miniconda3/envs/testbed/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])') \\
 && echo /opt/venv/lib/python3.11/site-packages > $site/tools.pth && echo /testbed > $site/easy-install.pth \\
 && touch /opt/miniconda3/envs/testbed/official-image \\
 && cd /testbed && git init -q && git add -A && git commit -qm base \\
 && echo 'FAST = True' > calc/_speedups.py && mkdir calc/__pycache__ && touch calc/__pycache__/stale.pyc
WORKDIR /testbed/
"""


@pytest.fixture
def swebench_image(tmp_path_factory) -> str:
    require_backend("docker")
    name = f"swebench/sweb.eval.x86_64.repofix-test_1776_calc-{uuid.uuid4().hex[:8]}:latest"
    context = tmp_path_factory.mktemp("swebench-image")
    for path, text in swebench_task().repo.files.items():  # type: ignore[union-attr]
        (context / "repo" / path).parent.mkdir(parents=True, exist_ok=True)
        (context / "repo" / path).write_text(text)
    (context / "Dockerfile").write_text(SWEBENCH_DOCKERFILE)
    subprocess.run(["docker", "build", "-q", "-t", name, str(context)], check=True, capture_output=True)
    yield name
    subprocess.run(["docker", "image", "rm", "-f", name], capture_output=True)


def official_task(image: str) -> Task:
    from tests.test_evaluation_swebench import HIDDEN, VISIBLE

    return swebench_task(
        image=image,
        test_patch=diff(FILE, VISIBLE, HIDDEN + LAYOUT_TEST),
        FAIL_TO_PASS=json.dumps([f"{FILE}::test_add", f"{FILE}::test_layout"]),
        # The image was installed already: a setup here would be SWE-bench's, never run again.
        environment={"setup": ["exit 3"]},
    )


@pytest.mark.docker
def test_the_setup_steps_build_outputs_are_laid_onto_every_task_tree(tmp_path):
    # As SWE-bench's images keep what the install built in the repository (C extensions compiled
    # in place, generated modules) when they check out the task's base commit.
    require_backend("docker")
    checks = (
        HIDDEN_TESTS + "\n\ndef test_generated():\n    from generated import VALUE\n    assert VALUE == 42\n"
    )
    setup = ["echo 'VALUE = 42' > generated.py", "mkdir -p build/lib && echo junk > build/lib/junk.py"]
    common = dict(
        environment={"setup": setup},
        test_patch=diff("tests/test_mathx.py", VISIBLE_TESTS, checks),
        FAIL_TO_PASS=["tests/test_mathx.py::test_add", "tests/test_mathx.py::test_generated"],
    )
    tasks = [make_task(id="outputs-a", **common), make_task(id="outputs-b", **common)]
    environments = Environments("docker", TEST_LIMITS, tmp_path / "logs")
    tag = environments.describe(tasks[0]).removeprefix("docker:")
    try:
        results = evaluate(tasks, GoldSource(), environments, tmp_path / "run")
        for task in tasks:  # two tasks of one image: each tree gets the outputs
            assert results[task.id].status is Status.RESOLVED, results[task.id].detail
        listed = subprocess.run(
            ["docker", "run", "--rm", "--entrypoint", "tar", tag, "-tf", "/opt/repofix-outputs.tar"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        assert listed == ["generated.py"]  # build/ is left out, as are caches
    finally:
        subprocess.run(["docker", "image", "rm", "-f", tag], capture_output=True)


@pytest.mark.docker
def test_images_swebench_runs_the_row_in_its_official_image_at_testbed(swebench_image, tmp_path):
    task = official_task(swebench_image)
    environments = Environments("docker", TEST_LIMITS, tmp_path / "logs", images="swebench")
    assert environments.describe(task) == f"docker:{swebench_image}"
    gold = grade(task, Candidate(task.patch or "", "gold"), environments, timeout=120, log_dir=tmp_path / "g")
    assert gold.status is Status.RESOLVED, gold.detail
    assert gold.tests_status.FAIL_TO_PASS["success"] == task.FAIL_TO_PASS
    empty = grade(task, Candidate("", "empty"), environments, timeout=120, log_dir=tmp_path / "e")
    assert empty.status is Status.UNRESOLVED, empty.detail
    assert empty.tests_status.FAIL_TO_PASS["failure"] == [f"{FILE}::test_add"]


@contextlib.contextmanager
def closing_registry() -> Iterator[int]:
    """A port on 127.0.0.1 that accepts connections and closes them at once, for as long as the block
    runs (owned by the test, unlike a port assumed to be free)."""
    server = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except OSError:
                continue
            connection.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        server.close()


@pytest.mark.docker
def test_images_swebench_with_an_absent_image_that_cannot_be_pulled_is_env_failed(tmp_path):
    require_backend("docker")
    with closing_registry() as port:  # a "registry" of our own that hangs up: the pull fails for sure
        image = f"127.0.0.1:{port}/swebench/sweb.eval.x86_64.absent-{uuid.uuid4().hex[:8]}:latest"
        environments = Environments("docker", TEST_LIMITS, tmp_path / "logs", images="swebench")
        task = official_task(image)
        result = grade(task, Candidate(task.patch or "", "gold"), environments, timeout=60, log_dir=tmp_path)
    assert result.status is Status.ENV_FAILED
    assert f"the image {image} is not on this host and cannot be pulled" in result.detail
    no_image = swebench_task()
    result = grade(no_image, Candidate("", "empty"), environments, timeout=60, log_dir=tmp_path)
    assert result.status is Status.ENV_FAILED and "row has no `image` field" in result.detail


def test_images_swebench_is_refused_with_the_agent(tmp_path):
    spec = tmp_path / "rows.jsonl"
    spec.write_text("")  # refused before the rows are read
    result = CliRunner().invoke(main, ["eval", "run", str(spec), "--model", "m", "--images", "swebench"])
    assert result.exit_code == 2
    assert "--images swebench grades given patches" in result.output


# What the engine said under a full suite for a container of a working image that it could not start
SHIM_TASK = (
    "docker: Error response from daemon: failed to create shim task: OCI runtime create failed: "
    'exec: "python3": executable file not found in $PATH'
)
NO_USER = (
    "docker: Error response from daemon: unable to find user sandbox: no matching entries in passwd file."
)


def docker_on_path(
    folder: Path, log: Path, fail_first: bool, command: str = "run", refusal: str = SHIM_TASK
) -> str:
    """A `docker` before the real one on PATH that logs each `command` (`run`, `build`) and, if asked,
    answers the first as the engine did under a full suite (`refusal`): a container it could not start."""
    real = subprocess.run(["sh", "-c", "command -v docker"], capture_output=True, text=True).stdout.strip()
    refused = f"echo {shlex.quote(refusal)} >&2; exit 127"
    logged = f'if [ "$1" = {command} ]; then echo {command} >> {log}; fi\n'
    first = f'if [ "$1" = {command} ] && [ ! -s {log} ]; then {logged}{refused}; fi\n' if fail_first else ""
    folder.mkdir()
    (folder / "docker").write_text(f'#!/bin/sh\n{first}{logged}exec {real} "$@"\n')
    (folder / "docker").chmod(0o755)
    return f"{folder}:{os.environ['PATH']}"


@pytest.mark.docker
@pytest.mark.parametrize("refusal", [SHIM_TASK, NO_USER], ids=["shim-task", "no-user"])
def test_a_python3_probe_whose_container_was_not_created_is_run_once_more(
    tmp_path: Path, monkeypatch, refusal: str
):
    require_backend("docker")
    from repofix.evaluation.images import python_version

    expected = python_version(DEFAULT_IMAGE)
    log = tmp_path / "runs"
    monkeypatch.setenv("PATH", docker_on_path(tmp_path / "bin", log, fail_first=True, refusal=refusal))
    assert python_version(DEFAULT_IMAGE) == expected
    assert log.read_text().split() == ["run", "run"]  # the refused one, then one that worked


@pytest.mark.docker
@pytest.mark.parametrize(
    ("change", "said"),
    [([], "executable file not found"), (["--change", "USER nosuch"], "unable to find user nosuch")],
    ids=["no-python3", "no-such-user"],
)
def test_an_image_that_cannot_run_python3_is_an_answer_after_two_tries(
    tmp_path: Path, monkeypatch, change: list[str], said: str
):
    require_backend("docker")
    from repofix.evaluation.images import python_version

    tag = f"repofix-test-no-python:{uuid.uuid4().hex[:8]}"
    empty = subprocess.run(["tar", "cf", "-", "--files-from", "/dev/null"], capture_output=True, check=True)
    subprocess.run(
        ["docker", "import", *change, "-", tag], input=empty.stdout, capture_output=True, check=True
    )
    log = tmp_path / "runs"
    monkeypatch.setenv("PATH", docker_on_path(tmp_path / "bin", log, fail_first=False))
    try:
        with pytest.raises(EnvironmentFailed, match=rf"cannot run python3 in the image .*{said}"):
            python_version(tag)
        assert log.read_text().split() == ["run", "run"]
    finally:
        subprocess.run(["docker", "image", "rm", "-f", tag], capture_output=True)


def build_twice_at_most(tmp_path: Path, step: str, fail_first: bool) -> tuple[int | None, list[str], str]:
    """`stream_build` of `FROM <sandbox image>` + `step` through the logging `docker`: (exit code,
    the builds that ran, the build log)."""
    from repofix.evaluation.images import stream_build

    context = tmp_path / "context"
    context.mkdir()
    (context / "Dockerfile").write_text(f"FROM {DEFAULT_IMAGE}\n{step}\n")
    runs, tag = tmp_path / "builds", f"repofix-test-retry:{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "PATH": docker_on_path(tmp_path / "bin", runs, fail_first, "build")}
    shown: list[str] = []
    try:
        with (tmp_path / "build.log").open("w") as log:
            code, timed_out = stream_build(
                ["docker", "build", "--force-rm", "-t", tag, str(context)], log, shown.append, env
            )
    finally:
        subprocess.run(["docker", "image", "rm", "-f", tag], capture_output=True)
    assert not timed_out
    return code, runs.read_text().split(), (tmp_path / "build.log").read_text()


@pytest.mark.docker
def test_a_build_whose_step_container_was_not_created_is_built_once_more(tmp_path: Path):
    require_backend("docker")
    code, builds, log = build_twice_at_most(tmp_path, "RUN true", fail_first=True)
    assert code == 0 and builds == ["build", "build"]  # the refused one, then one that worked
    assert "could not create a step's container; nothing ran in it: building once more" in log


@pytest.mark.docker
def test_a_step_that_runs_a_missing_program_fails_after_two_builds(tmp_path: Path):
    require_backend("docker")
    code, builds, log = build_twice_at_most(tmp_path, 'RUN ["no-such-program"]', fail_first=False)
    assert code != 0 and builds == ["build", "build"]
    assert log.count('"no-such-program": executable file not found') == 2  # the same answer twice


@pytest.mark.docker
def test_a_failing_step_that_ran_is_built_once(tmp_path: Path):
    require_backend("docker")
    code, builds, log = build_twice_at_most(tmp_path, "RUN exit 3", fail_first=False)
    assert code != 0 and builds == ["build"] and "building once more" not in log


def test_a_build_whose_output_cannot_be_shown_is_ended_not_left_running(tmp_path):
    """The build's output loop raising (the log's disk full, Ctrl-C) kills and reaps the build."""
    from repofix.evaluation.images import _build_once

    pid_file = tmp_path / "pid"
    build = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); print('[build_base] step', flush=True); time.sleep(120)"

    def show(line: str) -> None:
        raise KeyboardInterrupt  # what a Ctrl-C during the build does here

    with open(tmp_path / "build.log", "w") as log, pytest.raises(KeyboardInterrupt):
        _build_once([sys.executable, "-c", build], log, show, None)
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):  # killed and reaped: not even a zombie left
        os.kill(pid, 0)
