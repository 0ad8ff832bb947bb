"""The agent: write -> execute -> observe until the tests are green.

    settings = load_settings(Path("."), model="openai/gpt-4o")  # flags > environment > config files
    outcome = run_agent(AgentRequest(repo=".", instruction="...", settings=settings))

`run_agent` makes a workspace (checkpoints on the host), a sandbox, a baseline test run, then drives
the model through `loop.run_loop` and delivers the best checkpoint with an honest status."""

from repofix.agent.api import run_agent
from repofix.agent.request import AgentOutcome, AgentRequest, AgentSetupError
from repofix.models import register_model
from repofix.repair.model import make_builtin_model

__all__ = ["AgentOutcome", "AgentRequest", "AgentSetupError", "run_agent"]

# `--model builtin`: the repair engine is a room above models, so the agent (which uses both) plugs it in.
register_model("builtin", make_builtin_model)
