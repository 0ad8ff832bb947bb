"""`repofix resume` after a step limit, a cost cap and a provider outage (503s from the local
OpenAI-compatible server), each with the limit raised; `repofix continue` with a follow-up instruction,
delivered as a second commit on the same branch; refused commands leave the run as it was."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from agent_helpers import (
    CLAMP,
    CLAMP_TESTS,
    DIRECT_FIX,
    RIGHT_FIX,
    WRONG_FIX,
    act,
    clamp_repo,
    git,
    make_repo,
    script,
    search_replace,
)
from conftest import require_backend
from openai_server import OpenAIServer, error, text

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "from repofix.cli import main; main()"]
pytestmark = pytest.mark.bwrap


def env_for(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REPOFIX_")}
    env.update(REPOFIX_HOME=str(home), PYTHONPATH=str(ROOT), **extra)
    return env


def repofix(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], env=env, capture_output=True, text=True, timeout=600, cwd=ROOT)


def snapshot(run_dir: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(run_dir.iterdir()) if p.is_file()}


def only_run(home: Path) -> Path:
    (run_dir,) = (home / "runs").iterdir()
    return run_dir


@pytest.fixture
def setup(tmp_path):
    require_backend("bwrap")
    repo = clamp_repo(tmp_path / "repo")
    home = tmp_path / "home"
    return repo, home, env_for(home)


def test_resume_after_the_step_limit(tmp_path, setup):
    repo, home, env = setup
    model = script(tmp_path / "s.yaml", [WRONG_FIX, RIGHT_FIX])
    first = repofix(env, "fix", "--repo", str(repo), "-m", model, "--sandbox", "bwrap", "--max-steps", "1")
    assert first.returncode == 1 and "NOT DONE (step_limit)" in first.stdout, first.stdout + first.stderr
    run_dir = only_run(home)
    assert f"repofix resume {run_dir.name} --max-steps" in first.stdout
    before = snapshot(run_dir)
    refused = repofix(env, "resume", run_dir.name)  # the limit was not raised: it would stop at once
    assert refused.returncode == 2 and "--max-steps" in refused.stderr and "Traceback" not in refused.stderr
    assert snapshot(run_dir) == before  # a refused command changes nothing
    resumed = repofix(env, "resume", run_dir.name, "--max-steps", "3", "--json")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    outcome = json.loads(resumed.stdout)
    assert outcome["status"] == "done" and outcome["steps"] == 2 and outcome["branch"]
    record = json.loads((run_dir / "trajectory.json").read_text())
    assert [s["action"] for s in record["steps"]] == ["edit", "edit"] and record["resumed_at_step"] == 1
    assert "step_limit" in json.dumps(record["messages"][-4:])  # the model was told why it stopped
    assert "+    if x > hi:" in git(repo, "show", outcome["branch"])


def test_resume_after_the_cost_cap(tmp_path, setup):
    repo, home, env = setup
    model = script(tmp_path / "s.yaml", [{**WRONG_FIX, "cost": 0.5}, {**RIGHT_FIX, "cost": 0.5}])
    first = repofix(env, "fix", "--repo", str(repo), "-m", model, "--sandbox", "bwrap", "--max-cost", "0.6")
    assert first.returncode == 1 and "NOT DONE (cost_limit)" in first.stdout, first.stdout + first.stderr
    run_dir = only_run(home)
    assert f"repofix resume {run_dir.name} --max-cost" in first.stdout
    refused = repofix(env, "resume", run_dir.name, "--max-cost", "0.5")
    assert refused.returncode == 2 and "raise the cap" in refused.stderr
    resumed = repofix(env, "resume", run_dir.name, "--max-cost", "2", "--json")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    outcome = json.loads(resumed.stdout)
    assert outcome["status"] == "done" and outcome["cost"] == pytest.approx(1.0)


def test_resume_after_a_provider_outage(tmp_path, setup):
    repo, home, env = setup
    env["OPENAI_API_KEY"] = "sk-test-lifecycle"
    block = "```tool:edit\n" + json.dumps(WRONG_FIX["arguments"]) + "\n```"
    right = "```tool:edit\n" + json.dumps(RIGHT_FIX["arguments"]) + "\n```"
    outage = error(
        503, "The service is temporarily unavailable.", type_="server_error", headers={"retry-after": "0"}
    )
    with OpenAIServer() as server:
        server.add(text(f"Try <=.\n\n{block}"), *[outage] * 5)  # every retry of step 2 meets the outage
        first = repofix(
            env,
            "fix",
            "--repo",
            str(repo),
            "-m",
            "openai/test-model",
            "--api-base",
            server.url,
            "--sandbox",
            "bwrap",
        )
        assert first.returncode == 1 and "NOT DONE (model_error)" in first.stdout, first.stdout + first.stderr
        run_dir = only_run(home)
        assert f"repofix resume {run_dir.name}" in first.stdout
        server.add(text(f"Compare the other way.\n\n{right}"))  # the provider is back
        resumed = repofix(env, "resume", run_dir.name, "--json")
        requests = list(server.requests)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert json.loads(resumed.stdout)["status"] == "done"
    assert "assert 10 == 5" in json.dumps(requests[-1].messages)  # the conversation was kept
    assert "sk-test-lifecycle" not in (run_dir / "trajectory.json").read_text()


RED = act(
    "edit",
    "A test for swapped bounds first.",
    text=search_replace(
        "tests/test_mathx.py",
        "def test_high():",
        "def test_swapped():\n    assert clamp(5, 10, 0) == 5\n\n\ndef test_high():",
    ),
)
SUBMIT_RED = act("submit", "The test fails as it should.", summary="test for swapped bounds")
GREEN = act(
    "edit",
    "Swap them.",
    text=search_replace(
        "pkg/mathx.py",
        "def clamp(x, lo, hi):",
        "def clamp(x, lo, hi):\n    lo, hi = min(lo, hi), max(lo, hi)",
    ),
)


def test_continue_a_finished_run_with_a_follow_up(tmp_path, setup):
    repo, home, env = setup
    model = script(tmp_path / "s.yaml", [DIRECT_FIX, RED, SUBMIT_RED, GREEN])
    first = repofix(env, "fix", "--repo", str(repo), "-m", model, "--sandbox", "bwrap", "--json")
    assert first.returncode == 0, first.stdout + first.stderr
    branch, run_dir = json.loads(first.stdout)["branch"], only_run(home)
    first_commit = git(repo, "rev-parse", branch).strip()
    before = snapshot(run_dir)
    refused = repofix(
        env, "resume", run_dir.name
    )  # finished: resume says to use continue, and changes nothing
    assert refused.returncode == 2 and f"repofix continue {run_dir.name}" in refused.stderr
    assert snapshot(run_dir) == before
    follow = repofix(env, "continue", run_dir.name, "Also accept swapped bounds", "--json")
    assert follow.returncode == 0, follow.stdout + follow.stderr
    outcome = json.loads(follow.stdout)
    assert outcome["status"] == "done" and outcome["branch"] == branch
    assert git(repo, "rev-parse", f"{branch}^").strip() == first_commit  # a second commit on the same branch
    assert git(repo, "log", "-1", "--format=%s", branch).strip() == "Also accept swapped bounds"
    assert "lo, hi = min(lo, hi)" in git(repo, "show", f"{branch}:pkg/mathx.py")
    assert git(repo, "for-each-ref", "--format=%(refname)", "refs/heads/repofix/").split() == [
        f"refs/heads/{branch}"
    ]
    record = json.loads((run_dir / "trajectory.json").read_text())
    assert record["phases"][0]["status"] == "done" and record["task"] == "Also accept swapped bounds"
    assert "if x > hi" in json.dumps(record["messages"])  # the history went with it


def test_resume_a_run_killed_before_its_baseline_with_nothing_to_fix(tmp_path, setup):
    """A run killed between acquisition and its baseline leaves a trajectory with no progress; resumed,
    it takes the baseline now and ends as a new run would: no test fails and no task was described, so
    `nothing_to_fix`, exit 0, nothing delivered (it once crashed delivering checkpoint None: mypy found it)."""
    _, home, env = setup
    repo = make_repo(
        tmp_path / "green",
        {
            "pkg/__init__.py": "",
            "pkg/mathx.py": CLAMP.replace("x < hi", "x > hi"),
            "tests/test_mathx.py": CLAMP_TESTS,
        },
    )
    first = repofix(
        env,
        "fix",
        "--repo",
        str(repo),
        "-m",
        script(tmp_path / "s.yaml", [DIRECT_FIX]),
        "--sandbox",
        "bwrap",
        "--json",
    )
    assert first.returncode == 0 and json.loads(first.stdout)["reason"] == "nothing_to_fix", (
        first.stdout + first.stderr
    )
    run_dir = only_run(home)
    # What the kill leaves: the trajectory as Trajectory.start wrote it, the state `running` (its owner is gone).
    record = json.loads((run_dir / "trajectory.json").read_text())
    for key in ("progress", "message", "reason"):
        record.pop(key, None)
    (run_dir / "trajectory.json").write_text(json.dumps(dict(record, status="running")))
    state = json.loads((run_dir / "state.json").read_text())
    (run_dir / "state.json").write_text(json.dumps(dict(state, status="running")))
    resumed = repofix(env, "resume", run_dir.name, "--json")
    assert resumed.returncode == 0 and "Traceback" not in resumed.stderr, resumed.stdout + resumed.stderr
    outcome = json.loads(resumed.stdout)
    assert (outcome["status"], outcome["reason"]) == ("done", "nothing_to_fix")
    assert outcome["reason"] == json.loads(first.stdout)["reason"]  # the same ending as the run never killed
    assert json.loads((run_dir / "trajectory.json").read_text())["status"] == "done"
