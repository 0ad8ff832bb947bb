"""`--model`: the repofix agent (driven by a scripted model) works on each task, then its patch is
graded like any other; its cost is counted against the evaluation's cap."""

from __future__ import annotations

import json

import pytest
import yaml
from click.testing import CliRunner

from repofix.cli import main
from tests.conftest import require_backend
from tests.test_evaluation_grading import make_task

pytestmark = pytest.mark.bwrap


def edit(path: str, old: str, new: str) -> dict:
    text = f"{path}\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n"
    return {"content": "Fix it.", "tool": "edit", "arguments": {"text": text}, "cost": 0.25}


def test_model_mode_runs_the_agent_then_grades_its_patch(tmp_path, monkeypatch):
    require_backend("bwrap")
    monkeypatch.setenv("REPOFIX_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("REPOFIX_TESTS_FIRST", "false")  # the scripted reply goes straight to the fix
    task = make_task()
    spec = tmp_path / "task.yaml"
    spec.write_text(yaml.safe_dump(task.model_dump(exclude_none=True), sort_keys=False))
    script = tmp_path / "script.yaml"
    script.write_text(
        yaml.safe_dump(
            [
                edit("mathx.py", "    return a - b", "    return a + b"),
                {"content": "Done.", "tool": "submit", "arguments": {"summary": "add() adds"}, "cost": 0.25},
            ]
        )
    )
    out = tmp_path / "run"
    result = CliRunner().invoke(
        main,
        [
            "eval",
            "run",
            str(spec),
            "--model",
            f"scripted:{script}",
            "--sandbox",
            "bwrap",
            "--out",
            str(out),
            "-q",
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "report.json").read_text())
    assert summary["resolved_ids"] == ["mathx-add"], summary["tasks"]
    assert summary["cost"] > 0 and summary["run"]["mode"] == "model"
    prediction = json.loads((out / "predictions.jsonl").read_text())
    assert prediction["model_name_or_path"] == f"scripted:{script}"
    assert "-    return a - b\n+    return a + b" in prediction["model_patch"]
    assert list((out / "agent").iterdir())  # the agent's run folder is kept with the eval
