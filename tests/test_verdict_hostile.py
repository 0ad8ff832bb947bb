"""Forged verdicts through the real `repofix fix` command: a model that exports PYTEST_ADDOPTS and
PYTHONPATH, puts a fake interpreter first on PATH, forges the report file, adds a conftest.py that
flips outcomes or a sitecustomize.py never gets DONE; the run reports the real test results and exits 1.
A suite that cannot run at baseline (a conftest that fails to import, no tests) is never DONE either."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from agent_helpers import DIRECT_FIX, act, clamp_repo, make_repo, script
from conftest import backend_params, require_backend
from hostile_cases import CASES, REAL_RESULTS

ROOT = Path(__file__).resolve().parents[1]
BACKENDS = backend_params(("docker", "bwrap"))


def repofix(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REPOFIX_")}
    env.update(REPOFIX_HOME=str(home), PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-c", "from repofix.cli import main; main()", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )


def fix(
    repo: Path, model: str, backend: str, home: Path, *extra: str
) -> tuple[subprocess.CompletedProcess, dict]:
    require_backend(backend)
    result = repofix(
        "fix", "--repo", str(repo), "--model", model, "--sandbox", backend, "--json", *extra, home=home
    )
    return result, (json.loads(result.stdout) if result.stdout.startswith("{") else {})


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", list(CASES))
def test_forged_verdicts_end_not_done_with_the_real_results(tmp_path, backend, case):
    _, replies, not_counted = CASES[case]
    repo = clamp_repo(tmp_path / "repo")
    model = script(tmp_path / "s.yaml", replies)
    result, outcome = fix(repo, model, backend, tmp_path / "home", "--max-steps", str(len(replies)))
    assert result.returncode == 1, result.stderr
    assert outcome["status"] == "not_done" and outcome["reason"] == "step_limit"
    assert outcome["tests_after"] == REAL_RESULTS and outcome["branch"] is None
    assert outcome["extra"].get("test_infra_not_counted", []) == not_counted
    verifications = json.loads(Path(outcome["trajectory_file"]).read_text()).get("verifications", [])
    assert all(not v["done"] and v["status"] == "completed" for v in verifications)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_honest_fix_is_verified_done_in_a_fresh_sandbox(tmp_path, backend):
    repo = clamp_repo(tmp_path / "repo")
    result, outcome = fix(repo, script(tmp_path / "s.yaml", [DIRECT_FIX]), backend, tmp_path / "home")
    assert result.returncode == 0, result.stderr
    assert outcome["status"] == "done" and outcome["tests_after"] == "3 passed, 0 failed of 3"
    [verification] = json.loads(Path(outcome["trajectory_file"]).read_text())["verifications"]
    assert verification["done"] and verification["checkpoint"] == outcome["checkpoint"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("files", "flags", "shown"),
    [
        (
            {"conftest.py": "import no_such_module\n", "tests/test_a.py": "def test_a():\n    assert True\n"},
            [],
            ["import_error", "no_such_module"],
        ),
        (
            {"pkg/__init__.py": "", "setup.py": "from setuptools import setup\nsetup(name='pkg')\n"},
            [],
            ["no_tests", "no tests were collected"],
        ),
        (
            {"tests/test_a.py": "def test_a():\n    assert True\n"},
            ["--test-cmd", "no-such-runner -q"],
            ["runner_missing", "no-such-runner"],
        ),
    ],
    ids=["conftest-import-error", "no-tests", "no-runner"],
)
def test_a_suite_that_cannot_run_at_baseline_is_not_done(tmp_path, backend, files, flags, shown):
    repo = make_repo(tmp_path / "repo", files)
    model = script(tmp_path / "s.yaml", [act("view", path="conftest.py")])
    result, outcome = fix(repo, model, backend, tmp_path / "home", *flags)
    assert result.returncode == 1, result.stderr
    assert outcome["status"] == "not_done" and outcome["reason"] == "tests_broken" and outcome["steps"] == 0
    assert all(text in outcome["message"] for text in shown)
    plain = repofix(
        "fix", "--repo", str(repo), "--model", model, "--sandbox", backend, *flags, home=tmp_path / "home"
    )
    assert plain.returncode == 1 and plain.stdout.startswith(
        "NOT DONE (tests_broken): the test suite cannot run"
    )


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("chain", [False, True], ids=["one-model", "chain"])
def test_a_model_that_gives_up_ends_gave_up_with_its_reason(tmp_path, backend, chain):
    repo = clamp_repo(tmp_path / "repo")
    reason = "The bug is in a C extension I cannot build here."
    model = script(tmp_path / "s.yaml", [{"content": f"I looked everywhere.\n{reason}", "give_up": True}])
    if chain:  # the first model gives up, the next takes the same conversation and gives up too
        model = (
            script(tmp_path / "first.yaml", [{"content": "no candidate patch", "give_up": True}])
            + ","
            + model
        )
    result, outcome = fix(repo, model, backend, tmp_path / "home")
    assert result.returncode == 1, result.stderr
    assert outcome["status"] == "not_done" and outcome["reason"] == "gave_up"
    assert outcome["message"].endswith(reason)


@pytest.mark.bwrap
@pytest.mark.parametrize(
    ("broken", "reason", "code"),
    [
        ("", "nothing_to_fix", 0),
        ("import no_such_module\n", "tests_broken", 1),
    ],
    ids=["all-pass", "only-a-collection-error"],
)
def test_nothing_to_fix_only_when_tests_ran_and_none_fails(tmp_path, broken, reason, code):
    files = {"pkg/__init__.py": "", "tests/test_a.py": "def test_a():\n    assert True\n"}
    if broken:
        files["tests/test_b.py"] = broken
    repo = make_repo(tmp_path / "repo", files)
    result, outcome = fix(repo, script(tmp_path / "s.yaml", []), "bwrap", tmp_path / "home")
    assert result.returncode == code, result.stderr
    assert outcome["reason"] == reason and outcome["steps"] == 0
    if broken:
        assert "tests/test_b.py" in outcome["message"] and "no_such_module" in outcome["message"]


@pytest.mark.bwrap
def test_the_builtin_engine_giving_up_ends_gave_up_not_format_errors(tmp_path):
    repo = make_repo(
        tmp_path / "repo",
        {
            "pkg/__init__.py": "",
            "pkg/greet.py": "def greet():\n    return 'bye'\n",
            "tests/test_greet.py": "from pkg.greet import greet\n\n\ndef test_greet():\n    assert greet() == 'hello world'\n",
        },
    )
    result, outcome = fix(repo, "builtin", "bwrap", tmp_path / "home")
    assert result.returncode == 1, result.stderr
    assert outcome["reason"] == "gave_up"
    assert outcome["message"].startswith("gave up: no plausible patch among ")  # the engine's true reason
    assert outcome["message"].endswith("(built-in repair engine)")
