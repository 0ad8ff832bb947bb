"""Continuing a run that stopped (kill -9, crash, a limit): the workspace's latest checkpoint is
put into a fresh sandbox, and the conversation, baseline and targets come from the trajectory."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from repofix.agent.actions import openai_tools
from repofix.agent.api import AgentOutcome, AgentSetupError, finish, open_run_sandbox
from repofix.agent.loop import run_loop
from repofix.agent.progress import Progress
from repofix.agent.run import AgentRun
from repofix.agent.trajectory import Trajectory
from repofix.config import Settings


def resume_agent(run_id: str, *, model: str | None = None, home: str | None = None, max_steps: int | None = None,
                 progress: Callable[[dict], None] | None = None) -> AgentOutcome:
    from repofix.models import Budget, make_model
    from repofix.runs.resume import resume_point

    workspace, point = resume_point(run_id, home)
    if not point.trajectory.exists():
        raise AgentSetupError(f"run {run_id} has no trajectory to resume from (it stopped before its first step)")
    trajectory = Trajectory.load(point.trajectory)
    data = trajectory.data
    if data.get("status") in ("done", "not_done"):
        raise AgentSetupError(f"run {run_id} already finished ({data['status']}: {data.get('reason')}); "
                              "start a new run instead")
    if "progress" not in data or not data.get("messages"):
        raise AgentSetupError(f"run {run_id} stopped before its baseline was recorded; start a new run instead")
    settings = Settings(**{k: tuple(v) if isinstance(v, list) else v for k, v in data["settings"].items()})
    if max_steps is not None:
        settings = settings.with_overrides(max_steps=max_steps)
    spent = trajectory.totals()["cost"]
    spec = model or data["model"]
    chosen = make_model(spec, budget=Budget(max_cost=settings.max_cost, spent=spent),
                        api_base=settings.api_base, price_file=settings.price_file,
                        native_tools=settings.native_tools)
    if model is None and hasattr(chosen, "position"):  # scripted/replayed replies already used are skipped
        chosen.position = len(trajectory.steps)
    notify = progress or (lambda event: None)
    with tempfile.TemporaryDirectory(prefix="repofix-tree-") as tmp:
        sandbox = open_run_sandbox(settings, workspace.export(Path(tmp) / "tree"))
    try:
        state = Progress.from_dict(data["progress"])
        messages = list(data["messages"])
        messages.append({"role": "user", "content": (
            f"[repofix: this run was interrupted and has been resumed. The workspace is at checkpoint "
            f"{point.checkpoint}; anything after your last observation was lost or kept as that checkpoint "
            "shows. Continue.]")})
        run = AgentRun(settings, chosen, workspace, sandbox, trajectory, state, messages, openai_tools(), notify,
                       step=len(trajectory.steps), spent=spent)
        run.best = (state.score(), data.get("best_checkpoint", point.checkpoint))
        trajectory.save(messages, status="running", resumed_at_step=run.step)
        return finish(run, run_loop(run), data.get("task", ""))
    finally:
        sandbox.close()
