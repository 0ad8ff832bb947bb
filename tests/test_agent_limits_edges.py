"""The agent's limits at their edges (`AgentRun.check_limits`, `AgentRun.ask_model`), on the `none`
sandbox: the real loop, a scripted model or a real LiteLLM model against the local OpenAI-compatible
server. The run's clock is moved back rather than waited on: no test here depends on how fast it runs."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_helpers import DIRECT_FIX, act, clamp_repo
from openai_server import OpenAIServer, auth_error, context_length_exceeded, server_error

from repofix.agent.api import AgentRequest, open_run_sandbox, prepare_run
from repofix.agent.loop import run_loop, step
from repofix.agent.run import AgentRun
from repofix.agent.trajectory import Trajectory
from repofix.config import Settings
from repofix.models import Budget, Model
from repofix.models.chain import ChainModel
from repofix.models.litellm_model import LiteLLMModel
from repofix.models.scripted import ScriptedModel
from repofix.workspace import Workspace

# Views that differ, so a long run of them is never "stuck".
VIEWS = [act("view", "Look.", path=p) for p in ("pkg/mathx.py", "tests/test_mathx.py", "pkg/__init__.py")]


def views(n: int) -> list[dict]:
    return [VIEWS[i % len(VIEWS)] for i in range(n)]


@contextlib.contextmanager
def agent_run(tmp_path: Path, model: Model, **values) -> Iterator[AgentRun]:
    settings = Settings(sandbox="none", home=str(tmp_path / "home"), **values)
    workspace = Workspace.create(clamp_repo(tmp_path / "repo"), home=settings.home, label="limits")
    trajectory = Trajectory.start(
        workspace.folder.trajectory_file,
        run_id=workspace.run_id,
        mode="fix",
        task="",
        model=model.name,
        targets=[],
        settings={},
    )
    sandbox = open_run_sandbox(settings, workspace.export(tmp_path / "tree"))
    try:
        run = prepare_run(
            AgentRequest(repo=workspace.source.location), settings, model, workspace, sandbox, trajectory
        )
        assert isinstance(run, AgentRun)
        yield run
    finally:
        sandbox.close()


@pytest.fixture
def server():
    with OpenAIServer() as running:
        yield running


@pytest.mark.parametrize("max_steps", [1, 3])
def test_the_step_limit_allows_exactly_that_many_steps(tmp_path, max_steps):
    model = ScriptedModel([*views(max_steps), DIRECT_FIX])
    with agent_run(tmp_path, model, max_steps=max_steps) as run:
        stop = run_loop(run)
    assert stop.reason == "step_limit" and stop.message == f"the step limit ({max_steps}) was reached"
    assert [s["step"] for s in run.trajectory.data["steps"]] == list(range(1, max_steps + 1))
    assert model.remaining == 1  # the fix after the limit was never asked for


def test_a_run_whose_time_is_up_asks_the_model_nothing_more(tmp_path):
    model = ScriptedModel([*views(2), DIRECT_FIX])
    with agent_run(tmp_path, model, timeout=30) as run:
        run.started -= 31  # the run began 31 s ago on the monotonic clock
        stop = run_loop(run)
    assert stop.reason == "time_limit" and stop.message == "the time limit (30s) was reached"
    assert run.trajectory.data["steps"] == [] and model.remaining == 3


def test_a_run_with_time_left_goes_on_and_the_time_limit_fires_between_steps(tmp_path):
    model = ScriptedModel([*views(3), DIRECT_FIX])
    with agent_run(tmp_path, model, timeout=600) as run:
        run.started -= (
            300  # half the time is used: the first step is taken (300 s of margin on a busy machine)
        )
        step(run)
        assert run.stopped is None and run.step == 1
        run.started -= 301  # now past the limit: the next check stops the run before asking the model
        stop = run_loop(run)
    assert stop.reason == "time_limit" and len(run.trajectory.data["steps"]) == 1
    assert model.remaining == 3


@pytest.mark.parametrize("tool", ["shell", "python"])
def test_a_command_near_the_end_of_the_run_gets_only_the_time_left(tmp_path, tool):
    """A command is cut at the run's limit, not at its own 300 s: `--timeout` holds for a long command."""
    code = "sleep 600" if tool == "shell" else "import time; time.sleep(600)"
    model = ScriptedModel(
        [act(tool, "Wait.", **{"command" if tool == "shell" else "code": code}), DIRECT_FIX]
    )
    with agent_run(tmp_path, model, timeout=600, command_timeout=300) as run:
        run.started -= 597  # 3 s left of 600: the command is given those, not 300
        stop = run_loop(run)
    assert stop.reason == "time_limit" and model.remaining == 1
    observation = run.trajectory.data["steps"][0]["observation"]
    assert "timed out after" in observation, observation


def test_the_step_limit_is_reported_when_time_is_also_up(tmp_path):
    with agent_run(tmp_path, ScriptedModel(views(2)), max_steps=1, timeout=30) as run:
        run.step = 1  # both limits are up: the step limit is checked first
        run.started -= 31
        stop = run_loop(run)
    assert stop.reason == "step_limit"


def test_money_spent_is_the_sum_of_every_reply(tmp_path):
    replies = [{**VIEWS[0], "cost": 0.25}, {**VIEWS[1], "cost": 0.5}, {**DIRECT_FIX, "cost": 0.125}]
    with agent_run(tmp_path, ScriptedModel(replies)) as run:
        stop = run_loop(run)
    assert stop.reason == "done" and run.spent == 0.875
    assert [s["cost"] for s in run.trajectory.data["steps"]] == [0.25, 0.5, 0.125]


def test_the_cost_cap_stops_the_run_before_the_reply_that_would_pass_it(tmp_path):
    replies = [{**VIEWS[0], "cost": 0.25}, {**VIEWS[1], "cost": 0.5}, {**DIRECT_FIX, "cost": 0.5}]
    model = ScriptedModel(replies, budget=Budget(max_cost=1.0))
    with agent_run(tmp_path, model) as run:
        stop = run_loop(run)
    assert stop.reason == "cost_limit" and "1.0" in stop.message
    assert len(run.trajectory.data["steps"]) == 2 and run.spent == 0.75 and model.remaining == 1
    assert run.messages[-1]["role"] != "assistant"  # the refused call left no reply in the conversation


def litellm(server, **options) -> LiteLLMModel:
    return LiteLLMModel(
        "openai/test-model",
        api_base=server.url,
        api_key="sk-test",
        retry_base_delay=0.01,
        timeout=10,
        **options,
    )


@pytest.mark.parametrize(
    ("response", "reason", "message"),
    [
        (auth_error, "model_error", "the model provider refused the credentials: "),
        (context_length_exceeded, "model_error", "the conversation no longer fits the model's context: "),
        (server_error, "model_error", "openai/test-model at "),
    ],
)
def test_a_provider_refusal_stops_the_run_with_its_reason(tmp_path, server, response, reason, message):
    for _ in range(10):  # retried errors are answered the same each time
        server.add(response())
    with agent_run(tmp_path, litellm(server, max_retries=1)) as run:
        stop = run_loop(run)
    assert stop.reason == reason and stop.message.startswith(message) and len(stop.message) > len(message)
    assert run.trajectory.data["steps"] == [] and run.spent == 0.0
    # A server error is retried (max_retries=1: two attempts); refused credentials are final at once.
    if response is server_error:
        assert len(server.requests) == 2 and "still failing after 2 attempts" in stop.message
    if response is auth_error:
        assert len(server.requests) == 1


def test_a_chain_whose_every_model_gave_up_stops_as_gave_up(tmp_path):
    chain = ChainModel(
        [
            ScriptedModel([{"give_up": True, "content": "no idea"}]),
            ScriptedModel([{"give_up": True, "content": "none"}]),
        ]
    )
    with agent_run(tmp_path, chain) as run:
        stop = run_loop(run)
    assert stop.reason == "gave_up" and "the last said: none" in stop.message
    assert run.trajectory.data["steps"] == []
