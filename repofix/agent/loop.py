"""The write -> execute -> observe loop. Everything it calls lives in `run.AgentRun`."""

from __future__ import annotations

import time

from repofix.agent.actions import Action, FormatError, parse_action
from repofix.agent.recover import restart_sandbox
from repofix.agent.run import AgentRun, StopRun
from repofix.sandboxes import RunnerDied


def run_loop(run: AgentRun) -> str:
    """Drive the model until the done rule holds or a stop rule fires; returns the stop reason."""
    while True:
        reason = run.limit_reached()
        if reason:
            return reason
        try:
            reply = run.ask_model()  # the cost cap is checked before every call
        except StopRun as stop:
            run.stop(stop.reason, str(stop))
            return stop.reason
        began = time.monotonic()
        if reply.give_up:  # a model that says it cannot do it (the built-in engine does): stop, saying why
            action: Action | FormatError = Action("give_up", {"reason": run.give_up(reply.content)})
            observation = f"The model gave up: {run.stop_message}"
        elif isinstance(action := parse_action(reply), FormatError):
            observation = run.format_error(action)  # three in a row stop the run
        else:
            try:
                observation = run.execute(action)  # sync, checkpoint, guards, tests, feedback
            except RunnerDied as died:  # the step killed every process, the session runner too
                observation = restart_sandbox(run, died)  # from the current checkpoint; a limit stops it
        run.record(reply, action, observation, time.monotonic() - began)  # trajectory saved here
        if run.stop_reason:  # done (verified), gave up, stuck, format errors
            return run.stop_reason
