"""Limits that hold through the real CLI: the wall-time limit stops a run, and money spent before a
kill -9 still counts after `resume` (two mutants of these rules survived the old suite)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from agent_helpers import DIRECT_FIX, RIGHT_FIX, WRONG_FIX, act, clamp_repo, script
from conftest import require_backend
from test_agent_resume import sleeping_tree, trajectory_steps, wait_for

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "from repofix.cli import main; main()"]

pytestmark = pytest.mark.bwrap


def environment(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REPOFIX_")}
    env.update(
        REPOFIX_HOME=str(tmp_path / "home"), REPOFIX_SCRATCH=str(tmp_path / "scratch"), PYTHONPATH=str(ROOT)
    )
    return env


def costing(reply: dict, cost: float) -> dict:
    return {**reply, "cost": cost}


def test_the_wall_time_limit_stops_the_run(tmp_path):
    require_backend("bwrap")
    repo = clamp_repo(tmp_path / "repo")
    # step 1 outlasts the 2-second limit; the fix in step 2 must never be made
    model = script(tmp_path / "s.yaml", [act("shell", "Wait.", command="sleep 3"), DIRECT_FIX])
    result = subprocess.run(
        [
            *CLI,
            "fix",
            "--repo",
            str(repo),
            "--model",
            model,
            "--sandbox",
            "bwrap",
            "--timeout",
            "2",
            "--json",
        ],
        env=environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    outcome = json.loads(result.stdout)
    assert outcome["status"] != "done" and outcome["reason"] == "time_limit"
    assert "time limit" in outcome["message"] and "if x > hi" not in outcome["patch"]


def test_money_spent_before_a_kill_counts_after_resume(tmp_path):
    """Each reply costs $0.02 under a $0.05 cap. Step 1 is recorded, then the run is killed in step 2.
    Resumed with the recorded $0.02, step 2 again ($0.04) fits and step 3 ($0.06) must not be asked for."""
    require_backend("bwrap")
    repo = clamp_repo(tmp_path / "repo")
    env = environment(tmp_path)
    home = tmp_path / "home"
    replies = [
        costing(WRONG_FIX, 0.02),
        costing(act("shell", "Let it settle.", command="sleep 4"), 0.02),
        costing(RIGHT_FIX, 0.02),
    ]
    command = [
        *CLI,
        "fix",
        "--repo",
        str(repo),
        "--model",
        script(tmp_path / "s.yaml", replies),
        "--sandbox",
        "bwrap",
        "--max-cost",
        "0.05",
    ]
    first = subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        cwd=ROOT,
    )
    try:
        wait_for(lambda: trajectory_steps(home) >= 1, "the first recorded step")
        wait_for(lambda: sleeping_tree(first.pid), "step 2's sleep to start")
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(timeout=30)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
    run_id = next(home.glob("runs/*")).name
    resumed = subprocess.run(
        [*CLI, "resume", run_id, "--json"], env=env, capture_output=True, text=True, timeout=600, cwd=ROOT
    )
    assert resumed.returncode == 1, resumed.stdout + resumed.stderr
    outcome = json.loads(resumed.stdout)
    assert outcome["reason"] == "cost_limit" and "if x > hi" not in outcome["patch"]
    record = json.loads((home / "runs" / run_id / "trajectory.json").read_text())
    assert [s["action"] for s in record["steps"]] == ["edit", "shell"]
