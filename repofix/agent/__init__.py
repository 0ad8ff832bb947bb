"""The agent: write -> execute -> observe until the tests are green.

    outcome = run_agent(AgentRequest(repo=".", instruction="...", mode="fix", model="openai/gpt-4o"))

`run_agent` makes a workspace (checkpoints on the host), a sandbox, a baseline test run, then drives
the model through `loop.run_loop` and delivers the best checkpoint with an honest status."""

__all__ = ["AgentOutcome", "AgentRequest", "AgentSetupError", "run_agent"]


def __getattr__(name: str):  # lazy, so `repofix --help` does not import the whole agent
    if name in __all__:
        from repofix.agent import api

        return getattr(api, name)
    raise AttributeError(name)
