"""The start of a run, shared by a new run and a resumed one killed before its baseline: the baseline,
the phase and goal it implies, and the first prompt."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from repofix.agent.actions import openai_tools
from repofix.agent.finish import outcome_of
from repofix.agent.observe import Observer
from repofix.agent.progress import Progress
from repofix.agent.request import NOT_DONE, AgentOutcome, AgentRequest
from repofix.agent.run import AgentRun
from repofix.agent.templates import prompt
from repofix.agent.trajectory import Trajectory
from repofix.config import Settings
from repofix.edits import FORMATS
from repofix.models.base import Model
from repofix.sandboxes import Sandbox
from repofix.testing import RunStatus, TestRun, condense, take_baseline
from repofix.workspace import Workspace


def prepare_run(
    request: AgentRequest,
    settings: Settings,
    model: Model,
    workspace: Workspace,
    sandbox: Sandbox,
    trajectory: Trajectory,
    notify: Callable[[dict], None] = lambda event: None,
    map_text: str = "",
) -> AgentRun | AgentOutcome:
    """Take the baseline in `sandbox`, plan the goal and write the first prompt: a run ready for
    `run_loop`, or the outcome when there is nothing to run (the suite cannot run; nothing fails and
    no task was described). A new run and a resumed run killed before its baseline both start here;
    the model and the sandbox are whatever the caller made (tests pass a scripted model)."""
    notify({"event": "baseline"})
    baseline = take_baseline(
        sandbox, settings.test_cmd, timeout=settings.test_timeout, log_dir=workspace.folder.root / "logs"
    )
    state = Progress.from_baseline(baseline.run, baseline.flaky)
    goal = plan(state, request, settings, uncollected(baseline.run))
    notify({"event": "baselined", "summary": state.summary(), "phase": state.phase})
    broken = baseline_problem(baseline.run, state, goal)
    if broken:
        trajectory.save(status=NOT_DONE, reason="tests_broken", message=broken, progress=state.to_dict())
        workspace.folder.update_state(status=NOT_DONE)
        return outcome_of(
            workspace, trajectory, state, NOT_DONE, "tests_broken", broken, None, state.summary()
        )
    if goal is None:
        message = "the tests ran and none fails, and no task was described: nothing to fix"
        trajectory.save(status="done", reason="nothing_to_fix", message=message, progress=state.to_dict())
        return outcome_of(
            workspace, trajectory, state, "done", "nothing_to_fix", message, None, state.summary()
        )
    first = prompt(
        "task",
        mode=request.mode,
        task=request.instruction or "Make the failing tests pass.",
        goal=goal,
        repo_map=map_text,
        baseline=_baseline_text(baseline.run, state, settings, sandbox),
    )
    messages = [
        {"role": "system", "content": prompt("system", formats=_formats())},
        {"role": "user", "content": first},
    ]
    run = AgentRun(settings, model, workspace, sandbox, trajectory, state, messages, openai_tools(), notify)
    run.best = (state.score(), workspace.current().n)
    trajectory.save(messages, status="running", progress=state.to_dict())
    return run


def uncollected(run: TestRun) -> list[str]:
    """Test modules that failed to collect: never targets, since their test ids appear only once they do."""
    return sorted(i for i, r in run.results.items() if r.phase == "collect")


def baseline_problem(run: TestRun, state: Progress, goal: str | None) -> str:
    """Why the suite as the user has it cannot judge a fix (a conftest that fails to import, nothing
    collected, no runner, only modules that fail to collect), or "" when it can. Only a red phase may
    start from no tests at all: its first job is to write them."""

    broken = uncollected(run)
    if run.status.ran_tests and (goal is not None or not broken):
        return ""
    if run.status is RunStatus.NO_TESTS and state.phase == "red":
        return ""
    tail = "\n".join(f"  | {line}" for line in run.output.strip().splitlines()[-15:])
    detail = run.detail or f"{len(broken)} test module(s) failed to collect: {', '.join(broken[:5])}"
    return (
        f"the test suite cannot run as it is, before any change ({run.status.value}: {detail}); "
        f"repofix needs a working test run to judge a fix. Fix the test setup, or give --test-cmd or "
        f"--setup, then run again.\n  $ {run.command}\n{tail}"
    ).rstrip()


def plan(state: Progress, request: AgentRequest, settings: Settings, skip: Sequence[str] = ()) -> str | None:
    """Set the phase and targets; returns the goal text, or None when there is nothing to do."""
    tests_first = settings.tests_first
    if request.mode == "implement":
        state.phase = "red" if tests_first is not False else "green"
    elif request.targets or state.failing_before:
        keyword = (settings.extra or {}).get("keyword", "").lower()
        state.targets = list(request.targets) or [
            t for t in state.failing_before if keyword in t.lower() and t not in skip
        ]
        if not state.targets:
            return None
        state.phase = "fix"
    elif request.instruction:  # a described bug: a regression test first
        state.phase = "red" if tests_first is not False else "green"
    else:
        return None
    if state.phase == "red":
        return prompt("goal_red")
    if state.phase == "green" and not state.targets:  # tests first off: done only on `submit`
        return prompt("goal_submit")
    listing = "\n".join(f"- {t}" for t in state.targets) or "(none named: keep every passing test passing)"
    return prompt("goal_fix" if state.phase == "fix" else "goal_green", targets=listing)


def _baseline_text(run, state: Progress, settings: Settings, sandbox) -> str:
    """The baseline for the first prompt; its "Full log:" is a file in the model's sandbox."""

    readable = Observer(sandbox, settings.observation_tokens).test_log(run, 0, "baseline")
    return condense(readable, None, budget=settings.feedback_tokens // 2, flaky=state.flaky)


def _formats() -> str:
    return FORMATS
