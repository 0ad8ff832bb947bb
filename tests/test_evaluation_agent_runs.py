"""`repofix eval run --model` with the real agent on bwrap, driven by a scripted model: the
evaluation-wide cost cap, `--retry-errors` after a real infrastructure error. (A SIGKILL mid-task and
`--resume` are in test_evaluation_agent_kill.py.)"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from repofix.cli import main
from repofix.exitcodes import EXIT_NOT_DONE
from tests.conftest import require_backend
from tests.test_evaluation_grading import make_task

pytestmark = [pytest.mark.bwrap, pytest.mark.slow]  # real agent runs, about a minute

FIX = "mathx.py\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n"


def script(path: Path, cost: float) -> str:
    """Every task's agent run: the fix, then submit; each reply costs `cost`."""
    replies = [
        {"content": "Fix it.", "tool": "edit", "arguments": {"text": FIX}, "cost": cost},
        {"content": "Done.", "tool": "submit", "arguments": {"summary": "add() adds"}, "cost": cost},
    ]
    path.write_text(yaml.safe_dump(replies))
    return f"scripted:{path}"


def write_specs(folder: Path, tasks) -> Path:
    folder.mkdir()
    for number, task in enumerate(tasks):
        data = task.model_dump(exclude_none=True)
        (folder / f"{number}-{task.id}.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return folder


def evaluate(*args: str):
    return CliRunner().invoke(
        main, ["eval", "run", *args, "--sandbox", "bwrap", "-q"], catch_exceptions=False
    )


@pytest.fixture
def env(tmp_path, monkeypatch):
    require_backend("bwrap")
    monkeypatch.setenv("REPOFIX_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("REPOFIX_TESTS_FIRST", "false")  # the scripted reply goes straight to the fix
    return tmp_path


def rows(out: Path) -> list[tuple]:
    with sqlite3.connect(out / "results.sqlite") as db:
        return db.execute("SELECT task_id, attempt, status, cost FROM results ORDER BY rowid").fetchall()


def test_cost_cap_stops_the_evaluation_once_spent(env):
    specs = write_specs(env / "specs", [make_task(id=f"t{n}") for n in range(3)])
    out = env / "run"
    # $0.50 a task: t0 spends 0.50, t1 gets the $0.25 left (its fix, then the cap stops it), t2 never starts
    result = evaluate(
        str(specs), "--model", script(env / "s.yaml", 0.25), "--max-cost", "0.75", "--out", str(out)
    )
    assert result.exit_code == EXIT_NOT_DONE, result.output
    assert "stopped: cost cap reached" in result.output
    assert rows(out) == [("t0", 1, "resolved", 0.5), ("t1", 1, "resolved", 0.25)]
    summary = json.loads((out / "report.json").read_text())
    assert summary["incomplete_ids"] == ["t2"] and summary["cost"] == 0.75
    # nothing of t2 was started or written: no agent run, no task folder, no prediction
    assert sorted(p.name for p in (out / "tasks").iterdir()) == ["t0", "t1"]
    runs = [json.loads(p.read_text()) for p in (out / "agent").rglob("trajectory.json")]
    assert len(runs) == 2
    predictions = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert [p["instance_id"] for p in predictions] == ["t0", "t1"]
    # resuming with the same cap starts nothing: the money is spent
    again = evaluate(
        str(specs),
        "--model",
        script(env / "s.yaml", 0.25),
        "--max-cost",
        "0.75",
        "--out",
        str(out),
        "--resume",
    )
    assert again.exit_code == EXIT_NOT_DONE and "stopped: cost cap reached" in again.output
    assert len(rows(out)) == 2 and not (out / "tasks" / "t2").exists()
