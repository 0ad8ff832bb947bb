"""`repofix tasks list|validate|import|export|schema`, through the real CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from repofix.cli import main
from repofix.tasks import load_tasks
from tests.datasets import (
    humanevalfix_rows,
    swebench_split,
    synthetic_humanevalfix_rows,
    synthetic_swebench_rows,
    write_jsonl,
)


@pytest.fixture(params=["synthetic", "shared"])
def rows(request, tmp_path: Path) -> dict:
    """A SWE-bench file and a HumanEvalFix file, with the ids and counts the tests expect of each."""
    if request.param == "shared":
        return {
            "swebench": swebench_split("SWE-bench_Lite_dev"),
            "humanevalfix": humanevalfix_rows(),
            "first": "sqlfluff__sqlfluff-1625",
            "github": "sqlfluff/sqlfluff",
            "swe": 23,
            "hef": 164,
        }
    swe = synthetic_swebench_rows()
    hef = synthetic_humanevalfix_rows()
    return {
        "swebench": write_jsonl(tmp_path / "swe.jsonl", swe),
        "humanevalfix": write_jsonl(tmp_path / "hef.jsonl", hef),
        "first": swe[0]["instance_id"],
        "github": swe[0]["repo"],
        "swe": len(swe),
        "hef": len(hef),
    }


def invoke(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_tasks_is_registered():
    result = invoke("tasks", "--help")
    assert result.exit_code == 0
    for command in ("list", "validate", "import", "export", "schema"):
        assert command in result.output


def test_list_swebench_and_humanevalfix_files(rows: dict):
    result = invoke("tasks", "list", str(rows["swebench"]), str(rows["humanevalfix"]))
    assert result.exit_code == 0, result.output
    assert rows["first"] in result.output and f"github: {rows['github']}" in result.output
    assert f"humanevalfix-python-{rows['hef'] - 1}" in result.output
    assert result.output.endswith(f"{rows['swe'] + rows['hef']} task(s)\n")
    as_json = invoke("tasks", "list", "--json", str(rows["swebench"]))
    assert json.loads(as_json.output.splitlines()[0])["id"] == rows["first"]


def test_validate_exits_2_with_precise_errors(tmp_path: Path, rows: dict):
    bad = tmp_path / "x.yaml"
    bad.write_text("id: foo\nrepo: {files: {}}\nproblem_statement: p\nFAIL_TO_PASS: tests/t.py::a\n")
    result = CliRunner().invoke(main, ["tasks", "validate", str(bad)])
    assert result.exit_code == 2
    assert f"{bad}: task 'foo': FAIL_TO_PASS: expected a list of test ids" in result.output
    good = invoke("tasks", "validate", str(rows["swebench"]))
    assert good.exit_code == 0 and f"{rows['swe']} task(s) valid" in good.output


def test_import_swebench_then_export_round_trips(tmp_path: Path, rows: dict):
    result = invoke("tasks", "import", "swebench", str(rows["swebench"]), "-o", str(tmp_path / "specs"))
    assert result.exit_code == 0 and f"wrote {rows['swe']} task(s)" in result.output
    folder = tmp_path / "specs" / rows["first"]
    assert {p.name for p in folder.iterdir()} == {"task.yaml", "gold.patch", "tests.patch"}
    assert invoke("tasks", "validate", str(tmp_path / "specs")).exit_code == 0
    out = tmp_path / "rows.jsonl"
    assert invoke("tasks", "export", str(tmp_path / "specs"), "-o", str(out)).exit_code == 0
    original = {row["instance_id"]: row for row in map(json.loads, rows["swebench"].read_text().splitlines())}
    exported = {row["instance_id"]: row for row in map(json.loads, out.read_text().splitlines())}
    assert exported == original


def test_import_humanevalfix_writes_loadable_tiny_repositories(tmp_path: Path, rows: dict):
    out = tmp_path / "he"
    result = invoke(
        "tasks", "import", "humanevalfix", str(rows["humanevalfix"]), "-o", str(out), "--limit", "3"
    )
    assert result.exit_code == 0 and "wrote 3 task(s)" in result.output
    tasks = load_tasks([out])
    assert [t.id for t in tasks] == [f"humanevalfix-python-{n}" for n in range(3)]
    exported = CliRunner().invoke(main, ["tasks", "export", str(out), "-o", str(tmp_path / "r.jsonl")])
    assert exported.exit_code == 2 and "need a GitHub repository" in exported.output


def test_schema_prints_json():
    result = invoke("tasks", "schema")
    assert json.loads(result.output)["title"] == "repofix task spec"


@pytest.mark.parametrize("name", ["spec.yaml", "rows.jsonl", "rows.json", "HumanEvalFix.jsonl"])
@pytest.mark.parametrize("command", [["tasks", "validate"], ["eval", "run", "--gold"]])
def test_a_file_that_is_not_utf8_text_is_named_without_a_traceback(
    tmp_path: Path, name: str, command: list[str]
):
    bad = tmp_path / name
    bad.write_bytes(b"\xff\xfe\x00garbage")
    result = CliRunner().invoke(main, [*command, str(bad)])
    assert result.exit_code == 2, result.output
    assert f"{name}: not UTF-8 text (byte 0 is 0xff)" in result.output
    assert not isinstance(result.exception, UnicodeDecodeError) and "Traceback" not in result.output


def test_a_predictions_file_that_is_not_utf8_text_is_named_without_a_traceback(tmp_path: Path):
    spec = Path(__file__).resolve().parents[1] / "task_specs" / "humanevalfix.yaml"
    predictions = tmp_path / "preds.jsonl"
    predictions.write_bytes(b'{"instance_id": "t", "model_patch": "\xff"}\n')
    result = CliRunner().invoke(main, ["eval", "run", str(spec), "--predictions", str(predictions)])
    assert result.exit_code == 2, result.output
    assert "preds.jsonl: not UTF-8 text (byte" in result.output and "Traceback" not in result.output
