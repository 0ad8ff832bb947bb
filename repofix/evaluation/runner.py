"""Running many tasks through an executor (local threads, or a Ray cluster), each graded in its
own sandbox.

A task's row is written to the store when it finishes, and only then, here on the head: Ctrl-C
(or a kill) abandons the tasks in flight, which `--resume` runs again, so nothing finished is lost
and nothing is counted twice. A cost cap stops starting new tasks once the run has spent it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from repofix.atomic import write_atomic
from repofix.evaluation.candidates import CandidateSource
from repofix.evaluation.environments import Environments
from repofix.evaluation.executors import Budget, Executor, LocalExecutor, TaskWork, task_folder
from repofix.evaluation.model import TaskResult
from repofix.evaluation.progress import Progress
from repofix.evaluation.store import ResultsStore
from repofix.sandboxes import cleanup
from repofix.tasks import Task

__all__ = ["RunOptions", "RunOutcome", "pending", "run_evaluation", "task_folder", "write_task_files"]


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


def pending(tasks: list[Task], finished: dict[str, TaskResult], retry_errors: bool) -> list[Task]:
    """The tasks still to run: unfinished ones, and infrastructure errors if asked to retry them."""
    return [t for t in tasks if t.id not in finished or (retry_errors and finished[t.id].status.infra)]


def write_task_files(out_dir: Path, result: TaskResult) -> None:
    """SWE-bench's per-instance report.json and the graded patch, next to the test logs."""
    folder = task_folder(out_dir, result.task_id)
    write_atomic(folder / "report.json", json.dumps(result.swebench_report(), indent=2) + "\n")
    write_atomic(folder / "patch.diff", result.patch)


def run_evaluation(
    tasks: list[Task],
    source: CandidateSource,
    store: ResultsStore,
    environments: Environments,
    out_dir: Path,
    options: RunOptions,
    progress: Progress,
    executor: Executor | None = None,
) -> RunOutcome:
    """Run the pending tasks through `executor` (default: `options.jobs` local threads)."""
    cleanup.install_signal_handlers()  # workers open the sandboxes; Python allows handlers only here
    finished = store.latest()
    todo = pending(tasks, finished, options.retry_errors)
    outcome = RunOutcome(skipped=len(tasks) - len(todo))
    budget = Budget(options.max_cost, store.total_cost())
    executor = executor or LocalExecutor(options.jobs, environments, out_dir)
    stream = executor.run(
        todo, TaskWork(source, options.timeout, options.mirror, environments.images), budget
    )
    try:
        for result in stream:
            store.record(result)
            write_task_files(out_dir, result)
            progress.finished(result, replaces=finished.get(result.task_id))
            outcome.graded += 1
    except KeyboardInterrupt:
        outcome.stopped = "interrupted"
        return outcome
    finally:
        stream.close()  # stops what is still in flight (after Ctrl-C or an error)
    if budget.capped and outcome.graded < len(todo):
        outcome.stopped = "cost cap reached"
    return outcome
