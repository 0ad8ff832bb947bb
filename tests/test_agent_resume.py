"""kill -9 in the middle of a step, then `repofix resume`: the run finishes, no checkpoint made
before the kill is lost, and no sandbox process outlives the killed repofix."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from agent_helpers import RIGHT_FIX, WRONG_FIX, act, clamp_repo, script
from conftest import require_backend

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "from repofix.cli import main; main()"]


def processes() -> dict[int, tuple[int, str, str]]:
    """pid -> (parent pid, state, command line) of every live process on this machine."""
    table = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue  # it ended while we looked
        fields = stat[stat.rindex(")") + 2 :].split()
        table[int(entry.name)] = (int(fields[1]), fields[0], cmdline)
    return table


def descendants(root: int) -> dict[int, str]:
    table = processes()
    found, frontier = {}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, _state, cmdline) in table.items():
            if ppid == parent and pid not in found:
                found[pid] = cmdline
                frontier.append(pid)
    return found


def alive(tree: dict[int, str]) -> list[int]:
    """The processes of `tree` still running (a zombie holds nothing; a reused pid has another command)."""
    table = processes()
    return [
        pid
        for pid, cmdline in tree.items()
        if pid in table and table[pid][1] != "Z" and table[pid][2] == cmdline
    ]


def wait_for(condition, what: str, timeout: float = 180.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    pytest.fail(f"timed out waiting for {what}")


def sleeping_tree(root: int) -> dict[int, str] | None:
    """The process tree under `root` once a `sleep` runs in it (the step to interrupt), else None."""
    tree = descendants(root)
    return tree if any(cmdline.startswith("sleep") for cmdline in tree.values()) else None


def trajectory_steps(home: Path) -> int:
    for path in home.glob("runs/*/trajectory.json"):
        try:
            return len(json.loads(path.read_text())["steps"])
        except (ValueError, KeyError):
            return 0  # never half-written (write-then-rename), but be safe
    return 0


def checkpoints(run_id: str, env: dict[str, str]) -> list[str]:
    """`repofix checkpoints RUN` as (number, commit) tokens per line."""
    listed = subprocess.run(
        [*CLI, "checkpoints", run_id], env=env, capture_output=True, text=True, check=True, cwd=ROOT
    )
    return [" ".join(line.split()[0:1] + line.split()[4:5]) for line in listed.stdout.splitlines() if line]


@pytest.mark.bwrap
def test_kill_9_during_a_step_then_resume_finishes(tmp_path):
    require_backend("bwrap")
    repo = clamp_repo(tmp_path / "repo")
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith("REPOFIX_")}
    # the killed sandbox's scratch folder stays behind (`repofix sandbox prune` removes it): keep it in tmp
    env.update(REPOFIX_HOME=str(home), REPOFIX_SCRATCH=str(tmp_path / "scratch"), PYTHONPATH=str(ROOT))
    replies = [WRONG_FIX, act("shell", "Let it settle.", command="sleep 4"), RIGHT_FIX]
    command = [
        *CLI,
        "fix",
        "--repo",
        str(repo),
        "--model",
        script(tmp_path / "s.yaml", replies),
        "--sandbox",
        "bwrap",
    ]
    with open(tmp_path / "first.log", "wb") as log:
        first = subprocess.Popen(
            command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, cwd=ROOT
        )
    try:
        wait_for(lambda: trajectory_steps(home) >= 1, "the first recorded step")
        tree = wait_for(lambda: sleeping_tree(first.pid), "step 2's sleep to start")
        assert any("bwrap" in c for c in tree.values())
        run_id = next(home.glob("runs/*")).name
        before_kill = checkpoints(run_id, env)
        assert len(before_kill) == 2  # the start and step 1's edit
        os.killpg(first.pid, signal.SIGKILL)
        assert first.wait(timeout=30) == -signal.SIGKILL
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
    # bwrap runs in its own session, so only --die-with-parent ends it: nothing may outlive repofix
    deadline = time.monotonic() + 15
    while alive(tree) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert alive(tree) == [], {pid: tree[pid] for pid in alive(tree)}

    resumed = subprocess.run(
        [*CLI, "resume", run_id, "--json"], env=env, capture_output=True, text=True, timeout=600, cwd=ROOT
    )
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    outcome = json.loads(resumed.stdout)
    assert outcome["status"] == "done" and outcome["run_id"] == run_id
    assert "+    if x > hi:" in outcome["patch"]
    after = checkpoints(run_id, env)
    assert after[: len(before_kill)] == before_kill and len(after) > len(before_kill)
    record = json.loads((home / "runs" / run_id / "trajectory.json").read_text())
    assert record["status"] == "done" and record["resumed_at_step"] == 1
    assert [s["action"] for s in record["steps"]] == ["edit", "shell", "edit"]
    assert "still failing" in record["steps"][0]["observation"]
