"""Where an evaluation's tasks run: one small protocol, two executors.

`LocalExecutor` runs them in N threads on this machine (`-j N`); `repofix.evaluation.ray_executor`
hands them to a Ray cluster. Either way each task's result comes back to the caller, which alone
writes it to the results store: the store stays the one source of truth, so `--resume`, the cost
cap and the reports work the same whatever ran the tasks.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from repofix.evaluation.candidates import CandidateSource
from repofix.evaluation.environments import EnvironmentFailed, Environments
from repofix.evaluation.grading import grade
from repofix.evaluation.model import Candidate, Status, TaskResult
from repofix.sandboxes.docker import DEFAULT_IMAGE
from repofix.tasks import Task


def task_folder(out_dir: Path, task_id: str) -> Path:
    return out_dir / "tasks" / task_id.replace("/", "__")


NEGLIGIBLE = 1e-6  # dollars: free money below this is float dust, not money


class Budget:
    """What the whole evaluation may still spend (every attempt counts); thread safe.

    Tasks that run at once must not each be told the whole remainder (with -j N they could spend N
    times the cap): a starting task reserves its allowance, a share of what is neither spent nor
    promised to running tasks, and settles it with what it really spent when it ends."""

    def __init__(self, max_cost: float | None, spent: float):
        self.max_cost, self.spent = max_cost, spent
        self.reserved, self.holders = 0.0, 0  # promised to running tasks, and how many they are
        self.capped = False  # the cap was reached: no new task starts
        self._changed = threading.Condition()

    def reserve(self, slots: int, queued: int, wait: bool = True) -> float | None:
        """The allowance of one task starting now (None: no cap). `slots`: how many tasks may run at
        once; `queued`: tasks still waiting besides this one. The free money is split among the tasks
        that may start alongside it. 0.0: nothing is free; `capped` says whether for good, or (when
        not `wait`) only until a running task settles."""
        if self.max_cost is None:
            return None
        with self._changed:
            while True:
                free = self.max_cost - self.spent - self.reserved
                if free > NEGLIGIBLE:  # not float dust: thirds of a dollar do not sum to exactly 1
                    break
                if self.holders == 0:
                    self.capped = True
                    return 0.0
                if not wait:
                    return 0.0
                self._changed.wait()
            allowance = free / max(1, min(slots - self.holders, queued + 1))
            self.reserved += allowance
            self.holders += 1
            return allowance

    def settle(self, allowance: float | None, cost: float) -> None:
        """A task reserved `allowance` and spent `cost`."""
        with self._changed:
            if allowance is not None:
                self.reserved = max(0.0, self.reserved - allowance)
                self.holders -= 1
            self.spent += cost
            self._changed.notify_all()


@dataclass(frozen=True)
class TaskWork:
    """What producing and grading one task needs besides the task and its environment.
    Picklable, so that a cluster node can do the work."""

    source: CandidateSource
    timeout: float  # per test run
    mirror: Path | None = None
    images: str = "build"  # where environment images come from (Environments' `images`)

    def candidate(self, task: Task, left: float | None) -> Candidate:
        return self.source.candidate(task, left)

    def prepare(self, task: Task, environments: Environments) -> Task | TaskResult:
        """Before the candidate (an agent runs the setup steps): the image the task starts from,
        so a Python that cannot be had fails here, before any setup step, as `env_failed`. The
        agent gets the task with that image."""
        try:
            start = environments.check(task)
        except EnvironmentFailed as error:
            result = TaskResult(task.id, Status.ENV_FAILED, self.source.name, detail=str(error))
            result.log_path, result.build_seconds = str(error.log or ""), environments.take_build_seconds()
            return result
        if self.source.mode != "model" or start in (None, DEFAULT_IMAGE) or task.environment.image:
            return task
        return task.model_copy(update={"environment": task.environment.model_copy(update={"image": start})})

    def grade(
        self, task: Task, candidate: Candidate, environments: Environments, log_dir: Path
    ) -> TaskResult:
        return grade(task, candidate, environments, timeout=self.timeout, log_dir=log_dir, mirror=self.mirror)


class Executor(Protocol):
    def run(self, tasks: list[Task], work: TaskWork, budget: Budget) -> Generator[TaskResult, None, None]:
        """Yield each task's result once, as it finishes; start no task once the budget is spent.
        Closing the iterator early (Ctrl-C) stops the tasks in flight: they yield nothing, so
        nothing half-done is recorded and `--resume` runs them again."""
        ...


class LocalExecutor:
    """N worker threads on this machine, each grading one task at a time in its own sandbox."""

    def __init__(self, jobs: int, environments: Environments, out_dir: Path):
        self.jobs, self.environments, self.out_dir = jobs, environments, out_dir

    def run(self, tasks: list[Task], work: TaskWork, budget: Budget) -> Generator[TaskResult, None, None]:
        todo: queue.Queue[Task] = queue.Queue()
        for task in tasks:
            todo.put(task)
        results: queue.Queue[TaskResult | BaseException] = queue.Queue()
        stop = threading.Event()

        def worker() -> None:
            try:
                while not stop.is_set():
                    try:
                        task = todo.get_nowait()
                    except queue.Empty:
                        return
                    left = budget.reserve(self.jobs, todo.qsize())
                    if left is not None and left <= 0:
                        return  # capped: this task and those still queued are not run
                    spent = 0.0
                    try:
                        prepared = work.prepare(task, self.environments)
                        if isinstance(prepared, TaskResult):
                            results.put(prepared)
                            continue
                        candidate = work.candidate(prepared, left)
                        spent = candidate.cost
                    finally:
                        budget.settle(left, spent)
                    if stop.is_set():
                        return
                    result = work.grade(
                        task, candidate, self.environments, task_folder(self.out_dir, task.id)
                    )
                    # Ctrl-C in a terminal reaches the sandbox processes too: they die, and the task
                    # looks like an infrastructure error a moment before the main thread hears of the
                    # interrupt. Give it that moment, so no such task is recorded as finished.
                    if (
                        result.status.infra
                        and result.status is not Status.PATCH_FAILED
                        and not candidate.error
                    ):
                        stop.wait(1.0)
                    if stop.is_set():
                        return  # abandoned: its sandbox may have been torn down under it
                    results.put(result)
            except BaseException as error:  # a broken disk or harness: stop everything, say why
                stop.set()
                results.put(error)

        threads = [
            threading.Thread(target=worker, name=f"eval-worker-{n}", daemon=True)
            for n in range(max(1, min(self.jobs, len(tasks))))
        ]
        for thread in threads:
            thread.start()
        try:
            while any(t.is_alive() for t in threads) or not results.empty():
                try:
                    item = results.get(timeout=0.2)
                except queue.Empty:
                    continue
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            # Daemon workers still grading are abandoned mid-task; their sandboxes are closed at
            # exit, and no result of theirs is yielded.
            stop.set()
