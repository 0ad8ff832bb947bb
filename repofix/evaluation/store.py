"""The results store: one SQLite row per task and attempt, written once, when the task finishes.

WAL journal with full sync, one short transaction per row: a crash or kill -9 loses only tasks
that had not finished, and never leaves half a row. "Finished" counts are read from the latest
attempt of each task, so re-running a task (`--retry-errors`) never counts it twice.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from repofix.evaluation.model import TaskResult

FILENAME = "results.sqlite"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    task_id TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    status TEXT NOT NULL,
    resolved INTEGER NOT NULL,
    cost REAL NOT NULL,
    tokens INTEGER NOT NULL,
    seconds REAL NOT NULL,
    finished_at TEXT NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (task_id, attempt)
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class StoreError(Exception):
    """The results folder cannot be used as asked (see the message)."""


class ResultsStore:
    """Thread safe: workers share one connection behind a lock (SQLite serializes writes anyway)."""

    def __init__(self, folder: Path):
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / FILENAME
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- meta: what this run is (mode, model, task set), checked on --resume ------------------
    def get_meta(self) -> dict[str, Any]:
        with self._lock:
            rows = self._db.execute("SELECT key, value FROM meta").fetchall()
        return {key: json.loads(value) for key, value in rows}

    def set_meta(self, values: dict[str, Any]) -> None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                    [(k, json.dumps(v)) for k, v in values.items()],
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    # -- results -------------------------------------------------------------------------------
    def record(self, result: TaskResult) -> int:
        """Write one finished task as its next attempt; returns the attempt number."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                (last,) = self._db.execute(
                    "SELECT COALESCE(MAX(attempt), 0) FROM results WHERE task_id = ?", (result.task_id,)
                ).fetchone()
                result.attempt = last + 1
                self._db.execute(
                    "INSERT INTO results (task_id, attempt, status, resolved, cost, tokens, seconds, finished_at,"
                    " record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        result.task_id,
                        result.attempt,
                        result.status.value,
                        int(result.resolved),
                        result.cost,
                        result.tokens,
                        result.grade_seconds + result.agent_seconds,
                        datetime.now(timezone.utc).isoformat(timespec="seconds"),
                        json.dumps(result.to_json()),
                    ),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return result.attempt

    def latest(self) -> dict[str, TaskResult]:
        """The latest attempt of every task, by task id, in order of first completion."""
        with self._lock:
            rows = self._db.execute(
                "SELECT r.record FROM results r JOIN (SELECT task_id, MAX(attempt) AS attempt FROM results "
                "GROUP BY task_id) m ON r.task_id = m.task_id AND r.attempt = m.attempt "
                "ORDER BY (SELECT MIN(rowid) FROM results f WHERE f.task_id = r.task_id)"
            ).fetchall()
        results = [TaskResult.from_json(json.loads(record)) for (record,) in rows]
        return {result.task_id: result for result in results}

    def total_cost(self) -> float:
        """Everything spent in this run, every attempt included (the cost cap counts it all)."""
        with self._lock:
            (total,) = self._db.execute("SELECT COALESCE(SUM(cost), 0) FROM results").fetchone()
        return float(total)

    def attempts(self) -> int:
        with self._lock:
            (count,) = self._db.execute("SELECT COUNT(*) FROM results").fetchone()
        return int(count)


def open_existing(folder: Path) -> ResultsStore:
    """A store that must already exist (reports, compare)."""
    if not (folder / FILENAME).is_file():
        raise StoreError(f"{folder} holds no evaluation results ({FILENAME} is missing)")
    return ResultsStore(folder)
