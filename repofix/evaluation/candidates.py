"""Where candidate patches come from: the reference patch (--gold), nothing (--empty), a
SWE-bench predictions file (--predictions), or the repofix agent (--model)."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Protocol

from repofix.agent import AgentRequest, run_agent
from repofix.config import load_settings, with_flags
from repofix.evaluation.model import Candidate
from repofix.evaluation.repositories import checkout
from repofix.runs import runs_dir
from repofix.sandboxes import cleanup
from repofix.tasks import Task, TasksError
from repofix.tasks.predictions import read_predictions

# Agent stops caused by the model provider (refused credentials, outage after retries), not by the
# model's work: the agent itself calls them resumable "once the model provider answers again".
INFRA_STOPS = frozenset({"model_error"})


class CandidateSource(Protocol):
    name: str  # model_name_or_path in the predictions written
    mode: str  # "gold", "empty", "predictions" or "model"

    def candidate(self, task: Task, budget: float | None) -> Candidate:
        """The patch to grade for `task`; `budget` is what may still be spent (None: no cap)."""
        ...

    def recorded_cost(self) -> float:
        """Everything this source has recorded spending for the run so far, including attempts
        that never finished (killed): the results store knows only the finished ones."""
        ...


class GoldSource:
    name = mode = "gold"

    def recorded_cost(self) -> float:
        return 0.0

    def candidate(self, task: Task, budget: float | None) -> Candidate:
        if not task.patch:
            return Candidate("", self.name, error="the task has no reference patch")
        return Candidate(task.patch, self.name)


class EmptySource:
    name = mode = "empty"

    def recorded_cost(self) -> float:
        return 0.0

    def candidate(self, task: Task, budget: float | None) -> Candidate:
        return Candidate("", self.name)


class PredictionsSource:
    mode = "predictions"

    def __init__(self, path: Path):
        self.path = path
        self.predictions = {p.instance_id: p for p in read_predictions(path)}
        names = sorted({p.model_name_or_path for p in self.predictions.values()})
        if not names:
            raise TasksError(f"{path}: holds no predictions")
        self.name = names[0] if len(names) == 1 else "+".join(names)

    def recorded_cost(self) -> float:
        return 0.0

    def covers(self, task: Task) -> bool:
        return task.id in self.predictions

    def candidate(self, task: Task, budget: float | None) -> Candidate:
        prediction = self.predictions.get(task.id)
        if prediction is None:
            return Candidate("", self.name, error=f"{self.path} has no prediction for this task")
        return Candidate(prediction.model_patch, prediction.model_name_or_path)


class AgentSource:
    """Runs the repofix agent on a fresh copy of each task's repository, in the task's environment
    (setup commands, image, test command), with the problem statement as its instruction. Its run
    folders (trajectories, checkpoints) are kept under `home`."""

    mode = "model"

    def __init__(self, model: str, sandbox: str | None, home: Path, mirror: Path | None = None):
        self.name = model
        self.sandbox = sandbox
        self.home = home
        self.mirror = mirror

    def recorded_cost(self) -> float:
        """What every agent run of this evaluation recorded spending (its trajectory's totals, saved
        after each step). A run killed mid-task left no row in the store, but its money is spent."""
        total = 0.0
        for path in runs_dir(self.home).glob("*/trajectory.json"):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):  # written atomically; a folder removed meanwhile spent nothing here
                continue
            total += float((data.get("totals") or {}).get("cost") or 0.0)
        return total

    def candidate(self, task: Task, budget: float | None) -> Candidate:
        # owned like a sandbox's scratch: if this process is killed, the next repofix start removes it
        workspace = cleanup.new_scratch("agent-")
        started = time.monotonic()
        try:
            repo = checkout(task, workspace / "repo", mirror=self.mirror)
            env = task.environment
            settings = load_settings(
                repo,
                model=self.name,
                sandbox=self.sandbox,
                home=str(self.home),
                test_cmd=task.test_cmd,
                setup=tuple(env.setup) or None,
                image=env.image,
            )
            if budget is not None:  # never more than the evaluation has left
                settings = with_flags(settings, max_cost=min(budget, settings.max_cost or budget))
            outcome = run_agent(
                AgentRequest(
                    repo=repo,
                    instruction=task.problem_statement,
                    mode="fix",
                    settings=settings,
                )
            )
        except Exception as error:  # the agent's failure is this task's error, not the evaluation's
            return Candidate(
                "",
                self.name,
                seconds=time.monotonic() - started,
                error=f"the agent failed: {type(error).__name__}: {error}",
            )
        finally:
            shutil.rmtree(workspace, ignore_errors=True)
        tokens = int((outcome.extra or {}).get("tokens", 0) or 0)
        if outcome.status == "error" or outcome.reason in INFRA_STOPS:
            # The provider or the harness failed, not the model: an infrastructure error, which
            # `--retry-errors` runs again, and not an unresolved task. What it spent still counts.
            return Candidate(
                "",
                self.name,
                cost=float(outcome.cost or 0.0),
                tokens=tokens,
                seconds=time.monotonic() - started,
                error=f"the agent stopped ({outcome.status}, {outcome.reason}): {outcome.message}",
            )
        return Candidate(
            outcome.patch or "",
            self.name,
            cost=float(outcome.cost or 0.0),
            tokens=tokens,
            seconds=time.monotonic() - started,
        )
