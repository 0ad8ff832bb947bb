"""`repofix test` end to end on a real sandbox."""

from __future__ import annotations

import tempfile

import pytest
from click.testing import CliRunner
from conftest import require_backend

from repofix.cli import main


@pytest.mark.bwrap
def test_repofix_test_prints_baseline_and_feedback(tree, tmp_path) -> None:
    require_backend("bwrap")
    (tree / "tests" / "test_more.py").write_text(
        "from pkg.calc import add\n\ndef test_negative():\n    assert add(-1, -1) == -3\n"
    )
    result = CliRunner().invoke(
        main,
        [
            "test",
            "--repo",
            str(tree),
            "--sandbox",
            "bwrap",
            "--log-dir",
            str(tmp_path / "logs"),
            "--budget",
            "800",
        ],
    )
    assert result.exit_code == 1, result.output
    assert "Baseline: 1 failed, 1 passed" in result.output
    assert "FAILED tests/test_more.py::test_negative" in result.output
    assert "assert -2 == -3" in result.output
    log = tmp_path / "logs" / "tests-001.log"
    assert f"Full log: {log}" in result.output and "test_negative" in log.read_text()


@pytest.mark.bwrap
def test_repofix_test_exit_code_zero_when_all_pass(tree) -> None:
    require_backend("bwrap")
    result = CliRunner().invoke(main, ["test", "--repo", str(tree), "--sandbox", "bwrap"])
    assert result.exit_code == 0, result.output
    assert "Baseline: 1 passed" in result.output


@pytest.mark.bwrap
def test_repofix_test_with_a_non_pytest_command(tree) -> None:
    require_backend("bwrap")
    result = CliRunner().invoke(
        main,
        [
            "test",
            "--repo",
            str(tree),
            "--sandbox",
            "bwrap",
            "--test-cmd",
            "sh -c 'echo widget check FAILED; exit 3'",
        ],
    )
    assert result.exit_code == 1, result.output
    assert "exit code 3" in result.output and "widget check FAILED" in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["--sandbox", "bwrap", "--setup", "echo preparing; exit 3"],
        ["--sandbox", "docker", "--python", "3.11"],
    ],
    ids=["failing-setup", "python-with-docker"],
)
def test_a_sandbox_that_does_not_open_leaves_no_log_folder(tree, tmp_path, monkeypatch, args) -> None:
    """The default log folder is made only once a run starts: a sandbox that never opened leaves none."""
    if "bwrap" in args:
        require_backend("bwrap")
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))  # where mkdtemp makes the default log folder
    result = CliRunner().invoke(main, ["test", "--repo", str(tree), *args])
    assert result.exit_code == 2, result.output
    assert "repofix:" in result.output
    assert not [p.name for p in temp.iterdir() if p.name.startswith("repofix-test-")]
