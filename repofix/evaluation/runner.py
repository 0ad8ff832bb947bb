"""Running many tasks: N worker threads, each grading one task at a time in its own sandbox.

A task's row is written to the store when it finishes, and only then; Ctrl-C (or a kill)
abandons the tasks in flight, which `--resume` runs again, so nothing finished is lost and
nothing is counted twice. A cost cap stops starting new tasks once the run has spent it.
"""

from __future__ import annotations

import json
import queue
import threading
from dataclasses import dataclass
from pathlib import Path

from repofix.evaluation.candidates import CandidateSource
from repofix.evaluation.environments import Environments
from repofix.evaluation.grading import grade
from repofix.evaluation.model import Status, TaskResult
from repofix.evaluation.progress import Progress
from repofix.evaluation.store import ResultsStore
from repofix.tasks import Task, write_atomic


@dataclass(frozen=True)
class RunOptions:
    jobs: int = 1
    timeout: float = 300.0  # per test run
    max_cost: float | None = None  # USD for the whole evaluation, every attempt included
    retry_errors: bool = False  # run tasks whose latest attempt was an infrastructure error again
    mirror: Path | None = None  # local clones of remote repositories (owner/name folders)


@dataclass
class RunOutcome:
    graded: int = 0  # tasks finished by this invocation
    skipped: int = 0  # tasks already finished before it (--resume)
    stopped: str = ""  # "" (ran to the end), "interrupted" or "cost cap reached"


def task_folder(out_dir: Path, task_id: str) -> Path:
    return out_dir / "tasks" / task_id.replace("/", "__")


def pending(tasks: list[Task], finished: dict[str, TaskResult], retry_errors: bool) -> list[Task]:
    """The tasks still to run: unfinished ones, and infrastructure errors if asked to retry them."""
    return [t for t in tasks if t.id not in finished or (retry_errors and finished[t.id].status.infra)]


def write_task_files(out_dir: Path, result: TaskResult) -> None:
    """SWE-bench's per-instance report.json and the graded patch, next to the test logs."""
    folder = task_folder(out_dir, result.task_id)
    write_atomic(folder / "report.json", json.dumps(result.swebench_report(), indent=2) + "\n")
    write_atomic(folder / "patch.diff", result.patch)


def run_evaluation(tasks: list[Task], source: CandidateSource, store: ResultsStore, environments: Environments,
                   out_dir: Path, options: RunOptions, progress: Progress) -> RunOutcome:
    from repofix.sandboxes import cleanup

    cleanup.install_signal_handlers()  # workers open the sandboxes; Python allows handlers only here
    finished = store.latest()
    todo_list = pending(tasks, finished, options.retry_errors)
    outcome = RunOutcome(skipped=len(tasks) - len(todo_list))
    todo: queue.Queue[Task] = queue.Queue()
    for task in todo_list:
        todo.put(task)
    results: queue.Queue[TaskResult | BaseException] = queue.Queue()
    interrupted = threading.Event()
    capped = threading.Event()
    budget_lock = threading.Lock()
    spent = [store.total_cost()]

    def budget() -> float | None:
        if options.max_cost is None:
            return None
        with budget_lock:
            left = options.max_cost - spent[0]
        if left <= 0:
            capped.set()
        return left

    def work() -> None:
        try:
            while not interrupted.is_set() and not capped.is_set():
                left = budget()
                if left is not None and left <= 0:
                    return
                try:
                    task = todo.get_nowait()
                except queue.Empty:
                    return
                candidate = source.candidate(task, left)
                with budget_lock:
                    spent[0] += candidate.cost
                if interrupted.is_set():
                    return
                result = grade(task, candidate, environments, timeout=options.timeout,
                               log_dir=task_folder(out_dir, task.id), mirror=options.mirror)
                # Ctrl-C in a terminal reaches the sandbox processes too: they die, and the task
                # looks like an infrastructure error a moment before the main thread hears of the
                # interrupt. Give it that moment, so no such task is recorded as finished.
                if result.status.infra and result.status is not Status.PATCH_FAILED and not candidate.error:
                    interrupted.wait(1.0)
                if interrupted.is_set():
                    return  # abandoned: its sandbox may have been torn down under it
                store.record(result)
                write_task_files(out_dir, result)
                results.put(result)
        except BaseException as error:  # a broken store or disk: stop everything, say why
            interrupted.set()
            results.put(error)

    workers = [threading.Thread(target=work, name=f"eval-worker-{n}", daemon=True)
               for n in range(max(1, min(options.jobs, len(todo_list))))]
    for worker in workers:
        worker.start()
    try:
        while any(w.is_alive() for w in workers) or not results.empty():
            try:
                item = results.get(timeout=0.2)
            except queue.Empty:
                continue
            if isinstance(item, BaseException):
                raise item
            progress.finished(item, replaces=finished.get(item.task_id))
            outcome.graded += 1
    except KeyboardInterrupt:
        # Daemon workers are abandoned mid-task; their sandboxes are closed at exit, and no row
        # is written for them.
        interrupted.set()
        outcome.stopped = "interrupted"
        return outcome
    if capped.is_set() and outcome.graded < len(todo_list):
        outcome.stopped = "cost cap reached"
    return outcome
