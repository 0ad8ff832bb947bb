"""Environments on Docker: an image per recipe, built once with network, tasks run from it with
the network off; a failed build is an infrastructure error (env_failed), not "unresolved"."""

from __future__ import annotations

import re
import subprocess
import threading
import time
import uuid
from pathlib import Path

import pytest

from repofix.evaluation.candidates import GoldSource
from repofix.evaluation.environments import Environments
from repofix.evaluation.model import Status
from repofix.evaluation.progress import Progress
from repofix.evaluation.runner import RunOptions, run_evaluation
from repofix.evaluation.store import ResultsStore
from tests.conftest import TEST_LIMITS, containers_running, require_backend
from tests.test_evaluation_grading import BUGGY, FIXED, HIDDEN_TESTS, VISIBLE_TESTS, diff, make_task

pytestmark = pytest.mark.docker


def test_image_per_recipe_built_once_and_build_failure_is_an_infrastructure_error(tmp_path: Path):
    require_backend("docker")
    marker = uuid.uuid4().hex
    checks = HIDDEN_TESTS + (
        "\n\ndef test_environment():\n"
        "    import os\n"
        f"    assert open('/opt/venv/repofix-marker.txt').read() == {marker!r}\n"
        "    assert os.listdir('/sys/class/net') == ['lo']  # network cut after the build\n"
    )
    setup = [
        "test -f mathx.py",  # the repository is there during setup
        f"python3 -c \"open('/opt/venv/repofix-marker.txt', 'w').write('{marker}')\"",
    ]
    common = dict(
        environment={"python": "3.11", "setup": setup},
        test_patch=diff("tests/test_mathx.py", VISIBLE_TESTS, checks),
        FAIL_TO_PASS=["tests/test_mathx.py::test_add", "tests/test_mathx.py::test_environment"],
        patch=diff("mathx.py", BUGGY, FIXED),
    )
    tasks = [
        make_task(id="env-a", **common),
        make_task(id="env-b", **common),
        make_task(id="env-broken", environment={"setup": [f"echo {marker}", "exit 3"]}),
    ]
    notes: list[str] = []
    environments = Environments("docker", TEST_LIMITS, tmp_path / "logs", echo=notes.append)
    tags = {environments.describe(t).removeprefix("docker:") for t in tasks}
    assert len(tags) == 2  # one recipe for env-a and env-b, another for the broken one
    try:
        with ResultsStore(tmp_path / "run") as store:
            outcome = run_evaluation(
                tasks,
                GoldSource(),
                store,
                environments,
                tmp_path / "run",
                RunOptions(jobs=2, timeout=120),
                Progress(len(tasks), quiet=True),
            )
            results = store.latest()
        assert outcome.graded == 3 and not outcome.stopped
        assert results["env-a"].status is Status.RESOLVED, results["env-a"].detail
        assert results["env-b"].status is Status.RESOLVED, results["env-b"].detail
        broken = results["env-broken"]
        assert broken.status is Status.ENV_FAILED and broken.status.infra
        assert "docker build exit" in broken.detail
        assert re.search(r"(non-zero code|exit code): 3", broken.detail), (
            broken.detail
        )  # the cause, not only the log
        assert "exit 3" in Path(broken.log_path).read_text()
        assert len([n for n in notes if n.startswith("building environment")]) == 2  # each recipe once
    finally:
        for tag in tags:
            subprocess.run(["docker", "image", "rm", "-f", tag], capture_output=True)


def test_a_hanging_image_build_is_stopped_at_the_time_limit(tmp_path: Path, monkeypatch):
    require_backend("docker")
    from repofix.evaluation import images

    monkeypatch.setattr(images, "BUILD_TIMEOUT", 5.0)
    marker = uuid.uuid4().hex  # in the hanging step's command, so the test sees only its own build container
    task = make_task(id="env-hangs", environment={"setup": [f"sleep 600 # {marker}"]})
    environments = Environments("docker", TEST_LIMITS, tmp_path / "logs", echo=lambda note: None)
    tag = environments.describe(task).removeprefix("docker:")

    def build_containers() -> list[str]:
        return containers_running(marker)

    seen: set[str] = set()  # the build container, watched while it hangs: proves the filter finds it
    building = threading.Event()

    def watch() -> None:
        while not building.is_set():
            seen.update(build_containers())
            time.sleep(0.5)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        with ResultsStore(tmp_path / "run") as store:
            run_evaluation(
                [task],
                GoldSource(),
                store,
                environments,
                tmp_path / "run",
                RunOptions(jobs=1, timeout=60),
                Progress(1, quiet=True),
            )
            result = store.latest()["env-hangs"]
        building.set()
        watcher.join()  # before any assertion: `seen` is complete and the thread is gone
        assert seen, "the hanging build's container was never seen"
        assert result.status is Status.ENV_FAILED
        assert "was stopped" in result.detail
        for _ in range(30):  # the daemon cancels the build once its client is gone
            if not build_containers():
                break
            time.sleep(1)
        assert build_containers() == []  # no build container left behind
    finally:
        building.set()  # the watcher stops however the evaluation ended
        subprocess.run(["docker", "image", "rm", "-f", tag], capture_output=True)
