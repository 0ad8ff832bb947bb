"""Going on with a run that stopped. `resume_agent`: a kill, a crash, a limit (steps, cost, time) or a model
error; the best checkpoint is put into a fresh sandbox and the conversation, baseline and targets come from
the trajectory (a run killed before its baseline starts the baseline again). `continue_agent`: a new phase
on a finished run, with a follow-up instruction, delivered as a new commit on the same branch.

Every refusal happens before anything on disk changes; `claim` then makes this process the run's owner."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from pathlib import Path

from repofix.agent.actions import openai_tools
from repofix.agent.api import engine_deadline, open_run_sandbox, stops_recorded
from repofix.agent.finish import finish
from repofix.agent.loop import run_loop
from repofix.agent.prepare import prepare_run  # the same first prompt as a new run
from repofix.agent.progress import Progress
from repofix.agent.repomap import repo_map
from repofix.agent.request import DONE, NOT_DONE, AgentOutcome, AgentRequest, AgentSetupError
from repofix.agent.run import AgentRun
from repofix.agent.summary import RESUME_HINTS
from repofix.agent.templates import prompt
from repofix.agent.trajectory import Trajectory
from repofix.config import Settings, settings_from_record, with_flags
from repofix.models import Budget, make_model
from repofix.runs.owner import alive
from repofix.sandboxes.cleanup import owned_tempdir
from repofix.workspace.resume import claim, resume_point

# Stop reasons a resume can go on from (with raised limits where the limit is the reason): the ones
# the summary tells a person how to go on from.
RESUMABLE = frozenset(RESUME_HINTS)
FINISHED = (DONE, NOT_DONE)


def _open(run_id: str, home: str | None):
    workspace, point = resume_point(run_id, home)
    owner = point.state.get("owner")
    if point.state.get("status") in ("created", "acquired", "running") and owner is not None and alive(owner):
        raise AgentSetupError(
            f"run {workspace.run_id} is still running (process {owner['pid']}); "
            "stop it first (Ctrl-C or kill) and then resume it"
        )
    if not point.trajectory.exists():
        raise AgentSetupError(
            f"run {workspace.run_id} has no trajectory (it stopped while its repository was "
            "being copied); start a new run instead"
        )
    return workspace, point, Trajectory.load(point.trajectory)


def _settings(data: dict, **overrides) -> Settings:
    return with_flags(settings_from_record(data["settings"]), **overrides)


def _check_limits(data: dict, settings: Settings, spent: float) -> None:
    """A run stopped by a limit goes on only when that limit was raised (else it would stop at once)."""
    steps = len(data["steps"])
    if steps >= settings.max_steps:
        raise AgentSetupError(
            f"run {data['run_id']} has used {steps} of its {settings.max_steps} steps; "
            f"raise the limit, e.g. --max-steps {steps + 10}"
        )
    if settings.max_cost is not None and spent >= settings.max_cost:
        raise AgentSetupError(
            f"run {data['run_id']} has spent ${spent:.4f} of its ${settings.max_cost:.4f} cap; "
            f"raise the cap, e.g. --max-cost {max(spent * 2, spent + 1):.2f}"
        )


def _model(spec_override: str | None, data: dict, settings: Settings, spent: float, used: int):
    chosen = make_model(
        spec_override or data["model"],
        budget=Budget(max_cost=settings.max_cost, spent=spent),
        api_base=settings.api_base,
        price_file=settings.price_file,
        native_tools=settings.native_tools,
        until=engine_deadline(settings),
        **dataclasses.asdict(settings.model_call),
    )
    if spec_override is None and hasattr(
        chosen, "position"
    ):  # scripted/replayed replies already used are skipped
        chosen.position = used
    return chosen


def resume_agent(
    run_id: str,
    *,
    model: str | None = None,
    home: str | None = None,
    max_steps: int | None = None,
    max_cost: float | str | None = None,
    timeout: float | None = None,
    progress: Callable[[dict], None] | None = None,
) -> AgentOutcome:
    workspace, point, trajectory = _open(run_id, home)
    data = trajectory.data
    status, reason = data.get("status"), data.get("reason")
    if status == DONE:
        raise AgentSetupError(
            f"run {workspace.run_id} already finished (done: {reason}); give it a follow-up "
            f'with `repofix continue {workspace.run_id} "INSTRUCTION"`'
        )
    if status == NOT_DONE and reason not in RESUMABLE:
        raise AgentSetupError(
            f"run {workspace.run_id} stopped because it was {reason} ({data.get('message', '')}); "
            f'`repofix continue {workspace.run_id} "INSTRUCTION"` can give it a new direction'
        )
    settings = _settings(data, max_steps=max_steps, max_cost=max_cost, timeout=timeout)
    spent = trajectory.totals()["cost"]
    _check_limits(data, settings, spent)
    chosen = _model(model, data, settings, spent, len(trajectory.steps))
    notify = progress or (lambda event: None)
    claim(workspace, point)  # from here on the run is ours and `running`
    best = data.get("best_checkpoint", point.checkpoint) if status == NOT_DONE else point.checkpoint
    with stops_recorded(workspace, trajectory) as stack:
        with owned_tempdir("tree-") as tmp:
            tree = workspace.export(Path(tmp) / "tree", best)
            sandbox = stack.enter_context(contextlib.closing(open_run_sandbox(settings, tree)))
            map_text = repo_map(tree, settings.map_tokens) if "progress" not in data else ""
        if "progress" not in data or not data.get("messages"):
            return _from_baseline(settings, chosen, workspace, sandbox, trajectory, notify, map_text)
        if best != point.checkpoint:  # the workspace's latest is worse than the best: make the best current
            workspace.restore(
                sandbox, best, step=len(trajectory.steps), reason="resumed from the best checkpoint"
            )
        state = Progress.from_dict(data["progress"])
        messages = list(data["messages"])
        why = "was interrupted" if status != NOT_DONE else f"stopped ({reason}: {data.get('message', '')})"
        messages.append(
            {
                "role": "user",
                "content": (
                    f"[repofix: this run {why} and has been resumed. The workspace is at checkpoint "
                    f"{workspace.current().n}; anything after your last observation was lost or kept as that checkpoint "
                    "shows. Continue.]"
                ),
            }
        )
        run = AgentRun(
            settings,
            chosen,
            workspace,
            sandbox,
            trajectory,
            state,
            messages,
            openai_tools(),
            notify,
            step=len(trajectory.steps),
            spent=spent,
        )
        return _go_on(run, best, data.get("task", ""), resumed_at_step=run.step)


def _from_baseline(settings, chosen, workspace, sandbox, trajectory, notify, map_text) -> AgentOutcome:
    """The run was killed before its baseline was recorded: take it now, as a new run does."""
    data = trajectory.data
    request = AgentRequest(
        repo=workspace.source.location,
        instruction=data.get("task", ""),
        mode=data.get("mode", "fix"),
        targets=tuple(data.get("targets") or ()),
    )
    run = prepare_run(request, settings, chosen, workspace, sandbox, trajectory, notify, map_text)
    if isinstance(run, AgentOutcome):
        return run
    run_loop(run)
    return finish(run, request.instruction)


def continue_agent(
    run_id: str,
    instruction: str,
    *,
    model: str | None = None,
    home: str | None = None,
    max_steps: int | None = None,
    max_cost: float | str | None = None,
    timeout: float | None = None,
    progress: Callable[[dict], None] | None = None,
) -> AgentOutcome:
    """A follow-up on a finished run: the result so far becomes the new baseline (so what the first phase
    fixed is protected), the model first writes failing tests for the follow-up, then makes them pass."""
    if not instruction.strip():
        raise AgentSetupError(
            'give the follow-up instruction, e.g. repofix continue RUN "also handle negatives"'
        )
    workspace, point, trajectory = _open(run_id, home)
    data = trajectory.data
    if data.get("status") not in FINISHED or "progress" not in data:
        raise AgentSetupError(
            f"run {workspace.run_id} has not finished; `repofix resume {workspace.run_id}` goes on with it"
        )
    if not data.get("messages"):  # it found nothing to do and never spoke to a model
        raise AgentSetupError(
            f"run {workspace.run_id} ended without a conversation ({data.get('reason')}); "
            "start a new run with the instruction instead"
        )
    steps = len(trajectory.steps)
    recorded = _settings(data)
    settings = _settings(
        data, max_steps=max_steps or steps + recorded.max_steps, max_cost=max_cost, timeout=timeout
    )
    spent = trajectory.totals()["cost"]
    _check_limits({**data, "reason": None}, settings, spent)
    chosen = _model(model, data, settings, spent, steps)
    notify = progress or (lambda event: None)
    final = (data.get("delivered") or {}).get("checkpoint", point.checkpoint)
    phases = [
        *data.get("phases", []),
        {
            "task": data.get("task", ""),
            "status": data.get("status"),
            "reason": data.get("reason"),
            "steps": steps,
        },
    ]
    claim(workspace, point)
    with stops_recorded(workspace, trajectory) as stack:
        with owned_tempdir("tree-") as tmp:
            tree = workspace.export(Path(tmp) / "tree", final)
            sandbox = stack.enter_context(contextlib.closing(open_run_sandbox(settings, tree)))
        if final != point.checkpoint:
            workspace.restore(sandbox, final, step=steps, reason="continued from the delivered checkpoint")
        before = Progress.from_dict(data["progress"])
        state = Progress(
            command=before.command,
            baseline=dict(before.latest),
            flaky=set(before.flaky),
            latest=dict(before.latest),
            phase="red" if settings.tests_first is not False else "green",
        )
        goal = (
            prompt("goal_red") if state.phase == "red" else prompt("goal_submit")
        )  # no targets: done on submit
        messages = [
            *data["messages"],
            {
                "role": "user",
                "content": (
                    f"[repofix: the previous task is finished ({data.get('status')}: {data.get('reason')}). The workspace "
                    f"is at checkpoint {workspace.current().n}, and the tests stand at {state.summary()}; that is the new "
                    f"baseline.]\n\nNew task: {instruction}\n\n{goal}"
                ),
            },
        ]
        run = AgentRun(
            settings,
            chosen,
            workspace,
            sandbox,
            trajectory,
            state,
            messages,
            openai_tools(),
            notify,
            step=steps,
            spent=spent,
        )
        return _go_on(
            run,
            workspace.current().n,
            instruction,
            message="",
            task=instruction,
            phases=phases,
            progress=state.to_dict(),
            summary="",
        )


def _go_on(run: AgentRun, best: int, instruction: str, **recorded: object) -> AgentOutcome:
    """The part resume and continue share once their run is built: the best so far, the trajectory
    marked running again (with what each records), the loop, the outcome."""
    run.best = (run.progress.score(), best)
    run.trajectory.save(run.messages, status="running", reason=None, **recorded)
    run_loop(run)
    return finish(run, instruction)
