"""The agent loop on its own: a run built by `prepare_run` with a scripted model and the `none`
sandbox in a temporary folder, driven by `run_loop` directly (no CLI, no `run_agent`)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from agent_helpers import DIRECT_FIX, act, clamp_repo

from repofix.agent.actions import Action
from repofix.agent.api import open_run_sandbox
from repofix.agent.loop import run_loop
from repofix.agent.prepare import prepare_run
from repofix.agent.recover import restart_sandbox
from repofix.agent.request import AgentRequest
from repofix.agent.run import AgentRun, Stop
from repofix.agent.trajectory import Trajectory
from repofix.config import Settings
from repofix.models.scripted import ScriptedModel
from repofix.sandboxes.base import ChannelForged, MalformedReply, RunnerDied
from repofix.sandboxes.local import LocalSandbox
from repofix.workspace import Workspace

VIEW = act("view", "Look first.", path="pkg/mathx.py")


@contextlib.contextmanager
def agent_run(tmp_path: Path, replies: list, **values) -> AgentRun:
    settings = Settings(sandbox="none", home=str(tmp_path / "home"), **values)
    workspace = Workspace.create(clamp_repo(tmp_path / "repo"), home=settings.home, label="unit")
    trajectory = Trajectory.start(
        workspace.folder.trajectory_file,
        run_id=workspace.run_id,
        mode="fix",
        task="",
        model="scripted",
        targets=[],
        settings={},
    )
    sandbox = open_run_sandbox(settings, workspace.export(tmp_path / "tree"))
    try:
        assert isinstance(sandbox, LocalSandbox)
        run = prepare_run(
            AgentRequest(repo=workspace.source.location),
            settings,
            ScriptedModel(replies),
            workspace,
            sandbox,
            trajectory,
        )
        assert isinstance(run, AgentRun) and run.progress.phase == "fix"
        yield run
    finally:
        sandbox.close()


@pytest.mark.parametrize(
    ("replies", "values", "reason", "message", "steps"),
    [
        ([VIEW, DIRECT_FIX], {}, "done", "", 2),
        (["I think it is fine."] * 3, {}, "format_errors", "3 malformed replies in a row", 3),
        ([VIEW] * 3, {}, "stuck", "the same action gave the same result 3 times in a row", 3),
        (
            [VIEW, act("view", path="tests/test_mathx.py"), VIEW],
            {"max_steps": 2},
            "step_limit",
            "the step limit (2) was reached",
            2,
        ),
        (
            [VIEW, {"content": "Looked at it.\nThis needs a redesign I cannot do.", "give_up": True}],
            {},
            "gave_up",
            "This needs a redesign I cannot do.",
            2,
        ),
        ([VIEW], {}, "model_error", "script", 1),  # the script runs out on the second call: the model's error
    ],
)
def test_the_loop_stops_for_each_rule_with_its_reason(tmp_path, replies, values, reason, message, steps):
    with agent_run(tmp_path, replies, **values) as run:
        stop = run_loop(run)
        assert isinstance(stop, Stop) and stop is run.stopped
        assert stop.reason == reason and message in stop.message
        assert run.verified is (reason == "done")
        recorded = run.trajectory.data["steps"]
        assert len(recorded) == steps  # a failed model call (model_error) records no step
        if reason == "done":
            assert run.verified_checkpoint == run.workspace.current().n
            assert run.progress.summary() == "3 passed, 0 failed of 3"


def test_the_first_stop_is_the_one_reported(tmp_path):
    with agent_run(tmp_path, []) as run:
        run.stop("done", "verified")
        run.stop("stuck", "the same action three times")
        assert run.stopped == Stop("done", "verified") and run.is_done()


def test_a_guard_rollback_at_submit_reaches_the_model(tmp_path):
    """A change made since the last step (here written straight into the sandbox) is synced by
    `submit`; the guard that rolls it back says so in the observation, not only in the log."""
    with agent_run(tmp_path, []) as run:
        run.sandbox.write_files({".github/workflows/ci.yml": b"on: push\n"})
        observation = run.submit("done, I think")
        assert "rolled back by repofix's guards" in observation and "ci.yml" in observation
        assert "Submission not accepted" in observation  # and the submission itself is still judged
        assert run.sandbox.read_files([".github/workflows/ci.yml"])[".github/workflows/ci.yml"] is None
        assert run.stopped is None


def test_an_edit_checkpoints_the_files_it_wrote_without_scanning(tmp_path):
    """The sync after `edit` takes the edit's own paths; a file something else wrote waits for the
    next full scan (after a command) rather than riding along in the edit's checkpoint."""
    with agent_run(tmp_path, []) as run:
        run.sandbox.write_files({"notes.txt": b"not the edit's doing\n"})
        run.step = 1
        observation = run.execute(Action("edit", DIRECT_FIX["arguments"]))
        assert run.changed_files() == {"pkg/mathx.py"} and run.is_done(), observation
        run.step = 2
        run.execute(Action("shell", {"command": "true"}))
        assert run.changed_files() == {"pkg/mathx.py", "notes.txt"}


@pytest.mark.parametrize(
    ("died", "told"),
    [
        (RunnerDied("gone"), "the sandbox's processes were all killed"),
        (ChannelForged("forged"), "wrote into the session runner's channel"),
        (MalformedReply("bad size"), "sent a reply that breaks its protocol"),
    ],
)
def test_a_dead_runner_is_restarted_and_the_model_told_why(tmp_path, died, told):
    with agent_run(tmp_path, [VIEW]) as run:
        observation = restart_sandbox(run, died)
        assert told in observation and "restarted it from checkpoint 0" in observation
        assert run.trajectory.data["restarts"][0]["error"] == type(died).__name__
        assert run.stopped is None
        assert "def clamp" in run.sandbox.run("cat pkg/mathx.py").stdout  # the sandbox serves again
