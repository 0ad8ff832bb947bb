"""The write -> execute -> observe loop. Everything it calls lives in `run.AgentRun`."""

from __future__ import annotations

import time

from repofix.agent.actions import Action, FormatError, parse_action
from repofix.agent.recover import restart_sandbox
from repofix.agent.run import AgentRun, Stop
from repofix.sandboxes import RunnerDied


def run_loop(run: AgentRun) -> Stop:
    """Drive the model until a stop rule fires: every rule (a limit, the model's error or giving up,
    malformed replies, a stuck model, a dead sandbox, the verified done rule) calls `run.stop`,
    and the loop ends after the step that did. Returns that stop."""
    while run.stopped is None:
        step(run)
    return run.stopped


def step(run: AgentRun) -> None:
    """One step: check the limits, ask the model, carry out its action, record what happened."""
    run.check_limits()
    if run.stopped:
        return
    reply = run.ask_model()  # the cost cap is checked before every call
    if reply is None:  # the model cannot go on: the run stopped, nothing to record
        return
    began = time.monotonic()
    if reply.give_up:  # a model that says it cannot do it (the built-in engine does): stop, saying why
        reason = run.give_up(reply.content)
        action: Action | FormatError = Action("give_up", {"reason": reason})
        observation = f"The model gave up: {reason}"
    elif isinstance(action := parse_action(reply), FormatError):
        observation = run.format_error(action)  # three in a row stop the run
    else:
        try:
            observation = run.execute(action)  # sync, checkpoint, guards, tests, feedback
        except RunnerDied as died:  # the step killed every process, the session runner too
            observation = restart_sandbox(run, died)  # from the current checkpoint; a limit stops it
    run.record(reply, action, observation, time.monotonic() - began)  # trajectory saved here
