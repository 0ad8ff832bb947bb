"""SWE-bench rows <-> Tasks (against the shared SWE-bench Lite rows, read in place) and predictions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from repofix.tasks import SpecError, Task, TasksError, load_tasks
from repofix.tasks.predictions import Prediction, read_predictions, write_predictions
from repofix.tasks.swebench import read_rows, read_swebench, row_to_task, task_to_row, write_swebench
from tests.datasets import SWEBENCH_SPLITS, read_jsonl, swebench_split, synthetic_swebench_rows, write_jsonl

rows_of = read_jsonl


@pytest.fixture(params=["synthetic", *SWEBENCH_SPLITS])
def split(request, tmp_path: Path) -> Path:
    """Rows the test writes itself (every machine), and the shared SWE-bench Lite splits (CI)."""
    if request.param == "synthetic":
        return write_jsonl(tmp_path / "synthetic.jsonl", synthetic_swebench_rows())
    return swebench_split(request.param)


@pytest.fixture(params=["synthetic", "SWE-bench_Lite_dev"])
def first_rows(request, tmp_path: Path) -> list[dict]:
    if request.param == "synthetic":
        return synthetic_swebench_rows()
    return rows_of(swebench_split(request.param))


def test_rows_round_trip_exactly(split: Path, tmp_path: Path):
    rows = rows_of(split)
    tasks = read_swebench(split)
    assert len(tasks) == len(rows)
    assert [task_to_row(task) for task in tasks] == rows
    out = write_swebench(tmp_path / "again.jsonl", tasks)
    assert rows_of(out) == rows


def test_row_fields_map_onto_the_task(first_rows: list[dict]):
    row = first_rows[0]
    task = row_to_task(row)
    assert task.id == row["instance_id"] and task.repo.github == row["repo"]
    assert task.base_commit == row["base_commit"] and task.hints == row["hints_text"]
    assert json.loads(row["FAIL_TO_PASS"]) == task.FAIL_TO_PASS and task.PASS_TO_PASS
    for key in ("environment_setup_commit", "version", "image", "eval_script", "created_at"):
        assert task.extra[key] == row[key]
    assert task.patch == row["patch"] and task.test_patch == row["test_patch"]


def test_lists_may_be_real_lists_and_json_list_files_work(tmp_path: Path, first_rows: list[dict]):
    rows = first_rows[:3]
    listed = [{**r, "FAIL_TO_PASS": json.loads(r["FAIL_TO_PASS"]), "PASS_TO_PASS": []} for r in rows]
    path = tmp_path / "rows.json"
    path.write_text(json.dumps(listed))
    tasks = load_tasks([path])
    assert [t.FAIL_TO_PASS for t in tasks] == [json.loads(r["FAIL_TO_PASS"]) for r in rows]
    write_swebench(tmp_path / "out.json", tasks, lists_as_json=False)
    assert json.loads((tmp_path / "out.json").read_text())[0]["FAIL_TO_PASS"] == listed[0]["FAIL_TO_PASS"]


def test_bad_rows_are_located(tmp_path: Path):
    good = synthetic_swebench_rows()[0]
    bad = {**good, "instance_id": "x__y-1", "FAIL_TO_PASS": "tests/a.py::t", "repo": "no-slash"}
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(SpecError) as caught:
        read_swebench(path)
    text = str(caught.value)
    assert f"{path}:2: task 'x__y-1': FAIL_TO_PASS: expected a list of test ids" in text
    assert f"{path}:2: task 'x__y-1': repo: expected owner/name" in text
    path.write_text(json.dumps(good) + "\n{oops\n")
    with pytest.raises(TasksError, match=r"rows.jsonl:2: not valid JSON"):
        read_swebench(path)


def test_parquet_rows_or_a_clear_error(tmp_path: Path):
    rows = synthetic_swebench_rows(2)
    path = tmp_path / "rows.parquet"
    try:
        import pyarrow
        import pyarrow.parquet as parquet
    except ImportError:
        path.write_bytes(b"PAR1")
        with pytest.raises(TasksError, match="reading parquet needs pyarrow"):
            list(read_rows(path))
        return
    parquet.write_table(pyarrow.Table.from_pylist(rows), path)
    assert [task_to_row(t) for t in read_swebench(path)] == rows


def test_export_needs_a_github_repository():
    task = Task(id="local", repo={"files": {"m.py": ""}}, problem_statement="p")
    with pytest.raises(TasksError, match=r"task 'local': SWE-bench rows need a GitHub repository"):
        task_to_row(task)
    url = Task(id="u", repo={"url": "https://github.com/octo/cat.git"}, problem_statement="p")
    assert task_to_row(url)["repo"] == "octo/cat"


@pytest.mark.parametrize("name", ["preds.jsonl", "preds.json"])
def test_predictions_round_trip(tmp_path: Path, name: str):
    predictions = [
        Prediction("a__b-1", "repofix/gpt", "diff --git a/x b/x\n"),
        Prediction("a__b-2", "repofix/gpt", "", extra={"cost": 0.5}),
    ]
    path = write_predictions(tmp_path / name, predictions)
    assert read_predictions(path) == predictions
    rows = rows_of(path) if name.endswith(".jsonl") else json.loads(path.read_text())
    assert rows[0] == {
        "instance_id": "a__b-1",
        "model_name_or_path": "repofix/gpt",
        "model_patch": "diff --git a/x b/x\n",
    }


def test_predictions_other_shapes_and_errors(tmp_path: Path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"a__b-1": {"model_name_or_path": "m", "model_patch": None}}))
    assert read_predictions(path) == [Prediction("a__b-1", "m", "")]
    path = tmp_path / "p.jsonl"
    line = json.dumps({"instance_id": "a__b-1", "model_name_or_path": "m", "model_patch": ""})
    path.write_text(line + "\n" + line + "\n")
    with pytest.raises(TasksError, match=r"p.jsonl:2: instance_id 'a__b-1' already predicted at .*p.jsonl:1"):
        read_predictions(path)
    path.write_text(json.dumps({"instance_id": "a__b-1", "model_patch": ""}) + "\n")
    with pytest.raises(TasksError, match=r"p.jsonl:1: model_name_or_path: expected a non-empty string"):
        read_predictions(path)
    with pytest.raises(TasksError, match="more than one prediction for x"):
        write_predictions(tmp_path / "w.jsonl", [Prediction("x", "m", ""), Prediction("x", "m", "")])
    assert not (tmp_path / "w.jsonl").exists()
