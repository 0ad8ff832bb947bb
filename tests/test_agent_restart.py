"""State survives timeouts and crashes, through the real command on both isolating backends: a shell
timeout keeps the Python namespace; a model that kills every process (`kill -9 -1`, the session
runner included) gets its sandbox restarted from the current checkpoint, is told, and the run goes
on; a model that keeps doing it ends the run with its own stop reason."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from agent_helpers import RIGHT_FIX, WRONG_FIX, act, clamp_repo, script
from conftest import backend_params, require_backend

from repofix.agent.recover import MAX_RESTARTS

ROOT = Path(__file__).resolve().parents[1]
ISOLATING = backend_params(("docker", "bwrap"))
# What the killing command leaves running: no process of this name may outlive the run. Unique to
# this test process, so that nobody else's `sleep` on the machine (another run of this suite) counts.
SLEEPER = f"sleep {random.SystemRandom().randrange(10**8, 10**9)}"
KILL_ALL = act("shell", "Stop everything.", command=f"echo junk > pkg/junk.py; kill -9 -1; {SLEEPER}")


def repofix(home: Path, *args: str) -> tuple[subprocess.CompletedProcess, int]:
    """The real command in a child process; returns its result and its pid (the sandbox's owner)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REPOFIX_")}
    env.update(REPOFIX_HOME=str(home), PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-c", "from repofix.cli import main; main()", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    out, err = proc.communicate(timeout=600)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err), proc.pid


def trajectory(outcome: dict) -> dict:
    return json.loads(Path(outcome["trajectory_file"]).read_text())


def leftovers(backend: str, owner: int) -> list[str]:
    """Sandbox processes or containers still there after the run."""
    found = [
        line
        for line in subprocess.run(
            ["ps", "-ww", "-eo", "args="], capture_output=True, text=True
        ).stdout.splitlines()
        if line.strip() == SLEEPER
    ]
    if backend == "docker":
        import docker

        found += [
            c.name
            for c in docker.from_env().containers.list(
                all=True, filters={"label": f"org.repofix.owner-pid={owner}"}
            )
        ]
    return found


@pytest.mark.parametrize("backend", ISOLATING)
def test_shell_timeout_keeps_the_python_variables(tmp_path, backend):
    require_backend(backend)
    repo = clamp_repo(tmp_path / "repo")
    model = script(
        tmp_path / "s.yaml",
        [
            act("python", code="x = 41"),
            act("shell", command="sleep 100", timeout=2),
            act("python", code="print(x + 1)"),
        ],
    )
    result, _ = repofix(
        tmp_path / "home",
        "fix",
        "--repo",
        str(repo),
        "--model",
        model,
        "--sandbox",
        backend,
        "--max-steps",
        "3",
        "--json",
    )
    assert result.returncode == 1, result.stderr  # the step limit: nothing was fixed
    steps = trajectory(json.loads(result.stdout))["steps"]
    assert "timed out" in steps[1]["observation"]
    assert steps[2]["observation"].splitlines()[0] == "42", steps[2]["observation"]
    assert "variables are gone" not in steps[2]["observation"]


@pytest.mark.parametrize("backend", ISOLATING)
def test_killing_every_process_restarts_the_sandbox_from_the_checkpoint(tmp_path, backend):
    """The fix is two edits, the first checkpointed before the model kills everything: the second
    edit applies only if the restarted sandbox holds the first. What the killing step itself wrote
    (pkg/junk.py) was never checkpointed and is gone."""
    require_backend(backend)
    repo = clamp_repo(tmp_path / "repo")
    model = script(tmp_path / "s.yaml", [WRONG_FIX, KILL_ALL, RIGHT_FIX, act("submit", summary="fixed")])
    result, owner = repofix(
        tmp_path / "home", "fix", "--repo", str(repo), "--model", model, "--sandbox", backend, "--json"
    )
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout)
    assert outcome["status"] == "done" and outcome["reason"] == "done"
    assert outcome["files_changed"] == ["pkg/mathx.py"] and "+    if x > hi:" in outcome["patch"]
    record = trajectory(outcome)
    told = record["steps"][1]["observation"]
    assert "the sandbox's processes were all killed" in told and "restarted it from checkpoint 1" in told
    assert "Shell and Python state are gone" in told
    assert [(r["step"], r["checkpoint"]) for r in record["restarts"]] == [(2, 1)]
    assert "Edit applied: pkg/mathx.py" in record["steps"][2]["observation"]
    assert "restarting it from checkpoint 1" in result.stderr  # the person watching is told too
    assert leftovers(backend, owner) == []


@pytest.mark.parametrize("backend", ISOLATING)
def test_a_model_that_keeps_killing_everything_stops_with_a_reason(tmp_path, backend):
    require_backend(backend)
    repo = clamp_repo(tmp_path / "repo")
    model = script(tmp_path / "s.yaml", [KILL_ALL] * (MAX_RESTARTS + 2))
    result, owner = repofix(
        tmp_path / "home", "fix", "--repo", str(repo), "--model", model, "--sandbox", backend, "--json"
    )
    assert result.returncode == 1, result.stderr
    outcome = json.loads(result.stdout)
    assert outcome["status"] == "not_done" and outcome["reason"] == "sandbox_killed"
    assert f"restarted the sandbox {MAX_RESTARTS} times (the limit)" in outcome["message"]
    record = trajectory(outcome)
    assert len(record["steps"]) == MAX_RESTARTS + 1 and len(record["restarts"]) == MAX_RESTARTS
    assert "The run stops here" in record["steps"][-1]["observation"]
    assert outcome["files_changed"] == []
    assert leftovers(backend, owner) == []
