"""`repofix tasks list|validate|import|export|schema`, through the real CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from repofix.cli import main
from repofix.tasks import load_tasks

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
SWEBENCH_DEV = SHARED / "swebench" / "SWE-bench_Lite_dev.jsonl"
HUMANEVALFIX = SHARED / "humanevalfix" / "humanevalpack_python.jsonl"


def invoke(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_tasks_is_registered():
    result = invoke("tasks", "--help")
    assert result.exit_code == 0
    for command in ("list", "validate", "import", "export", "schema"):
        assert command in result.output


def test_list_swebench_and_humanevalfix_files():
    result = invoke("tasks", "list", str(SWEBENCH_DEV), str(HUMANEVALFIX))
    assert result.exit_code == 0, result.output
    assert "sqlfluff__sqlfluff-1625" in result.output and "github: sqlfluff/sqlfluff" in result.output
    assert "humanevalfix-python-163" in result.output and result.output.endswith("187 task(s)\n")
    as_json = invoke("tasks", "list", "--json", str(SWEBENCH_DEV))
    assert json.loads(as_json.output.splitlines()[0])["id"] == "sqlfluff__sqlfluff-1625"


def test_validate_exits_2_with_precise_errors(tmp_path: Path):
    bad = tmp_path / "x.yaml"
    bad.write_text("id: foo\nrepo: {files: {}}\nproblem_statement: p\nFAIL_TO_PASS: tests/t.py::a\n")
    result = CliRunner().invoke(main, ["tasks", "validate", str(bad)])
    assert result.exit_code == 2
    assert f"{bad}: task 'foo': FAIL_TO_PASS: expected a list of test ids" in result.output
    good = invoke("tasks", "validate", str(SWEBENCH_DEV))
    assert good.exit_code == 0 and "23 task(s) valid" in good.output


def test_import_swebench_then_export_round_trips(tmp_path: Path):
    result = invoke("tasks", "import", "swebench", str(SWEBENCH_DEV), "-o", str(tmp_path / "specs"))
    assert result.exit_code == 0 and "wrote 23 task(s)" in result.output
    folder = tmp_path / "specs" / "sqlfluff__sqlfluff-1625"
    assert {p.name for p in folder.iterdir()} == {"task.yaml", "gold.patch", "tests.patch"}
    assert invoke("tasks", "validate", str(tmp_path / "specs")).exit_code == 0
    out = tmp_path / "rows.jsonl"
    assert invoke("tasks", "export", str(tmp_path / "specs"), "-o", str(out)).exit_code == 0
    original = {row["instance_id"]: row for row in map(json.loads, SWEBENCH_DEV.read_text().splitlines())}
    exported = {row["instance_id"]: row for row in map(json.loads, out.read_text().splitlines())}
    assert exported == original


def test_import_humanevalfix_writes_loadable_tiny_repositories(tmp_path: Path):
    out = tmp_path / "he"
    result = invoke("tasks", "import", "humanevalfix", str(HUMANEVALFIX), "-o", str(out), "--limit", "3")
    assert result.exit_code == 0 and "wrote 3 task(s)" in result.output
    tasks = load_tasks([out])
    assert [t.id for t in tasks] == [f"humanevalfix-python-{n}" for n in range(3)]
    exported = CliRunner().invoke(main, ["tasks", "export", str(out), "-o", str(tmp_path / "r.jsonl")])
    assert exported.exit_code == 2 and "need a GitHub repository" in exported.output


def test_schema_prints_json():
    result = invoke("tasks", "schema")
    assert json.loads(result.output)["title"] == "repofix task spec"
