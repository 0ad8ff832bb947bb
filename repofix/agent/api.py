"""Starting an agent run: task -> settings -> model -> workspace -> sandbox -> `prepare_run` -> loop -> `finish`."""

from __future__ import annotations

import contextlib
import dataclasses
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from repofix.agent import execute
from repofix.agent.finish import finish
from repofix.agent.loop import run_loop
from repofix.agent.prepare import prepare_run
from repofix.agent.repomap import repo_map
from repofix.agent.request import ERROR, AgentOutcome, AgentRequest, AgentSetupError
from repofix.agent.trajectory import Trajectory
from repofix.config import Settings, load_settings
from repofix.models import check_credentials, describe_missing_model, make_model
from repofix.runs import runs_dir
from repofix.sandboxes import Limits, SandboxError, TreeTooBig, choose_backend, interpreter, open_sandbox
from repofix.sandboxes.cleanup import owned_tempdir
from repofix.workspace import Workspace
from repofix.workspace.errors import GitError


def resolve_settings(request: AgentRequest) -> Settings:
    """The request's settings; none given: what `load_settings` finds for the repository (no flags)."""
    if request.settings is not None:
        return request.settings
    local = Path(request.repo) if Path(str(request.repo)).is_dir() else None
    return load_settings(local, trust_repo=request.trust_repo_config)


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


# the share of --timeout the built-in engine may plan its search in (a 60 s run's engine planned
# 300 s and ran on to 95 s); the rest is for the run's own steps after its last (the verification)
ENGINE_SHARE = 0.9


def engine_deadline(settings: Settings) -> float:
    """When the built-in engine must be done (`time.monotonic()`), for a run starting now."""
    return time.monotonic() + settings.timeout * ENGINE_SHARE


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
        until=engine_deadline(settings),
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
    sandbox engine, a git write that failed) leaves it `interrupted`, to be resumed; anything else is an
    `error`, as is a tree too big for the sandbox (a resume keeps the run's limits). A full disk may
    refuse this record too: the error that stopped the run is the one to report, not this one."""
    resource = isinstance(error, (KeyboardInterrupt, SystemExit, OSError, SandboxError)) or (
        isinstance(error, GitError) and error.write_failed
    )
    resumable = resource and not isinstance(error, TreeTooBig)
    status = "interrupted" if resumable else ERROR
    with contextlib.suppress(OSError):
        trajectory.save(status=status, reason=type(error).__name__, error=str(error))
        workspace.folder.update_state(status=status, error=f"{type(error).__name__}: {error}")


def _runs_dir(settings: Settings) -> Path:
    return runs_dir(settings.home)


def _public_settings(settings: Settings) -> dict[str, Any]:
    return {k: v for k, v in dataclasses.asdict(settings).items() if k not in ("extra", "notices")}
