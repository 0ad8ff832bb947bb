"""Where candidate patches come from: the reference patch (--gold), nothing (--empty), a
SWE-bench predictions file (--predictions), or the repofix agent (--model)."""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from repofix.evaluation.model import Candidate
from repofix.tasks import Task, TasksError


class AgentUnavailable(Exception):
    """`--model` needs `repofix.agent.run_agent`, which this installation does not have."""


class CandidateSource(Protocol):
    name: str  # model_name_or_path in the predictions written
    mode: str  # "gold", "empty", "predictions" or "model"

    def candidate(self, task: Task, budget: float | None) -> Candidate:
        """The patch to grade for `task`; `budget` is what may still be spent (None: no cap)."""
        ...


class GoldSource:
    name = mode = "gold"

    def candidate(self, task: Task, budget: float | None) -> Candidate:
        if not task.patch:
            return Candidate("", self.name, error="the task has no reference patch")
        return Candidate(task.patch, self.name)


class EmptySource:
    name = mode = "empty"

    def candidate(self, task: Task, budget: float | None) -> Candidate:
        return Candidate("", self.name)


class PredictionsSource:
    mode = "predictions"

    def __init__(self, path: Path):
        from repofix.tasks.predictions import read_predictions

        self.path = path
        self.predictions = {p.instance_id: p for p in read_predictions(path)}
        names = sorted({p.model_name_or_path for p in self.predictions.values()})
        if not names:
            raise TasksError(f"{path}: holds no predictions")
        self.name = names[0] if len(names) == 1 else "+".join(names)

    def covers(self, task: Task) -> bool:
        return task.id in self.predictions

    def candidate(self, task: Task, budget: float | None) -> Candidate:
        prediction = self.predictions.get(task.id)
        if prediction is None:
            return Candidate("", self.name, error=f"{self.path} has no prediction for this task")
        return Candidate(prediction.model_patch, prediction.model_name_or_path)


def load_agent() -> Callable[..., Any]:
    try:
        from repofix.agent import run_agent  # type: ignore[attr-defined]
    except ImportError as error:
        raise AgentUnavailable(
            "--model needs the repofix agent (repofix.agent.run_agent), which is not available in this "
            f"installation ({error}). Grade an agent's output with --predictions FILE instead.") from None
    return run_agent


class AgentSource:
    """Runs the agent on a fresh copy of the task's repository. `run_agent(task, workspace_dir,
    settings)` returns the patch text, or an object with `.patch` and optionally `.cost`,
    `.tokens`. Settings is a mapping: model, sandbox, max_cost (the remaining budget or None)."""

    mode = "model"

    def __init__(self, model: str, sandbox: str | None, mirror: Path | None = None):
        self.run_agent = load_agent()
        self.name, self.sandbox, self.mirror = model, sandbox, mirror

    def candidate(self, task: Task, budget: float | None) -> Candidate:
        workspace = Path(tempfile.mkdtemp(prefix="repofix-agent-"))
        started = time.monotonic()
        try:
            from repofix.evaluation.repositories import checkout

            checkout(task, workspace / "repo", mirror=self.mirror)
            settings = {"model": self.name, "sandbox": self.sandbox, "max_cost": budget}
            outcome = self.run_agent(task, workspace / "repo", settings)
        except Exception as error:  # the agent's failure is this task's error, not the evaluation's
            return Candidate("", self.name, seconds=time.monotonic() - started,
                             error=f"the agent failed: {type(error).__name__}: {error}")
        finally:
            shutil.rmtree(workspace, ignore_errors=True)
        seconds = time.monotonic() - started
        if isinstance(outcome, str):
            return Candidate(outcome, self.name, seconds=seconds)
        return Candidate(getattr(outcome, "patch", "") or "", self.name, cost=float(getattr(outcome, "cost", 0.0)),
                         tokens=int(getattr(outcome, "tokens", 0)), seconds=seconds)
