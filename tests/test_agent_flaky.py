"""A test that is flaky at the baseline is not the run's business: the run fixes the real bug and is
done, although the flaky test fails again later (a mutant that dropped the baseline's flaky set
survived the old suite)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from agent_helpers import CLAMP, CLAMP_TESTS, DIRECT_FIX, make_repo, script
from conftest import require_backend

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "from repofix.cli import main; main()"]

# Fails on its first run, passes on the baseline's re-run, then fails on every later run.
FLAKY_TEST = """from pathlib import Path

COUNTER = Path("/tmp/flaky-counter")


def test_network_timing():
    n = int(COUNTER.read_text()) if COUNTER.exists() else 0
    COUNTER.write_text(str(n + 1))
    assert n == 1, f"run {n}: timed out"
"""
FLAKY_ID = "tests/test_timing.py::test_network_timing"


@pytest.mark.bwrap
def test_a_baseline_flaky_test_neither_becomes_a_target_nor_blocks_done(tmp_path):
    require_backend("bwrap")
    repo = make_repo(
        tmp_path / "repo",
        {
            "pkg/__init__.py": "",
            "pkg/mathx.py": CLAMP,
            "tests/test_mathx.py": CLAMP_TESTS,
            "tests/test_timing.py": FLAKY_TEST,
        },
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("REPOFIX_")}
    env.update(REPOFIX_HOME=str(tmp_path / "home"), PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [
            *CLI,
            "fix",
            "--repo",
            str(repo),
            "--model",
            script(tmp_path / "s.yaml", [DIRECT_FIX]),
            "--sandbox",
            "bwrap",
            "--json",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    outcome = json.loads(result.stdout)
    assert outcome["status"] == "done" and "+    if x > hi:" in outcome["patch"]
    record = json.loads(next((tmp_path / "home").glob("runs/*/trajectory.json")).read_text())
    assert FLAKY_ID in record["progress"]["flaky"]
