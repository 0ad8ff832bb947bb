"""State that never lies: a run whose process is gone is `interrupted` (owner pid and its start time, so a
reused pid is not mistaken for it), `runs prune` treats it as an old run, and a run killed before its
baseline resumes by taking the baseline again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from agent_helpers import DIRECT_FIX, clamp_repo, script
from click.testing import CliRunner
from conftest import require_backend
from test_agent_resume import sleeping_tree, wait_for
from test_lifecycle_resume import CLI, ROOT, env_for

from repofix.agent.trajectory import Trajectory
from repofix.atomic import write_json_atomic
from repofix.cli import main
from repofix.runs import create_run
from repofix.runs.listing import list_runs, prune
from repofix.runs.owner import me, start_time
from repofix.workspace import Workspace

CHILD = """
import sys, time
from repofix.runs import create_run
run = create_run(sys.argv[1], label="killed")
run.update_state(status="running")
print(run.run_id, flush=True)
time.sleep(60)
"""


def status_of(home: Path) -> dict[str, str]:
    return {run.run_id: run.status for run in list_runs(home)}


def test_a_killed_run_is_interrupted_not_running(tmp_path):
    home = tmp_path / "home"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(home)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    run_id = child.stdout.readline().strip()
    assert status_of(home) == {run_id: "running"}  # its owner is alive
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert status_of(home) == {run_id: "interrupted"}
    out = CliRunner().invoke(main, ["runs", "--home", str(home)])
    assert out.exit_code == 0 and "interrupted" in out.output and "running" not in out.output


def test_a_reused_pid_is_not_the_owner(tmp_path):
    home = tmp_path / "home"
    mine = create_run(home, label="mine")
    mine.update_state(status="running")
    other = create_run(home, label="reused")  # the recorded pid now belongs to another process (this one)
    other.update_state(status="running", owner={"pid": os.getpid(), "start": start_time(os.getpid()) - 1})
    legacy = create_run(home, label="legacy")  # written before owners were recorded
    write_json_atomic(legacy.state_file, {**legacy.read_state(), "owner": None, "status": "acquired"})
    assert status_of(home) == {
        mine.run_id: "running",
        other.run_id: "interrupted",
        legacy.run_id: "interrupted",
    }
    assert mine.read_state()["owner"] == me()


def test_prune_removes_old_interrupted_runs_but_not_live_ones(tmp_path):
    home = tmp_path / "home"
    old = time.time() - 40 * 86400
    dead, live = create_run(home, label="dead"), create_run(home, label="live")
    write_json_atomic(
        dead.state_file,
        {
            **dead.read_state(),
            "status": "running",
            "owner": {"pid": 1, "start": -1},
            "created": old,
            "updated": old,
        },
    )
    write_json_atomic(
        live.state_file, {**live.read_state(), "status": "running", "created": old, "updated": old}
    )
    assert prune(home, keep=0) == [dead.run_id]
    assert not dead.root.exists() and live.root.exists()


@pytest.mark.bwrap
def test_killed_before_the_baseline_then_resumed(tmp_path):
    require_backend("bwrap")
    repo, home = clamp_repo(tmp_path / "repo"), tmp_path / "home"
    env = env_for(home, REPOFIX_SCRATCH=str(tmp_path / "scratch"))
    model = script(tmp_path / "s.yaml", [DIRECT_FIX])
    command = [*CLI, "fix", "--repo", str(repo), "-m", model, "--sandbox", "bwrap", "--setup", "sleep 3"]
    first = subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        cwd=ROOT,
    )
    try:
        wait_for(lambda: sleeping_tree(first.pid), "the setup command to start")
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
    (run,) = list_runs(home)
    assert run.status == "interrupted" and run.checkpoint == 0
    resumed = subprocess.run(
        [*CLI, "resume", run.run_id, "--json"], env=env, capture_output=True, text=True, timeout=600, cwd=ROOT
    )
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    outcome = json.loads(resumed.stdout)
    assert outcome["status"] == "done" and outcome["tests_before"] == "1 passed, 2 failed of 3"
    assert status_of(home) == {run.run_id: "resolved"}


def test_resume_of_a_run_still_running_is_refused_and_changes_nothing(tmp_path):
    home = tmp_path / "home"
    ws = Workspace.create(
        clamp_repo(tmp_path / "repo"), home=home, label="live"
    )  # owned by this live process
    Trajectory.start(
        ws.folder.trajectory_file,
        run_id=ws.run_id,
        mode="fix",
        task="",
        model="builtin",
        targets=[],
        settings={},
    )
    ws.folder.update_state(status="running")
    before = {p.name: p.read_bytes() for p in ws.folder.root.iterdir() if p.is_file()}
    refused = subprocess.run(
        [*CLI, "resume", ws.run_id], env=env_for(home), capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert refused.returncode == 2 and f"is still running (process {os.getpid()})" in refused.stderr, (
        refused.stderr
    )
    assert {p.name: p.read_bytes() for p in ws.folder.root.iterdir() if p.is_file()} == before


@pytest.mark.parametrize(
    "status, command, said",
    [
        ("running", ["continue", "RUN", "more"], "has not finished; `repofix resume"),
        ("done", ["continue", "RUN", "more"], "ended without a conversation"),
        ("done", ["resume", "RUN"], "already finished"),
    ],
)
def test_refused_commands_on_a_dead_run_change_nothing(tmp_path, status, command, said):
    home = tmp_path / "home"
    ws = Workspace.create(clamp_repo(tmp_path / "repo"), home=home, label="dead")
    Trajectory.start(
        ws.folder.trajectory_file,
        run_id=ws.run_id,
        mode="fix",
        task="",
        model="builtin",
        targets=[],
        settings={},
    ).save(status=status, reason="nothing_to_fix", progress={})
    ws.folder.update_state(
        status="running" if status == "running" else "resolved", owner={"pid": 1, "start": -1}
    )
    before = {p.name: p.read_bytes() for p in ws.folder.root.iterdir() if p.is_file()}
    refused = subprocess.run(
        [*CLI, *[ws.run_id if word == "RUN" else word for word in command]],
        env=env_for(home),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert refused.returncode == 2 and said in refused.stderr and "Traceback" not in refused.stderr, (
        refused.stderr
    )
    assert {p.name: p.read_bytes() for p in ws.folder.root.iterdir() if p.is_file()} == before
