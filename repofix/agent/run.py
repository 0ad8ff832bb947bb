"""One agent run's state and the steps the loop calls: ask the model, carry out an action,
and after any change sync, checkpoint, guard, test and report; roll back when things get worse."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from repofix.agent import execute, history, judge
from repofix.agent.actions import Action, FormatError, resolve_paths
from repofix.agent.observe import LOG_PATH, Observer
from repofix.agent.progress import Progress, test_file
from repofix.agent.trajectory import Trajectory
from repofix.agent.verify import Verification
from repofix.config import Settings
from repofix.models import (
    ContextLengthError,
    CostLimitExceeded,
    ModelAuthError,
    ModelError,
    ModelGaveUp,
    ModelReply,
)
from repofix.models.base import Model
from repofix.models.chain import reads_whole_output
from repofix.sandboxes import Sandbox
from repofix.testing import TestRun, condense, run_tests, select_tests
from repofix.workspace import Workspace
from repofix.workspace.guards import GuardConfig, enforce

STUCK_REPEATS = 3
MAX_FORMAT_ERRORS = 3
UNBOUNDED = 10**9  # observation budget for a model that reads outputs whole (the built-in engine)


@dataclass(frozen=True)
class Stop:
    """Why a run stopped: `reason` is the stop status (done, step_limit, cost_limit, stuck, ...),
    `message` says it to a person. Every stop goes through `AgentRun.stop`; the loop checks it."""

    reason: str
    message: str


@dataclass
class AgentRun:
    settings: Settings
    model: Model
    workspace: Workspace
    sandbox: Sandbox
    trajectory: Trajectory
    progress: Progress
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    notify: Callable[[dict[str, Any]], None] = lambda event: None
    step: int = 0
    started: float = field(default_factory=time.monotonic)
    best: tuple[tuple[int, int], int] = ((0, 0), 0)  # (score, checkpoint number)
    worse_streak: int = 0
    format_errors: int = 0
    stopped: Stop | None = None  # set once, by `stop`; the loop ends after the step that set it
    recent: deque = field(default_factory=lambda: deque(maxlen=STUCK_REPEATS))
    spent: float = 0.0
    verified: bool = False  # the independent verification run satisfied the done rule
    verified_checkpoint: int | None = None  # the checkpoint it verified: the one delivered
    last_check: tuple[int, Verification] | None = None  # (checkpoint, its independent verification)
    observer: Observer | None = None  # bounds observations; full texts saved in the sandbox

    # -- limits ------------------------------------------------------------------------------
    def check_limits(self) -> None:
        if self.step >= self.settings.max_steps:
            self.stop("step_limit", f"the step limit ({self.settings.max_steps}) was reached")
        elif self.time_left() < 0:
            self.stop("time_limit", f"the time limit ({self.settings.timeout:.0f}s) was reached")

    def time_left(self) -> float:
        return self.settings.timeout - (time.monotonic() - self.started)

    # -- the model ---------------------------------------------------------------------------
    def ask_model(self) -> ModelReply | None:
        """The model's next reply, or None when the model cannot go on (the run is then stopped)."""
        self.step += 1
        self.notify({"event": "thinking", "step": self.step})
        try:
            reply = history.query(self.model, self.messages, self.tools, self.settings.history_steps)
        except CostLimitExceeded as error:
            self.stop("cost_limit", str(error))
            return None
        except ModelAuthError as error:
            self.stop("model_error", f"the model provider refused the credentials: {error}")
            return None
        except ModelGaveUp as error:  # the last model of a chain gave up
            self.stop("gave_up", str(error))
            return None
        except ContextLengthError as error:
            self.stop("model_error", f"the conversation no longer fits the model's context: {error}")
            return None
        except ModelError as error:
            self.stop("model_error", str(error))
            return None
        self.spent += reply.cost
        self.messages.append(reply.assistant_message())
        for note in reply.notes:  # remarks for the user (a price unknown, the built-in engine's doubts)
            self.notify({"event": "note", "message": note})
        return reply

    # -- actions -----------------------------------------------------------------------------
    def format_error(self, error: FormatError) -> str:
        self.format_errors += 1
        if self.format_errors >= MAX_FORMAT_ERRORS:
            self.stop("format_errors", f"{MAX_FORMAT_ERRORS} malformed replies in a row")
        return f"Format error: {error.message}"

    def execute(self, action: Action) -> str:
        self.format_errors = 0
        self.notify(
            {
                "event": "action",
                "step": self.step,
                "action": action.name,
                "detail": str(next(iter(action.arguments.values()), ""))[:80],
            }
        )
        # A command ends with the run's time: the limit is checked between steps, and a command
        # given its whole 300 s at the end of a run would overrun `--timeout` by as much.
        timeout = max(1.0, min(self.settings.command_timeout, self.time_left()))
        observer = self.observer = self.observer or Observer(self.sandbox, self.settings.observation_tokens)
        observer.budget = UNBOUNDED if reads_whole_output(self.model) else self.settings.observation_tokens
        action, refused = resolve_paths(action, self.sandbox.workdir)  # /workspace/x -> x
        if refused:
            return refused
        if action.name == "view":
            return execute.view(self.sandbox, action, observer)
        if action.name == "submit":
            return self.submit(action.arguments.get("summary", ""))
        if action.name == "run_tests":
            run = self.run_tests(action.arguments.get("tests") or ())
            return condense(
                run,
                self.progress.baseline_run(),
                budget=self.settings.feedback_tokens,
                flaky=self.progress.flaky,
                workdir=self.sandbox.workdir,
            )
        paths: list[str] | None = None  # None: commands ran, so the sandbox is scanned for what changed
        if action.name == "edit":
            text, paths = execute.edit(self.sandbox, action)  # an edit knows the files it wrote
            observation = observer.bound(text, self.step, "edit")
        elif action.name == "python":
            observation = execute.python(self.sandbox, action, timeout, observer, self.step)
        else:
            observation = execute.shell(self.sandbox, action, timeout, observer, self.step)
        after = self.after_change(paths)
        return observation + ("\n\n" + after if after else "")

    def run_tests(self, tests: Sequence[str] = ()) -> TestRun:
        self.notify({"event": "tests", "step": self.step, "selection": len(tests)})
        run = run_tests(
            self.sandbox,
            self.progress.command or self.settings.test_cmd,
            tests=tuple(tests),
            timeout=self.settings.test_timeout,
            log_dir=self.workspace.folder.root / "logs",
        )
        run.log_path = self.readable(run, "tests").log_path
        self.progress.update(run)
        self.notify({"event": "tested", "step": self.step, "summary": self.progress.summary()})
        return run

    def readable(self, run: TestRun, kind: str) -> TestRun:
        """`run` with its full output saved where the model can read it: in its sandbox, not on the host."""
        self.observer = self.observer or Observer(self.sandbox, self.settings.observation_tokens)
        return self.observer.test_log(run, self.step, kind)

    # -- after a change ----------------------------------------------------------------------
    def after_change(self, paths: Sequence[str] | None = None) -> str:
        """Checkpoint what changed (only `paths` when the caller knows them), guard it, test it, and say
        how things stand."""
        synced = self.workspace.sync(self.sandbox, step=self.step, label=f"step {self.step}", paths=paths)
        if synced.checkpoint is None:
            return synced.note
        self.notify({"event": "checkpoint", "step": self.step, "n": synced.checkpoint.n})
        guards = enforce(self.workspace, self.sandbox, synced, self.guard_config(), step=self.step)
        if guards.rolled_back is not None:
            return guards.note
        changed = synced.written + synced.deleted
        notes = [synced.note, guards.note]
        if self.progress.phase == "red":
            return "\n".join(n for n in notes if n)
        test_files = sorted({test_file(i) for i in [*self.progress.baseline, *self.progress.latest]})
        selection = (
            select_tests(self.progress.latest_run(), changed, test_files) if self.progress.latest else ()
        )
        run = self.run_tests(selection)
        notes.append(
            condense(
                run,
                self.progress.baseline_run(),
                budget=self.settings.feedback_tokens,
                flaky=self.progress.flaky,
                workdir=self.sandbox.workdir,
            )
        )
        notes.append(self.judge_progress(synced.checkpoint.n))
        if not self.progress.all_targets():  # tests first off: only `submit` says the task is complete
            notes.append(
                "No target tests: when the task is complete, `submit`; repofix then runs the full "
                "suite and checks that nothing that passed before fails."
            )
        elif self.progress.verdict().done and not self.stopped:
            notes.append(self.verify())
        return "\n\n".join(n for n in notes if n)

    def judge_progress(self, checkpoint: int) -> str:
        score, (best_score, best_n) = self.progress.score(), self.best
        if score >= best_score:
            self.best, self.worse_streak = (score, checkpoint), 0
            return ""
        self.worse_streak += 1
        if self.worse_streak < 2:
            return "Note: this step made things worse than your best checkpoint so far."
        restored = self.workspace.restore(
            self.sandbox, best_n, step=self.step, reason="two steps in a row made things worse"
        )
        self.worse_streak = 0
        self.run_tests()
        return f"Two steps in a row made things worse, so repofix rolled back to checkpoint {best_n}.\n{restored.note}"

    def guard_config(self) -> GuardConfig:
        protected = set(self.progress.passing_before) | set(self.progress.all_targets())
        return GuardConfig(protected_tests=frozenset(protected), allow=frozenset(self.settings.allow_guards))

    # -- finishing (the rules are in `agent/judge.py`) ----------------------------------------
    def verify(self) -> str:
        """The full suite, then the independent verification; stops the run as done when both hold."""
        return judge.verify(self)

    def submit(self, summary: str) -> str:
        return judge.submit(self, summary)

    def changed_files(self) -> set[str]:
        """The files the run has changed so far (the latest checkpoint against the start)."""
        store = self.workspace.store
        return {path for path, _ in store.changed(store.get(0).commit, store.latest().commit)}

    def give_up(self, content: str) -> str:
        """Stop as `gave_up` with the model's reason: the last line of what it said."""
        lines = [line.strip() for line in content.splitlines() if line.strip()]
        self.stop("gave_up", lines[-1] if lines else "the model gave up without saying why")
        return self.stopped.message if self.stopped else ""

    def stop(self, reason: str, message: str) -> None:
        """Stop the run after this step. The first stop is the one reported: a step that both
        verifies the task and repeats itself is done, not stuck."""
        if self.stopped is None:
            self.stopped = Stop(reason, message)

    def is_done(self) -> bool:
        return self.stopped is not None and self.stopped.reason == "done"

    def record(
        self, reply: ModelReply, action: Action | FormatError, observation: str, duration: float
    ) -> None:
        name, arguments = getattr(action, "name", "format_error"), getattr(action, "arguments", {})
        self.observer = self.observer or Observer(self.sandbox, self.settings.observation_tokens)
        line = history.record_line(
            self.step,
            name,
            arguments,
            observation,
            self.workspace.current().n,
            self.progress.summary(),
            self.observer.keep(observation, self.step),
        )
        asked_at = len(self.messages) - 1  # the reply's own turn
        self.messages.extend(history.answers(reply, observation, line))  # every tool call answered
        key = action.key() if isinstance(action, Action) else f"format:{action.message}"
        self.recent.append((key, LOG_PATH.sub("<log>", observation)))  # log names differ, results may not
        if len(self.recent) == STUCK_REPEATS and len(set(self.recent)) == 1:
            self.stop("stuck", f"the same action gave the same result {STUCK_REPEATS} times in a row")
        self.trajectory.add_step(
            step=self.step,
            reply=history.step_reply(reply, asked_at),
            action=name,
            arguments=arguments,
            observation=observation,
            cost=reply.cost,
            input_tokens=reply.input_tokens,
            output_tokens=reply.output_tokens,
            cached_tokens=reply.cached_tokens,
            cache_write_tokens=reply.cache_write_tokens,
            duration=round(duration, 3),
            checkpoint=self.workspace.current().n,
            tests=self.progress.summary(),
        )
        self.trajectory.save(self.messages, progress=self.progress.to_dict(), best_checkpoint=self.best[1])
        self.notify(
            {"event": "step", "step": self.step, "cost": self.spent, "tests": self.progress.summary()}
        )
