"""The results store, the runner's bookkeeping (cost cap, resume, retrying infrastructure errors)
and the reports made from the store. A scripted candidate source stands in for the agent: its
candidates fail before any sandbox is needed, so these run in well under a second."""

from __future__ import annotations

import io
import json
import sqlite3
import threading
from pathlib import Path

import pytest

from repofix.evaluation.environments import Environments
from repofix.evaluation.executors import Budget
from repofix.evaluation.model import Candidate, Status, TaskResult
from repofix.evaluation.progress import Progress
from repofix.evaluation.report import write_reports
from repofix.evaluation.runner import RunOptions, run_evaluation
from repofix.evaluation.store import ResultsStore
from repofix.sandboxes import Limits
from repofix.tasks import Task


def tasks(n: int) -> list[Task]:
    return [
        Task.model_validate(
            {
                "id": f"t{i}",
                "problem_statement": "x",
                "repo": {"files": {"a.py": ""}},
                "FAIL_TO_PASS": ["test_a.py::test_a"],
            }
        )
        for i in range(n)
    ]


class ScriptedAgent:
    """Spends `cost` per task and gives up (so grading records an error without a sandbox)."""

    name, mode = "scripted", "model"

    def __init__(self, cost: float):
        self.cost, self.budgets = cost, []

    def recorded_cost(self) -> float:
        return 0.0  # its spending is all in the store

    def candidate(self, task: Task, budget: float | None) -> Candidate:
        self.budgets.append(budget)
        return Candidate("", self.name, cost=self.cost, tokens=100, error="the scripted agent gave up")


def evaluate(folder: Path, source, task_list, **options):
    with ResultsStore(folder) as store:
        store.set_meta(
            {"mode": source.mode, "model_name": source.name, "task_ids": [t.id for t in task_list]}
        )
        progress = Progress(len(task_list), quiet=True)
        outcome = run_evaluation(
            task_list,
            source,
            store,
            Environments("none", Limits(), folder / "logs"),
            folder,
            RunOptions(**options),
            progress,
        )
        return outcome, store.latest(), store.total_cost(), progress


def test_cost_cap_stops_new_tasks_and_resume_continues(tmp_path):
    agent = ScriptedAgent(cost=0.4)
    outcome, latest, spent, _ = evaluate(tmp_path, agent, tasks(5), max_cost=1.0)
    assert outcome.stopped == "cost cap reached"
    assert list(latest) == ["t0", "t1", "t2"] and round(spent, 6) == 1.2
    assert [round(b, 6) for b in agent.budgets] == [1.0, 0.6, 0.2]  # the agent is told what is left
    outcome, latest, spent, _ = evaluate(tmp_path, agent, tasks(5), max_cost=2.0)
    assert outcome.skipped == 3 and outcome.graded == 2 and not outcome.stopped
    assert sorted(latest) == ["t0", "t1", "t2", "t3", "t4"]
    summary, _ = write_reports(tmp_path)
    assert summary["cost"] == 2.0 and summary["tokens"] == 500
    assert summary["error_instances"] == 5 and summary["resolve_rate"] == 0.0


class GreedyAgent(ScriptedAgent):
    """Spends all it is allowed, and only once `together` candidates are being made at the same time
    (so -j N really overlaps them; it goes on alone after a few seconds)."""

    def __init__(self, together: int):
        super().__init__(0.0)
        self.barrier = threading.Barrier(together)

    def candidate(self, task: Task, budget: float | None) -> Candidate:
        self.budgets.append(budget)
        try:
            self.barrier.wait(timeout=5)
        except threading.BrokenBarrierError:
            pass
        return Candidate("", self.name, cost=budget or 0.0, tokens=1, error="spent it all")


@pytest.mark.parametrize(("jobs", "n_tasks"), [(2, 2), (3, 3), (3, 5), (4, 2)])
def test_parallel_tasks_never_spend_more_than_the_cap_between_them(tmp_path, jobs, n_tasks):
    """With -j N the running tasks share what is left: each is told its own allowance, so even agents
    that spend all they are allowed stay within --max-cost together (each was told the whole remainder)."""
    agent = GreedyAgent(together=min(jobs, n_tasks))
    outcome, latest, spent, _ = evaluate(tmp_path, agent, tasks(n_tasks), max_cost=1.0, jobs=jobs)
    assert spent <= 1.0 + 1e-9
    running_at_once = min(jobs, n_tasks)
    assert (
        sorted(agent.budgets)[-running_at_once:] == [pytest.approx(1.0 / running_at_once)] * running_at_once
    )
    assert outcome.stopped == ("cost cap reached" if n_tasks > running_at_once else "")


def test_retry_errors_adds_attempts_without_counting_twice(tmp_path):
    evaluate(tmp_path, ScriptedAgent(0.0), tasks(3))
    outcome, latest, _, progress = evaluate(tmp_path, ScriptedAgent(0.0), tasks(3))
    assert outcome.graded == 0 and outcome.skipped == 3  # finished, even as errors: skipped
    outcome, latest, _, progress = evaluate(tmp_path, ScriptedAgent(0.0), tasks(3), retry_errors=True)
    assert outcome.graded == 3 and {r.attempt for r in latest.values()} == {2}
    with sqlite3.connect(tmp_path / "results.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM results").fetchone() == (6,)
    assert write_reports(tmp_path)[0]["submitted_instances"] == 3


@pytest.mark.parametrize(
    ("first", "second", "reported", "spent"), [(0.25, 0.5, 0.5, 0.75), (0.0, 0.5, 0.5, 0.5)]
)
def test_report_counts_the_money_of_retried_attempts(tmp_path, first, second, reported, spent):
    """A retried task's row shows its latest attempt; the money every attempt spent (what --max-cost
    counts) is in report.json's cost_spent and said in report.md, not silently dropped."""
    with ResultsStore(tmp_path) as store:
        store.set_meta({"mode": "model", "model_name": "m", "task_ids": ["a"]})
        store.record(TaskResult("a", Status.ERROR, "m", cost=first, detail="provider answered 500"))
        store.record(TaskResult("a", Status.RESOLVED, "m", cost=second, patch="diff"))
    summary, _ = write_reports(tmp_path)
    assert (summary["cost"], summary["cost_spent"]) == (reported, spent)
    said = f"spent ${spent:.4f} with the retried attempts" in (tmp_path / "report.md").read_text()
    assert said is (spent > reported)


def test_store_rows_survive_reopening_and_use_wal(tmp_path):
    with ResultsStore(tmp_path) as store:
        first = TaskResult("a", Status.RESOLVED, "m", cost=0.5)
        assert store.record(first) == 1
        assert store.record(TaskResult("b", Status.UNRESOLVED, "m")) == 1
        assert store.record(TaskResult("a", Status.UNRESOLVED, "m")) == 2
    with ResultsStore(tmp_path) as store:
        latest = store.latest()
        assert (
            list(latest) == ["a", "b"]
            and latest["a"].attempt == 2
            and latest["a"].status is Status.UNRESOLVED
        )
        assert store.total_cost() == 0.5 and store.attempts() == 3
    with sqlite3.connect(tmp_path / "results.sqlite") as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        record = json.loads(db.execute("SELECT record FROM results WHERE task_id='b'").fetchone()[0])
    assert record["status"] == "unresolved" and record["resolved"] is False


def test_report_lists_tasks_not_run(tmp_path):
    with ResultsStore(tmp_path) as store:
        store.set_meta({"mode": "gold", "model_name": "gold", "task_ids": ["a", "b", "c"]})
        store.record(TaskResult("a", Status.RESOLVED, "gold", patch="diff"))
        store.record(TaskResult("b", Status.ENV_FAILED, "gold", detail="image build failed"))
    summary, _ = write_reports(tmp_path)
    assert summary["resolved_ids"] == ["a"] and summary["error_ids"] == ["b"]
    assert summary["incomplete_ids"] == ["c"] and summary["resolve_rate"] == 1 / 3
    text = (tmp_path / "report.md").read_text()
    assert "**Resolved 1 of 3 (33.3%)**" in text and "| c | not run |" in text
    assert "| b | env_failed |" in text and "image build failed" in text


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_line_is_rewritten_on_a_terminal_and_one_line_per_task_elsewhere():
    results = [
        TaskResult("a", Status.RESOLVED, "m", cost=0.5),
        TaskResult("b", Status.TIMEOUT, "m", detail="slow"),
    ]
    screen, log = Terminal(), io.StringIO()
    for stream in (screen, log):
        progress = Progress(3, stream=stream)
        for result in results:
            progress.finished(result)
        progress.close()
    assert screen.getvalue().count("\r\033[K") == 2 and "  b: timeout (0.0s): slow\n" in screen.getvalue()
    assert screen.getvalue().endswith(
        "[2/3] resolved 1 (50%) · infra errors 1 · cost $0.50 · b: timeout (0.0s)\n"
    )
    assert log.getvalue().splitlines() == [
        "[1/3] resolved 1 (100%) · infra errors 0 · cost $0.50 · a: resolved (0.0s)",
        "[2/3] resolved 1 (50%) · infra errors 1 · cost $0.50 · b: timeout (0.0s) - slow",
    ]


@pytest.mark.parametrize("live", [True, False])
def test_progress_shows_a_task_s_text_escaped_never_obeyed(live: bool):
    """A failed build's last line (the repository's setup output), a task's id and a build's
    progress lines reach the terminal as text: an escape sequence in them is written out."""
    stream = Terminal() if live else io.StringIO()
    progress = Progress(1, stream=stream)
    progress.note("  repofix-env:1: Step 7/9 : RUN echo \x1b]0;owned\x07")
    progress.finished(
        TaskResult("t\x1b[2J", Status.ENV_FAILED, "m", detail="build failed: \x1b[31mred\x1b[0m\nline two")
    )
    progress.close()
    shown = stream.getvalue().replace("\r\033[K", "")  # the live line's own rewrite
    assert "\x1b" not in shown and "\x07" not in shown, shown
    assert "\\x1b[31mred" in shown and "\\x1b]0;owned\\x07" in shown and "t\\x1b[2J" in shown
    assert "red\\x1b[0m\\x0aline two" in shown  # one line: the newline written out too


def test_a_budget_that_cannot_wait_says_whether_it_is_capped_for_good():
    """The Ray executor starts tasks from one thread, so it asks without waiting: 0.0 while running
    tasks hold the rest, `capped` once nothing is held and nothing is free; a task that spent less than
    its allowance frees the difference for the next."""
    budget = Budget(1.0, 0.0)
    first, second = budget.reserve(2, 2, wait=False), budget.reserve(2, 1, wait=False)
    assert (first, second) == (0.5, 0.5)
    assert budget.reserve(2, 0, wait=False) == 0.0 and not budget.capped
    budget.settle(first, 0.2)
    third = budget.reserve(2, 0, wait=False)
    assert third == pytest.approx(0.3) and not budget.capped
    budget.settle(second, 0.5)
    budget.settle(third, 0.3)
    assert budget.reserve(2, 0, wait=False) == 0.0 and budget.capped
    assert budget.spent == pytest.approx(1.0) and budget.holders == 0
    assert Budget(None, 5.0).reserve(2, 0) is None  # no cap: no allowance
