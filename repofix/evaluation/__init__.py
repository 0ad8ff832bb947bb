"""Evaluation: task sets graded as SWE-bench grades, in parallel, resumable, with reports.

Public API:
    grade(task, candidate, environments, *, timeout=300, log_dir=None) -> TaskResult
    Environments(backend, limits, log_dir, echo=...)  # per-recipe images / setup, thread safe
    ResultsStore(folder)  # one SQLite row per task and attempt
    run_evaluation(tasks, source, store, environments, out_dir, RunOptions(...), Progress(...),
                   executor=None) -> RunOutcome
    LocalExecutor(jobs, environments, out_dir)  # threads (the default); the Executor protocol: executors.py
    RayExecutor(address, backend, limits, out_dir)  # an existing Ray cluster (repofix[ray]): ray_executor.py
    GoldSource(), EmptySource(), PredictionsSource(path), AgentSource(model, sandbox)
    write_reports(out_dir) -> (summary, chart_note)
"""

from repofix.evaluation.model import Candidate, Status, TaskResult, TestsStatus

__all__ = ["Candidate", "Status", "TaskResult", "TestsStatus"]
