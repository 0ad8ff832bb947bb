"""The agent end to end: scripted models, the real sandbox, real git, real pytest."""

from __future__ import annotations

import json

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
    script,
    search_replace,
)
from conftest import backend_params, require_backend

from repofix.agent import AgentRequest, run_agent
from repofix.config import Settings


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("REPOFIX_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def settings(**values) -> Settings:
    return Settings(sandbox=values.pop("sandbox", "bwrap"), **values)


def fix(repo, model, **values):
    require_backend(values.get("sandbox", "bwrap"))
    request = AgentRequest(repo=repo, mode="fix", settings=settings(model=model, **values))
    return run_agent(request)


def trajectory(outcome) -> dict:
    return json.loads(open(outcome.trajectory_file).read())


@pytest.mark.parametrize("backend", backend_params(("docker", "bwrap")))
def test_failing_patch_then_feedback_then_passing_patch(tmp_path, home, backend):
    repo = clamp_repo(tmp_path / "repo")
    before = (
        git(repo, "status", "--porcelain"),
        git(repo, "rev-parse", "HEAD"),
        (repo / ".git/index").read_bytes(),
    )
    model = script(
        tmp_path / "s.yaml", [act("view", "Look first.", path="pkg/mathx.py"), WRONG_FIX, RIGHT_FIX]
    )
    outcome = fix(repo, model, sandbox=backend)
    assert outcome.status == "done" and outcome.reason == "done"
    assert (
        outcome.tests_before == "1 passed, 2 failed of 3" and outcome.tests_after == "3 passed, 0 failed of 3"
    )
    steps = trajectory(outcome)["steps"]
    assert [s["action"] for s in steps] == ["view", "edit", "edit"]
    assert "still failing" in steps[1]["observation"] and "assert 10 == 5" in steps[1]["observation"]
    assert "Newly passing" in steps[2]["observation"] and "done" in steps[2]["observation"]
    assert "-    if x < hi:\n+    if x > hi:" in outcome.patch
    # delivered as a branch; the user's branch, index and working tree untouched
    assert outcome.branch and git(repo, "show", f"{outcome.branch}:pkg/mathx.py") == CLAMP.replace(
        "x < hi", "x > hi"
    )
    assert (
        git(repo, "status", "--porcelain"),
        git(repo, "rev-parse", "HEAD"),
        (repo / ".git/index").read_bytes(),
    ) == before
    assert "Repofix-Run: " + outcome.run_id in git(repo, "log", "-1", "--format=%B", outcome.branch)


def test_rm_rf_of_the_workspace_is_rolled_back(tmp_path, home):
    repo = clamp_repo(tmp_path / "repo")
    model = script(
        tmp_path / "s.yaml",
        [
            act("shell", "Clean up.", command="rm -rf ./* .[!.]*"),
            act("shell", command="ls pkg tests"),
            DIRECT_FIX,
        ],
    )
    outcome = fix(repo, model)
    steps = trajectory(outcome)["steps"]
    assert "rolled back" in steps[0]["observation"]
    assert "mathx.py" in steps[1]["observation"] and "test_mathx.py" in steps[1]["observation"]
    assert outcome.status == "done"


def test_weakening_a_protected_test_is_refused(tmp_path, home):
    repo = clamp_repo(tmp_path / "repo")
    weaken = act(
        "edit",
        "Make the test pass the easy way.",
        text=search_replace("tests/test_mathx.py", "    assert clamp(5, 0, 10) == 5", "    assert True"),
    )
    model = script(tmp_path / "s.yaml", [weaken, act("view", path="tests/test_mathx.py"), DIRECT_FIX])
    outcome = fix(repo, model)
    steps = trajectory(outcome)["steps"]
    assert "rolled back" in steps[0]["observation"]
    assert "assert clamp(5, 0, 10) == 5" in steps[1]["observation"]
    assert outcome.status == "done" and "tests/test_mathx.py" not in outcome.files_changed


def test_cost_cap_stops_before_the_call_that_would_exceed_it(tmp_path, home):
    repo = clamp_repo(tmp_path / "repo")
    replies = [dict(act("view", path="pkg/mathx.py"), cost=0.6), dict(DIRECT_FIX, cost=0.6)]
    outcome = fix(repo, script(tmp_path / "s.yaml", replies), max_cost=1.0)
    assert outcome.status == "not_done" and outcome.reason == "cost_limit"
    assert outcome.steps == 2 and len(trajectory(outcome)["steps"]) == 1  # the second call never happened
    assert outcome.cost == pytest.approx(0.6)


def test_three_format_errors_in_a_row_stop_the_run(tmp_path, home):
    repo = clamp_repo(tmp_path / "repo")
    replies = [
        {"content": "I think the bug is in clamp."},
        act("frobnicate", x=1),
        act("view", nonsense=True),
    ]
    outcome = fix(repo, script(tmp_path / "s.yaml", replies))
    observations = [s["observation"] for s in trajectory(outcome)["steps"]]
    assert outcome.reason == "format_errors" and outcome.status == "not_done"
    assert "no action" in observations[0]
    assert "Unknown action 'frobnicate'" in observations[1]
    assert "needs the argument `path`" in observations[2]


def test_stuck_detector(tmp_path, home):
    repo = clamp_repo(tmp_path / "repo")
    outcome = fix(repo, script(tmp_path / "s.yaml", [act("shell", command="cat pkg/mathx.py")] * 4))
    assert outcome.reason == "stuck" and outcome.steps == 3


def test_step_limit_delivers_the_best_checkpoint_honestly(tmp_path, home):
    repo = clamp_repo(tmp_path / "repo")
    half_fix = act(
        "edit",
        text=search_replace(
            "pkg/mathx.py", "    if x < hi:\n        return hi\n", "    if x > hi:\n        return hi + 1\n"
        ),
    )
    outcome = fix(
        repo, script(tmp_path / "s.yaml", [half_fix, act("view", path="pkg/mathx.py")]), max_steps=2
    )
    assert outcome.status == "not_done" and outcome.reason == "step_limit"
    assert outcome.branch is None  # no branch for unfinished work; the patch file holds the best checkpoint
    assert "hi + 1" in outcome.patch and outcome.tests_after == "2 passed, 1 failed of 3"


def test_two_worsening_steps_roll_back_to_the_best_checkpoint(tmp_path, home):
    repo = clamp_repo(tmp_path / "repo")
    break_low = act("edit", text=search_replace("pkg/mathx.py", "        return lo", "        return lo - 1"))
    break_more = act("edit", text=search_replace("pkg/mathx.py", "    return x", "    return -x"))
    replies = [
        act("view", path="pkg/mathx.py"),
        break_low,
        break_more,
        act("view", path="pkg/mathx.py"),
        DIRECT_FIX,
    ]
    outcome = fix(repo, script(tmp_path / "s.yaml", replies))
    steps = trajectory(outcome)["steps"]
    assert "made things worse" in steps[1]["observation"]
    assert "rolled back to checkpoint 0" in steps[2]["observation"]
    assert "return lo\n" in steps[3]["observation"] and "return x" in steps[3]["observation"]
    assert outcome.status == "done"


def test_implement_test_first_red_then_green(tmp_path, home):
    repo = clamp_repo(tmp_path / "repo")
    (repo / "pkg/mathx.py").write_text(CLAMP.replace("x < hi", "x > hi"))
    (repo / "tests/test_mathx.py").write_text(CLAMP_TESTS)
    git(repo, "commit", "-qam", "fixed")
    new_test = (
        "\n\ndef test_wrap():\n    from pkg.mathx import wrap\n"
        "    assert wrap(12, 0, 10) == 2\n    assert wrap(-1, 0, 10) == 9\n"
    )
    red = act(
        "edit", "Tests first.", text=f"tests/test_wrap.py\n<<<<<<< FILE\n{new_test.strip()}\n>>>>>>> END\n"
    )
    green = act(
        "edit",
        "Now the code.",
        text=search_replace(
            "pkg/mathx.py",
            "    return x",
            "    return x\n\n\ndef wrap(x, lo, hi):\n    return lo + (x - lo) % (hi - lo)",
        ),
    )
    model = script(tmp_path / "s.yaml", [red, act("submit", summary="tests for wrap"), green])
    require_backend("bwrap")
    outcome = run_agent(
        AgentRequest(
            repo=repo,
            instruction="add wrap(x, lo, hi) that wraps x into [lo, hi)",
            mode="implement",
            settings=settings(model=model),
        )
    )
    steps = trajectory(outcome)["steps"]
    assert (
        "Red phase accepted" in steps[1]["observation"]
        and "tests/test_wrap.py::test_wrap" in steps[1]["observation"]
    )
    assert outcome.status == "done", outcome.message
    assert set(outcome.files_changed) == {"pkg/mathx.py", "tests/test_wrap.py"}


def test_red_phase_refuses_tests_that_do_not_fail(tmp_path, home):
    repo = clamp_repo(tmp_path / "repo")
    passing = act(
        "edit", text="tests/test_more.py\n<<<<<<< FILE\ndef test_ok():\n    assert True\n>>>>>>> END\n"
    )
    broken = act(
        "edit", text="tests/test_more.py\n<<<<<<< FILE\ndef test_ok(:\n    assert True\n>>>>>>> END\n"
    )
    model = script(
        tmp_path / "s.yaml", [passing, act("submit", summary="x"), broken, act("submit", summary="y")]
    )
    require_backend("bwrap")
    outcome = run_agent(
        AgentRequest(
            repo=repo, instruction="feature", mode="implement", settings=settings(model=model, max_steps=4)
        )
    )
    steps = trajectory(outcome)["steps"]
    assert (
        "Red phase not accepted" in steps[1]["observation"] and "no new test fails" in steps[1]["observation"]
    )
    assert "Red phase not accepted" in steps[3]["observation"]
    assert outcome.status == "not_done"
