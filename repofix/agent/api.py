"""Starting, resuming and finishing agent runs: task -> workspace -> sandbox -> loop -> result."""

from __future__ import annotations

import contextlib
import dataclasses
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from repofix.agent import execute
from repofix.agent.actions import openai_tools
from repofix.agent.loop import run_loop
from repofix.agent.observe import Observer
from repofix.agent.progress import Progress
from repofix.agent.repomap import repo_map
from repofix.agent.run import AgentRun, prompt
from repofix.agent.trajectory import Trajectory
from repofix.agent.verify import verification_tree
from repofix.config import Settings, load_settings, with_flags
from repofix.edits import FORMATS
from repofix.models import check_credentials, describe_missing_model, make_model
from repofix.models.base import Model
from repofix.runs import runs_dir
from repofix.sandboxes import Limits, Sandbox, SandboxError, choose_backend, interpreter, open_sandbox
from repofix.sandboxes.cleanup import owned_tempdir
from repofix.testing import RunStatus, TestRun, condense, take_baseline
from repofix.workspace import Workspace
from repofix.workspace.deliver import deliver

DONE, NOT_DONE, ERROR = "done", "not_done", "error"


class AgentSetupError(RuntimeError):
    """The run could not start (no model, no sandbox, bad repository); nothing was changed."""


@dataclass
class AgentRequest:
    repo: Path | str  # a local path, a git URL, or owner/name (with --mirror)
    instruction: str = ""  # the task text; for `fix` it may be empty (make the failing tests pass)
    mode: str = "fix"  # "fix" | "implement"
    model: str | None = None
    sandbox: str | None = None
    max_steps: int | None = None
    max_cost: float | None = None
    timeout: float | None = None
    test_cmd: str | None = None
    python: str | None = None  # bwrap: the project's interpreter (--python)
    targets: tuple[str, ...] = ()  # test ids the task names (fix -k / node ids)
    tests_first: bool | None = None
    rev: str | None = None
    settings: Settings | None = None  # already resolved settings (the flags above still override)
    trust_repo_config: bool | None = None  # the repository's config may set everything (None: the env var)


@dataclass
class AgentOutcome:
    status: str  # done | not_done | error
    reason: str  # the stop rule: done, step_limit, cost_limit, time_limit, stuck, format_errors, ...
    message: str
    patch: str
    run_id: str
    run_dir: Path
    tests_before: str
    tests_after: str
    files_changed: list[str]
    cost: float
    summary: str
    steps: int
    branch: str | None = None
    patch_file: str | None = None
    trajectory_file: str | None = None
    checkpoint: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    commit: str | None = None  # the fix commit at the branch's tip
    snapshot: str | None = None  # below it, the user's uncommitted work the run started from (if any)


def resolve_settings(request: AgentRequest) -> Settings:
    local = Path(request.repo) if Path(str(request.repo)).is_dir() else None
    overrides = dict(
        model=request.model,
        sandbox=request.sandbox,
        max_steps=request.max_steps,
        max_cost=request.max_cost,
        timeout=request.timeout,
        test_cmd=request.test_cmd,
        tests_first=request.tests_first,
        python=request.python,
    )
    if request.settings is None:
        return load_settings(local, trust_repo=request.trust_repo_config, **overrides)
    return with_flags(request.settings, **overrides)


def choose_model_spec(settings: Settings, mode: str, described: bool = False) -> tuple[str, str]:
    """The model spec to use and a note for the user when it was chosen for them. The built-in
    engine only makes failing tests pass: a feature or a described bug needs a language model."""
    if settings.model:
        return settings.model, ""

    if mode != "fix":
        raise AgentSetupError(
            describe_missing_model() + "\n(The built-in repair engine only fixes bugs; "
            "`implement` needs a language model.)"
        )
    if described:
        raise AgentSetupError(
            describe_missing_model() + "\n(The built-in repair engine only makes failing "
            "tests pass; a described bug needs a language model to write its regression "
            "test. Without a description, `repofix fix` works on the failing tests.)"
        )
    return "builtin", "No model is configured: using the built-in repair engine (offline, no LLM)."


def open_run_sandbox(settings: Settings, tree: Path):
    limits = Limits(timeout=settings.command_timeout, **settings.limits.given())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the CLI prints its own warning for --sandbox none
        box = open_sandbox(
            tree,
            backend=settings.sandbox,
            limits=limits,
            setup=settings.setup,
            image=settings.image,
            python=settings.python,
        )
    box.changes()  # what setup wrote is the starting state, not a change
    execute.preload_helpers(box)
    return box


def pin_interpreter(settings: Settings, repo: Path | str) -> tuple[Settings, str]:
    """For bwrap, choose the project's interpreter once, from the user's checkout (the sandbox gets a
    copy without its .venv): the verification sandbox and a resumed run use the same one. A bad choice
    stops here, before anything is made. Returns the settings and a note for the user."""

    try:
        backend = choose_backend(settings.sandbox)
    except SandboxError:
        return settings, ""  # opening the sandbox says why, in the run's record
    if backend != "bwrap":
        return settings, (
            f"python = {settings.python} is for the bwrap sandbox; the {backend} sandbox runs its own Python"
            if settings.python
            else ""
        )
    local = Path(str(repo)) if Path(str(repo)).is_dir() else None
    chosen = interpreter.choose(settings.python, local)
    if chosen.fallback:  # the machine's python3: found again the same way, nothing to record
        return settings, ""
    return dataclasses.replace(settings, python=chosen.executable), ""


def run_agent(request: AgentRequest, progress: Callable[[dict], None] | None = None) -> AgentOutcome:
    """Run the agent on a new workspace; always returns an outcome (errors included) once the run exists."""

    settings = resolve_settings(request)
    spec, note = choose_model_spec(settings, request.mode, described=bool(request.instruction.strip()))
    notify = progress or (lambda event: None)
    settings, python_note = pin_interpreter(settings, request.repo)
    for line in [*settings.notices, note, python_note]:
        if line:
            notify({"event": "note", "message": line})
    model = make_model(
        spec,
        max_cost=settings.max_cost,
        api_base=settings.api_base,
        price_file=settings.price_file,
        native_tools=settings.native_tools,
        runs_dir=_runs_dir(settings),
        **dataclasses.asdict(settings.model_call),
    )
    check_credentials(model)  # a missing key stops here, before any workspace or sandbox exists
    label = (request.instruction or request.mode)[:40]
    workspace = Workspace.create(
        request.repo,
        rev=request.rev,
        mirror=Path(settings.mirror) if settings.mirror else None,
        home=settings.home,
        label=label,
        local_submodules=settings.allow_local_submodules,
    )
    notify({"event": "workspace", "run_id": workspace.run_id, "run_dir": str(workspace.folder.root)})
    trajectory = Trajectory.start(
        workspace.folder.trajectory_file,
        run_id=workspace.run_id,
        mode=request.mode,
        task=request.instruction,
        model=spec,
        targets=list(request.targets),
        settings=_public_settings(settings),
    )
    # a sandbox that cannot start ends the run as an error too, not as "running" forever
    with stops_recorded(workspace, trajectory) as stack:
        with owned_tempdir("tree-") as tmp:
            tree = workspace.export(Path(tmp) / "tree")
            notify({"event": "sandbox", "backend": settings.sandbox or "auto"})
            sandbox = stack.enter_context(contextlib.closing(open_run_sandbox(settings, tree)))
            map_text = repo_map(tree, settings.map_tokens)
        run = prepare_run(request, settings, model, workspace, sandbox, trajectory, notify, map_text)
        if isinstance(run, AgentOutcome):
            return run
        run_loop(run)
        return finish(run, request.instruction)


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
        return _outcome(workspace, trajectory, state, NOT_DONE, "tests_broken", broken, None, state.summary())
    if goal is None:
        message = "the tests ran and none fails, and no task was described: nothing to fix"
        trajectory.save(status="done", reason="nothing_to_fix", message=message, progress=state.to_dict())
        return _outcome(
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


@contextlib.contextmanager
def stops_recorded(workspace, trajectory: Trajectory) -> Iterator[contextlib.ExitStack]:
    """The one way a run's body ends early (start, resume and continue alike): whatever stops it is
    recorded by `mark_stopped`, then every sandbox entered on the yielded stack is closed."""
    with contextlib.ExitStack() as stack:
        try:
            yield stack
        except BaseException as error:
            mark_stopped(workspace, trajectory, error)
            raise


def mark_stopped(workspace, trajectory: Trajectory, error: BaseException) -> None:
    """Record why a run stopped early. A signal or a resource failure (full disk, read-only folder, no
    sandbox engine) leaves it `interrupted`, to be resumed; anything else is an `error`. A full disk may
    refuse this record too: the error that stopped the run is the one to report, not this one."""
    resumable = isinstance(error, (KeyboardInterrupt, SystemExit, OSError, SandboxError))
    status = "interrupted" if resumable else ERROR
    with contextlib.suppress(OSError):
        trajectory.save(status=status, reason=type(error).__name__, error=str(error))
        workspace.folder.update_state(status=status, error=f"{type(error).__name__}: {error}")


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


def finish(run: AgentRun, task: str) -> AgentOutcome:
    """Deliver the best checkpoint with an honest status, and write the final record."""

    assert run.stopped is not None, "finish() is for a run that stopped"
    workspace, state = run.workspace, run.progress
    reason, message = run.stopped.reason, run.stopped.message
    done = reason == "done" and run.verified  # only the independent verification says done
    checkpoint = run.best[1]
    if done:  # the verification records the checkpoint it verified together with run.verified
        assert run.verified_checkpoint is not None
        checkpoint = run.verified_checkpoint
    summary = run.trajectory.data.get("summary") or ""
    delivery = deliver(
        workspace,
        checkpoint,
        task=task or default_title(state),
        summary=summary,
        status="resolved" if done else reason,
        make_branch=done,
    )
    after = state.summary()
    if run.last_check is not None and run.last_check[0] == checkpoint:  # what the verifier saw is the truth
        checked = run.last_check[1].run
        after = state.summary({i: r.outcome.value for i, r in checked.results.items()})
    not_counted = verification_tree(workspace, checkpoint, state.reference).not_counted
    run.trajectory.save(
        run.messages,
        status=DONE if done else NOT_DONE,
        reason=reason,
        message=message,
        final_patch=Path(delivery.patch).read_text(encoding="utf-8", errors="replace"),
        delivered=dataclasses.asdict(delivery),
        not_counted=not_counted,
    )
    outcome = _outcome(
        workspace, run.trajectory, state, DONE if done else NOT_DONE, reason, message, delivery, after, run
    )
    if not_counted:
        outcome.extra["test_infra_not_counted"] = not_counted
    return outcome


def default_title(state: Progress) -> str:
    """A commit title (and branch slug) for a run that had no task text: the tests it fixes."""
    names = [target.rsplit("::", 1)[-1] for target in state.all_targets()]
    if not names:
        return "Make the failing tests pass"
    return f"Fix {names[0]}" + (f" (+{len(names) - 1} more)" if len(names) > 1 else "")


def _outcome(
    workspace, trajectory, state, status, reason, message, delivery, after, run=None
) -> AgentOutcome:
    patch = Path(delivery.patch).read_text(encoding="utf-8", errors="replace") if delivery else ""
    return AgentOutcome(
        status=status,
        reason=reason,
        message=message,
        patch=patch,
        run_id=workspace.run_id,
        run_dir=workspace.folder.root,
        tests_before=state.summary(state.baseline),
        tests_after=after,
        files_changed=list(delivery.files) if delivery else [],
        cost=run.spent if run else 0.0,
        summary=trajectory.data.get("summary") or "",
        steps=run.step if run else 0,
        branch=delivery.branch if delivery else None,
        patch_file=delivery.patch if delivery else None,
        trajectory_file=str(trajectory.path),
        checkpoint=delivery.checkpoint if delivery else None,
        extra=_token_counts(trajectory),
        commit=delivery.commit if delivery else None,
        snapshot=delivery.snapshot if delivery else None,
    )


def _token_counts(trajectory: Trajectory) -> dict[str, int]:
    totals = trajectory.totals()
    tokens_in, tokens_out = int(totals["input_tokens"]), int(totals["output_tokens"])
    return {
        "tokens": tokens_in + tokens_out,
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "cached_tokens": int(totals["cached_tokens"]),
        "cache_write_tokens": int(totals["cache_write_tokens"]),
    }


def _baseline_text(run, state: Progress, settings: Settings, sandbox) -> str:
    """The baseline for the first prompt; its "Full log:" is a file in the model's sandbox."""

    readable = Observer(sandbox, settings.observation_tokens).test_log(run, 0, "baseline")
    return condense(readable, None, budget=settings.feedback_tokens // 2, flaky=state.flaky)


def _formats() -> str:
    return FORMATS


def _runs_dir(settings: Settings) -> Path:
    return runs_dir(settings.home)


def _public_settings(settings: Settings) -> dict[str, Any]:
    return {k: v for k, v in dataclasses.asdict(settings).items() if k not in ("extra", "notices")}
