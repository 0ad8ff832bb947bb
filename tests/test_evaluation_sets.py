"""`repofix eval` on the bundled task sets (a subset: 4 SWE-style tasks + 10 HumanEvalFix), in
bwrap sandboxes: --gold resolves, --empty does not, predictions round-trip, compare, and a
kill -9 in the middle of a run followed by --resume ends with the uninterrupted run's results."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from repofix.cli import main
from repofix.tasks import load_tasks
from repofix.tasks.predictions import Prediction, read_predictions, write_predictions
from tests.conftest import require_backend
from tests.datasets import humanevalfix_pointer

pytestmark = [pytest.mark.bwrap, pytest.mark.slow]

ROOT = Path(__file__).resolve().parent.parent
SWE = ROOT / "task_specs" / "swe"
HEF_IDS = [f"humanevalfix-python-{n}" for n in range(10)]


def swe_ids() -> list[str]:
    return sorted(t.id for t in load_tasks([SWE]))[:4]


def eval_cli(*args: str):
    return CliRunner().invoke(main, ["eval", *args], catch_exceptions=False)


@pytest.fixture(scope="module")
def hef(tmp_path_factory) -> Path:
    """HumanEvalFix tasks: the bundled pointer to the shared rows (CI), or synthetic rows (a user's clone)."""
    return humanevalfix_pointer(tmp_path_factory.mktemp("hef"))


def run_args(out: Path, hef: Path, mode: str, ids: list[str], *extra: str) -> list[str]:
    args = ["run", str(SWE), str(hef), mode, "--sandbox", "bwrap", "-j", "2", "--out", str(out), "-q", *extra]
    for task_id in ids:
        args += ["--ids", task_id]
    return args


def full_run(tmp_path_factory, hef: Path, mode: str) -> Path:
    """One run of all 14 tasks with a built-in candidate source (`mode` is --gold or --empty)."""
    require_backend("bwrap")
    out = tmp_path_factory.mktemp(mode.lstrip("-"))
    result = eval_cli(*run_args(out, hef, mode, swe_ids() + HEF_IDS))
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def gold_run(tmp_path_factory, hef) -> Path:
    return full_run(tmp_path_factory, hef, "--gold")


@pytest.fixture(scope="module")
def empty_run(tmp_path_factory, hef) -> Path:
    return full_run(tmp_path_factory, hef, "--empty")


def report(folder: Path) -> dict:
    return json.loads((folder / "report.json").read_text())


def test_gold_resolves_every_task_and_writes_swebench_outputs(gold_run, hef):
    summary = report(gold_run)
    assert summary["total_instances"] == 14
    assert summary["resolved_instances"] == 14, summary["by_status"]
    assert summary["error_instances"] == 0 and summary["incomplete_ids"] == []
    tasks = {t.id: t for t in load_tasks([SWE, hef])}
    predictions = read_predictions(gold_run / "predictions.jsonl")
    assert len(predictions) == 14
    assert all(
        p.model_patch == tasks[p.instance_id].patch and p.model_name_or_path == "gold" for p in predictions
    )
    per_task = json.loads((gold_run / "tasks" / "humanevalfix-python-3" / "report.json").read_text())
    assert set(per_task["humanevalfix-python-3"]) == {
        "patch_is_None",
        "patch_exists",
        "patch_successfully_applied",
        "resolved",
        "tests_status",
    }
    assert "**Resolved 14 of 14 (100.0%)**" in (gold_run / "report.md").read_text()
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "No chart: matplotlib is not installed" in (gold_run / "report.md").read_text()
    else:
        assert (gold_run / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_empty_resolves_nothing(empty_run):
    summary = report(empty_run)
    assert summary["resolved_instances"] == 0
    # As SWE-bench reports it: an empty patch is counted only as such, not also as unresolved.
    assert summary["by_status"]["unresolved"] == 14 and summary["error_instances"] == 0
    assert summary["empty_patch_instances"] == 14 and summary["unresolved_ids"] == []


def test_compare_gold_with_empty(gold_run, empty_run, tmp_path):
    result = eval_cli("compare", str(gold_run), str(empty_run), "--out", str(tmp_path / "cmp.md"))
    assert result.exit_code == 0
    assert "Resolved by both: 0; only A: 14; only B: 0; neither: 0." in result.output
    assert "| resolved (common tasks) | 14/14 (100.0%) | 0/14 (0.0%) |" in result.output
    assert (tmp_path / "cmp.md").read_text() == result.output


def test_report_is_remade_from_the_store(gold_run):
    (gold_run / "report.md").unlink()
    result = eval_cli("report", str(gold_run))
    assert result.exit_code == 0 and "14/14 resolved" in result.output
    assert (gold_run / "report.md").is_file()


def test_predictions_mode_grades_only_predicted_tasks(tmp_path, hef):
    require_backend("bwrap")
    tasks = {t.id: t for t in load_tasks([hef])}
    file = write_predictions(
        tmp_path / "preds.jsonl",
        [
            Prediction(HEF_IDS[0], "some-agent", tasks[HEF_IDS[0]].patch),
            Prediction(HEF_IDS[1], "some-agent", ""),
        ],
    )
    out = tmp_path / "run"
    result = eval_cli(
        "run",
        str(hef),
        "--predictions",
        str(file),
        "--sandbox",
        "bwrap",
        "--out",
        str(out),
        "-q",
        "--limit",
        "5",
    )
    assert result.exit_code == 0, result.output
    summary = report(out)
    assert summary["run"]["model_name"] == "some-agent"
    assert summary["total_instances"] == 2 and summary["resolved_ids"] == [HEF_IDS[0]]
    assert summary["empty_patch_ids"] == [HEF_IDS[1]]
    assert [p.model_name_or_path for p in read_predictions(out / "predictions.jsonl")] == ["some-agent"] * 2


def test_existing_results_need_resume_and_the_same_mode(gold_run, hef):
    again = eval_cli(*run_args(gold_run, hef, "--gold", swe_ids() + HEF_IDS))
    assert again.exit_code == 2 and "--resume" in again.output
    other = eval_cli(*run_args(gold_run, hef, "--empty", swe_ids() + HEF_IDS, "--resume"))
    assert other.exit_code == 2 and "mode differs" in other.output
    done = eval_cli(*run_args(gold_run, hef, "--gold", swe_ids() + HEF_IDS, "--resume"))
    assert done.exit_code == 0 and report(gold_run)["resolved_instances"] == 14


def rows(store: Path) -> list[tuple[str, int]]:
    if not store.exists():
        return []
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=10) as db:
        if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'results'").fetchone():
            return []  # the evaluation has created the file but not its schema yet
        return db.execute("SELECT task_id, attempt FROM results").fetchall()


def test_kill_9_then_resume_matches_the_uninterrupted_run(gold_run, hef, tmp_path):
    out = tmp_path / "killed"
    args = run_args(out, hef, "--gold", HEF_IDS)
    command = [sys.executable, "-c", "from repofix.cli import main; main()", "eval", *args]
    scratch = tmp_path / "scratch"  # what the killed workers cannot clean up stays in the test's folder
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "REPOFIX_SCRATCH": str(scratch)},
    )
    deadline = time.monotonic() + 240
    while len(rows(out / "results.sqlite")) < 3 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    before = rows(out / "results.sqlite")
    assert 3 <= len(before) < len(HEF_IDS), process.stderr.read().decode()[-2000:]
    from repofix.sandboxes import cleanup

    with pytest.MonkeyPatch.context() as patch:  # `sandbox prune` removes what the kill left behind
        patch.setenv("REPOFIX_SCRATCH", str(scratch))
        cleanup.prune()
    left = sorted(path.name for path in scratch.iterdir()) if scratch.exists() else []
    assert left == []

    resumed = eval_cli(*args, "--resume")
    assert resumed.exit_code == 0, resumed.output
    after = rows(out / "results.sqlite")
    assert sorted(after) == sorted((task_id, 1) for task_id in HEF_IDS)  # each task once, nothing twice
    assert set(before) <= set(after)  # nothing finished was lost
    killed, uninterrupted = report(out), report(gold_run)
    assert killed["resolved_ids"] == [t for t in uninterrupted["resolved_ids"] if t in HEF_IDS] or sorted(
        killed["resolved_ids"]
    ) == sorted(t for t in uninterrupted["resolved_ids"] if t in HEF_IDS)
    assert killed["by_status"] == {
        "resolved": 10,
        "unresolved": 0,
        "patch_failed": 0,
        "env_failed": 0,
        "timeout": 0,
        "error": 0,
    }
    assert {t: row["status"] for t, row in killed["tasks"].items()} == {
        t: row["status"] for t, row in uninterrupted["tasks"].items() if t in HEF_IDS
    }
