"""A sandbox whose session runner died in the middle of a step: a model's `kill -9 -1` kills every
process it can see, the runner included. The run goes on: the runner is restarted, the sandbox's
workspace is put back to the current checkpoint (bubblewrap's tmpfs died with the runner; Docker's
survives, but what the step did to it was never checkpointed), the Python helpers are loaded again
and the model is told. After `MAX_RESTARTS` restarts in one run the run stops instead, so a model
that keeps doing it cannot loop forever."""

from __future__ import annotations

from typing import TYPE_CHECKING

from repofix.agent import execute
from repofix.sandboxes import ChannelForged, MalformedReply, RunnerDied

if TYPE_CHECKING:
    from repofix.agent.run import AgentRun

MAX_RESTARTS = 3
STOP_REASON = "sandbox_killed"


def restarts(run: AgentRun) -> list[dict]:
    """The restarts of this run so far (kept in the trajectory, so a resumed run counts them too)."""
    return run.trajectory.data.setdefault("restarts", [])


def restart_sandbox(run: AgentRun, died: RunnerDied) -> str:
    """Restart the dead runner from the current checkpoint; returns the observation for the model."""
    what, cause = describe(died)
    done = restarts(run)
    current = run.workspace.current()
    if len(done) >= MAX_RESTARTS:
        message = (
            f"{what} {len(done) + 1} times; repofix restarted the sandbox {len(done)} "
            f"times (the limit) and stopped at checkpoint {current.n}"
        )
        run.stop(STOP_REASON, message)
        restart_runner(run)  # only so the step can be recorded (its observation saved in the sandbox)
        return f"[repofix: {cause}, again. The run stops here: {message}.]"
    run.notify(
        {
            "event": "note",
            "message": f"step {run.step}: the session runner in the sandbox died "
            f"({type(died).__name__}); restarting it from checkpoint {current.n}",
        }
    )
    restart_runner(run)
    restored = run.workspace.restore(
        run.sandbox, current.n, step=run.step, full=True, rescue_first=False, reason=what
    )
    execute.preload_helpers(run.sandbox)
    done.append(
        {
            "step": run.step,
            "checkpoint": current.n,
            "recorded_as": restored.checkpoint.n,
            "error": type(died).__name__,
        }
    )
    left = MAX_RESTARTS - len(done)
    when = f"after step {current.step}" if current.step else "the starting state"
    return (
        f"[repofix: {cause}; repofix restarted it from checkpoint {current.n} ({when}): "
        "the repository's files are as that checkpoint holds them (changes made since are gone). "
        "Shell and Python state are gone (the working directory, exported variables, Python variables; the "
        "Python helpers are loaded again), and so are background processes and, on some backends, the logs "
        f"saved under /tmp. To stop one program, kill it by its pid. {left} more restart(s) are allowed in "
        "this run; after that the run stops.]"
    )


def describe(died: RunnerDied) -> tuple[str, str]:
    """(what happened, its cause as the model is told it): a forged channel and a reply that breaks the
    protocol end the runner too, but the model did not kill everything."""
    if isinstance(died, ChannelForged):
        return (
            "the session runner's channel was forged",
            "a process wrote into the session runner's channel, so repofix killed the runner",
        )
    if isinstance(died, MalformedReply):
        return (
            "the session runner broke the protocol",
            "the session runner sent a reply that breaks its protocol, so repofix killed it",
        )
    what = "the sandbox's processes were all killed"
    return what, f"{what} (the session runner that carries out your actions among them)"


def restart_runner(run: AgentRun) -> None:
    run.sandbox.restart()
    if run.observer is not None:
        run.observer.sandbox_restarted()
