"""`repofix eval run --executor ray` on a real local Ray cluster (a head and a worker node, each
started with `ray start` and its own resources) with real Docker sandboxes: the same verdicts as
the local executor, a lost worker node, Ctrl-C, a killed head and --resume, time limits, and no
container left behind by any of them."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest

from repofix.evaluation.store import ResultsStore
from tests.conftest import require_backend
from tests.ray_cluster import ROOT, LocalRayCluster

BUNDLED = ROOT / "task_specs" / "swe"
SUBSET = ["calc-power-assoc", "csv-where-comparisons", "semver-prerelease-order"]
CLI = [sys.executable, "-c", "from repofix.cli import main; main()", "eval", "run"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    require_backend("docker")
    if importlib.util.find_spec("ray") is None:
        if os.environ.get("CI"):
            pytest.fail("ray is not installed (scripts/install.sh installs repofix[ray])")
        pytest.skip("ray is not installed: pip install -e '.[ray]'")
    cluster = LocalRayCluster(tmp_path_factory.mktemp("ray-cluster"))
    try:
        cluster.start_node({"repofix_head": 1})
        cluster.start_node({"repofix_worker": 1})
        yield cluster
    finally:
        cluster.stop()  # even when a test (or starting the cluster) failed


@pytest.fixture
def slow_tasks(tmp_path: Path) -> Path:
    """Three bundled tasks whose test runs take a few seconds more (a sleeping conftest.py), so
    that a node, the head or Ctrl-C can be made to hit them mid-run."""
    folder = tmp_path / "slow"
    for n, name in enumerate(SUBSET, 1):
        task = folder / f"slow-{n}"
        shutil.copytree(BUNDLED / name, task, ignore=shutil.ignore_patterns("__pycache__"))
        spec = task / "task.yaml"
        spec.write_text(
            re.sub(r"(?m)^id: .*$", f"id: slow-{n}", spec.read_text(encoding="utf-8")), encoding="utf-8"
        )
        (task / "repo" / "conftest.py").write_text("import time\n\ntime.sleep(6)\n", encoding="utf-8")
    return folder


def run(*args: str, **popen) -> subprocess.Popen:
    return subprocess.Popen(
        [*CLI, *args],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        **popen,
    )


def finish(process: subprocess.Popen, timeout: float = 300) -> tuple[int, str]:
    output, _ = process.communicate(timeout=timeout)
    return process.returncode, output


def verdicts(out: Path) -> dict[str, str]:
    with ResultsStore(out) as store:
        return {task_id: result.status.value for task_id, result in store.latest().items()}


def attempts(out: Path) -> Counter:
    with sqlite3.connect(out / "results.sqlite") as db:
        return Counter(dict(db.execute("SELECT task_id, COUNT(*) FROM results GROUP BY task_id").fetchall()))


def containers() -> dict[str, int]:
    """Every repofix sandbox container on the engine: id -> owner pid."""
    listed = subprocess.run(
        [
            "docker",
            "ps",
            "-a",
            "--filter",
            "label=org.repofix.sandbox",
            "--format",
            '{{.ID}} {{.Label "org.repofix.owner-pid"}}',
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    found = {}
    for line in listed.stdout.splitlines():
        cid, _, owner = line.partition(" ")
        found[cid] = int(owner) if owner.strip().isdigit() else 0
    return found


def leaked(cluster: LocalRayCluster) -> dict[str, int]:
    """Containers owned by any repofix worker process this cluster has had."""
    ours = set(cluster.worker_pids())
    return {cid: pid for cid, pid in containers().items() if pid in ours}


def wait_for_sandbox(
    cluster: LocalRayCluster, process: subprocess.Popen, before: set[str], node: int | None = None
) -> None:
    """Until a task of `process` is mid-grading (a sandbox not among `before`, the containers listed
    before it started, exists), on `node` if given: a container an earlier run's worker (the same
    Ray worker process) left behind is not this run's. On a busy machine one poll takes seconds, so
    the run may have ended meanwhile: the caller checks it is still going before it signals."""
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        owners = set(cluster.pids(node)) if node is not None else set(cluster.worker_pids())
        if owners & {pid for cid, pid in containers().items() if cid not in before}:
            return
        assert process.poll() is None, process.communicate()[0]
        time.sleep(0.3)
    pytest.fail("no task started grading within 180 s")


@pytest.mark.timeout(900)
@pytest.mark.parametrize(
    ("mode", "client"), [("gold", False), ("empty", True)], ids=["gold", "empty-ray-client"]
)
def test_bundled_tasks_through_ray_get_the_local_executors_verdicts(
    cluster, tmp_path: Path, mode: str, client: bool
):
    """--gold joins the cluster as a driver on its head node (HOST:PORT); --empty through Ray Client
    (ray://HOST:PORT), as from a laptop outside the cluster."""
    ids = [arg for name in SUBSET for arg in ("--ids", name)]
    local = run(str(BUNDLED), f"--{mode}", *ids, "-j", "2", "--out", str(tmp_path / "local"))
    code, output = finish(local)
    assert code == 0, output
    address = cluster.client_address if client else cluster.address
    on_ray = run(
        str(BUNDLED),
        f"--{mode}",
        *ids,
        "--executor",
        "ray",
        "--address",
        address,
        "--out",
        str(tmp_path / "ray"),
    )
    code, output = finish(on_ray)
    assert code == 0, output
    expected = "resolved" if mode == "gold" else "unresolved"
    assert verdicts(tmp_path / "ray") == verdicts(tmp_path / "local") == dict.fromkeys(SUBSET, expected)
    assert attempts(tmp_path / "ray") == Counter(dict.fromkeys(SUBSET, 1))
    # Both nodes did work, and each task's test log came back to the head's run folder.
    last = [line for line in output.splitlines() if line.startswith("ray: 127.0.0.2 done")][-1]
    assert re.search(r"127\.0\.0\.2 done [1-9]", last) and re.search(r"127\.0\.0\.3 done [1-9]", last), last
    for name in SUBSET:
        assert (tmp_path / "ray" / "tasks" / name / "tests-001.log").stat().st_size > 0
    assert "report.md" in output and (tmp_path / "ray" / "report.md").is_file()
    assert leaked(cluster) == {}


@pytest.mark.timeout(900)
def test_ctrl_c_and_a_killed_head_lose_nothing_and_resume_grades_each_task_once(
    cluster, slow_tasks, tmp_path
):
    out = tmp_path / "run"
    # tasks long enough that a busy machine's slow polls (docker ps, /proc) still see one mid-run:
    # with 6 s each, a run was seen to end before Ctrl-C could be sent, and exit 0
    for conftest in slow_tasks.glob("*/repo/conftest.py"):
        conftest.write_text("import time\n\ntime.sleep(20)\n", encoding="utf-8")
    common = [str(slow_tasks), "--gold", "--executor", "ray", "--address", cluster.address, "--out", str(out)]
    before = set(containers())
    first = run(*common)
    wait_for_sandbox(cluster, first, before)
    assert first.poll() is None, "the run ended before Ctrl-C could be sent"
    first.send_signal(signal.SIGINT)
    code, output = finish(first, timeout=120)
    assert code == 130, output
    assert "--resume" in output
    assert leaked(cluster) == {}  # Ctrl-C cancelled the tasks and their sandboxes are gone

    before = set(containers())
    second = run(*common, "--resume")
    wait_for_sandbox(cluster, second, before)
    second.kill()  # the head dies at once: no cleanup of its own
    second.wait(timeout=60)

    code, output = finish(run(*common, "--resume"))
    assert code == 0, output
    assert verdicts(out) == {f"slow-{n}": "resolved" for n in (1, 2, 3)}
    assert attempts(out) == Counter({f"slow-{n}": 1 for n in (1, 2, 3)})  # never counted twice
    assert leaked(cluster) == {}  # what the killed head's workers left was swept


def ignoring_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def read_until(process: subprocess.Popen, start: str, seen: list[str]) -> None:
    """Read the run's output into `seen` until a line that starts with `start`."""
    assert process.stdout is not None
    while not seen or not seen[-1].startswith(start):
        line = process.stdout.readline()
        assert line, "".join(seen)  # the run ended first
        seen.append(line)


@pytest.mark.timeout(600)
@pytest.mark.parametrize(
    ("moment", "again"), [("evaluating ", False), ("ray: ", True)], ids=["joining", "dispatching"]
)
def test_ctrl_c_stops_the_run_at_once_even_when_it_was_started_with_sigint_ignored(
    cluster, slow_tasks, tmp_path, moment, again
):
    """A script's `cmd &` (no job control: a CI run started in the background) starts its command
    with SIGINT ignored; the head sets its own handler, so SIGINT still stops it, sent at its earliest
    moments: as it joins the cluster (after its first line), or as it starts handing out tasks, and
    then again while it cancels them, which does not cut the cleanup short."""
    out = tmp_path / "run"
    common = [str(slow_tasks), "--gold", "--executor", "ray", "--address", cluster.address, "--out", str(out)]
    process = run(*common, preexec_fn=ignoring_sigint)
    seen: list[str] = []
    read_until(process, moment, seen)
    process.send_signal(signal.SIGINT)
    if again:
        read_until(process, "ray: stopping", seen)
        process.send_signal(signal.SIGINT)
    code, output = finish(process, timeout=180)
    assert code == 130, "".join(seen) + output
    assert "--resume" in output
    assert leaked(cluster) == {}


@pytest.mark.timeout(600)
def test_a_task_over_its_time_limit_is_stopped_on_its_node_with_its_sandbox(cluster, slow_tasks, tmp_path):
    (slow_tasks / "slow-1" / "repo" / "conftest.py").write_text("import time\n\ntime.sleep(600)\n")
    process = run(
        str(slow_tasks),
        "--gold",
        "--ids",
        "slow-1",
        "--executor",
        "ray",
        "--address",
        cluster.address,
        "--task-limit",
        "5",
        "--timeout",
        "900",
        "--out",
        str(tmp_path / "run"),
    )
    code, output = finish(process)
    assert code == 1, output
    with ResultsStore(tmp_path / "run") as store:
        result = store.latest()["slow-1"]
    assert result.status.value == "timeout"
    assert "time limit of 5s" in result.detail
    assert leaked(cluster) == {}


@pytest.mark.timeout(900)
def test_an_environment_image_is_built_once_per_host_and_reused(cluster, tmp_path: Path):
    """Two tasks of one recipe start at once on the two nodes (one Docker engine here): one builds
    the image, the other waits for it and reuses it."""
    folder, marker = tmp_path / "env", uuid.uuid4().hex
    for n in (1, 2):
        task = folder / f"env-{n}"
        shutil.copytree(BUNDLED / "calc-power-assoc", task, ignore=shutil.ignore_patterns("__pycache__"))
        spec = task / "task.yaml"
        text = re.sub(r"(?m)^id: .*$", f"id: env-{n}", spec.read_text(encoding="utf-8"))
        text = text.replace(
            'environment: {python: "3.11", setup: []}',
            f'environment: {{python: "3.11", setup: ["echo {marker}"]}}',
        )
        spec.write_text(text.replace("repo: {path: repo}", "repo: {path: ../env-1/repo}"), encoding="utf-8")
    out = tmp_path / "run"
    try:
        code, output = finish(
            run(str(folder), "--gold", "--executor", "ray", "--address", cluster.address, "--out", str(out))
        )
        assert code == 0, output
        assert verdicts(out) == {"env-1": "resolved", "env-2": "resolved"}
        assert len(re.findall(r"\] building environment repofix-env:", output)) == 1, output
        assert len(list((out / "logs").glob("build-*.log"))) == 1  # the build log came back to the head
    finally:
        for log in (out / "logs").glob("build-*.log"):
            subprocess.run(
                ["docker", "image", "rm", "-f", f"repofix-env:{log.stem.removeprefix('build-')}"],
                capture_output=True,
            )


@pytest.mark.timeout(900)
def test_a_lost_worker_node_has_its_task_retried_elsewhere_and_counted_once(cluster, slow_tasks, tmp_path):
    """Runs last: the cluster has one node less afterwards."""
    out = tmp_path / "run"
    before = set(containers())
    process = run(
        str(slow_tasks), "--gold", "--executor", "ray", "--address", cluster.address, "--out", str(out)
    )
    wait_for_sandbox(cluster, process, before, node=1)  # a task is mid-grading on the worker node
    cluster.kill_node(1)
    code, output = finish(process)
    assert code == 0, output
    assert verdicts(out) == {f"slow-{n}": "resolved" for n in (1, 2, 3)}
    assert attempts(out) == Counter({f"slow-{n}": 1 for n in (1, 2, 3)})
    assert leaked(cluster) == {}  # the lost node's sandbox was swept (same Docker engine here)


def test_without_ray_the_error_says_how_to_install_it(tmp_path: Path):
    blocked = "import sys; sys.modules['ray'] = None; from repofix.cli import main; main()"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            blocked,
            "eval",
            "run",
            str(BUNDLED),
            "--gold",
            "--executor",
            "ray",
            "--out",
            str(tmp_path / "run"),
        ],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "pip install 'repofix[ray]'" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "run").exists()


def test_address_needs_the_ray_executor(tmp_path: Path):
    done = subprocess.run(
        [*CLI, str(BUNDLED), "--gold", "--address", "auto", "--out", str(tmp_path / "run")],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "--address needs --executor ray" in done.stderr


@pytest.mark.parametrize("address", ["127.0.0.2:1", "ray://127.0.0.2:1", "no-port"])
def test_an_address_where_no_cluster_answers_is_a_clear_error(tmp_path: Path, address: str):
    if importlib.util.find_spec("ray") is None:
        pytest.skip("ray is not installed")
    done = subprocess.run(
        [
            *CLI,
            str(BUNDLED),
            "--gold",
            "--executor",
            "ray",
            "--address",
            address,
            "--out",
            str(tmp_path / "run"),
        ],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert ("no Ray cluster answers at" in done.stderr) or ("expected auto, HOST:PORT" in done.stderr), (
        done.stderr
    )
