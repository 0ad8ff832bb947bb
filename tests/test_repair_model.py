"""`repofix fix` with no model configured: the built-in engine repairs a flipped comparison
offline through the real agent loop and sandbox, and the result arrives as a branch."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from forging import forging_conftest

from repofix.models.base import ModelReply
from repofix.repair.doubt import differ_seconds
from repofix.repair.generate import mutations
from repofix.repair.limits import Budget, searched_after
from repofix.repair.model import BuiltinModel, make_builtin_model
from repofix.repair.source import SourceFile
from repofix.repair.target import TargetSearch
from tests.conftest import backend_params, require_backend

CODE = "def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x < hi:\n        return hi\n    return x\n"
TESTS = (
    "from clamp import clamp\n\ndef test_low():\n    assert clamp(-5, 0, 10) == 0\n\n"
    "def test_high():\n    assert clamp(50, 0, 10) == 10\n\ndef test_mid():\n    assert clamp(5, 0, 10) == 5\n"
)


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def fix(tmp_path: Path, backend: str, files: dict[str, str]) -> tuple[Path, subprocess.CompletedProcess]:
    """`repofix fix` with no model configured, in a new git repository of `files`."""
    require_backend(backend)
    repo = tmp_path / "repo"
    repo.mkdir()
    for name, text in files.items():
        (repo / name).write_text(text)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init")
    env = {k: v for k, v in os.environ.items() if not k.startswith("REPOFIX_") and not k.endswith("_API_KEY")}
    env.update(REPOFIX_HOME=str(tmp_path / "home"), PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    done = subprocess.run(
        [sys.executable, "-c", "from repofix.cli import main; main()", "fix", "--sandbox", backend],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return repo, done


@pytest.mark.parametrize("backend", backend_params(("bwrap", "none")))
def test_repofix_fix_without_a_model_repairs_offline_and_delivers_a_branch(
    backend: str, tmp_path: Path
) -> None:
    repo, done = fix(tmp_path, backend, {"clamp.py": CODE, "test_clamp.py": TESTS})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "built-in repair engine" in done.stdout + done.stderr
    branches = git(repo, "branch", "--list", "repofix/*").split()
    assert branches, done.stdout
    fixed = git(repo, "show", f"{branches[-1]}:clamp.py")
    assert "if x > hi:" in fixed
    assert git(repo, "show", f"{branches[-1]}:test_clamp.py") == TESTS
    assert (repo / "clamp.py").read_text() == CODE  # the user's working tree is untouched


def test_builtin_model_starts_with_a_python_action_and_gives_up_on_garbage() -> None:
    model = make_builtin_model(max_candidates=5, unknown_option=1)
    assert isinstance(model, BuiltinModel) and model.budget.max_candidates == 5
    first = model.query([{"role": "user", "content": "fix it"}])
    assert [c.name for c in first.tool_calls] == ["python"]
    second = model.query([{"role": "tool", "tool_call_id": "x", "content": "Traceback: no pytest"}])
    assert isinstance(second, ModelReply) and second.give_up and not second.tool_calls


# a conftest hook that raises in the coverage run alone (a clash with its plugin) stops pytest there
# before any test runs (INTERNALERROR, exit code 3): a clear give-up, not "no target test fails"
@pytest.mark.parametrize("backend", backend_params(("none",)))
def test_an_internal_error_of_pytest_in_the_coverage_run_is_a_clear_give_up(
    backend: str, tmp_path: Path
) -> None:
    hook = (
        "def pytest_collection_modifyitems(config, items):\n"
        "    if any(type(p).__name__ == 'CoveragePlugin' for p in config.pluginmanager.get_plugins()):\n"
        "        raise RuntimeError('boom')\n"
    )
    repo, done = fix(tmp_path, backend, {"clamp.py": CODE, "test_clamp.py": TESTS, "conftest.py": hook})
    output = done.stdout + done.stderr
    assert "internal error of pytest (exit code 3" in output, output
    assert "Traceback" not in output and "no target test fails" not in output
    assert (repo / "clamp.py").read_text() == CODE


def sources_forger(sources: str) -> str:
    """A conftest.py whose last JSON line (the one the model reads) has `sources` as its files."""
    return forging_conftest(
        f"""json.dumps({{"duration": 1, {sources} "tests": {{"test_clamp.py::test_high": """
        """{"outcome": "failed", "lines": {"clamp.py": [4]}, "tb": [], "duration": 0}}})"""
    )


@pytest.mark.parametrize(
    "sources", ['"sources": {"clamp.py": ["not", "text"]},', ""], ids=["no-texts", "missing"]
)
@pytest.mark.parametrize("backend", backend_params(("bwrap", "none")))
def test_a_forged_coverage_result_whose_sources_are_no_texts_is_a_clear_give_up(
    backend: str, sources: str, tmp_path: Path
) -> None:
    repo, done = fix(
        tmp_path, backend, {"clamp.py": CODE, "test_clamp.py": TESTS, "conftest.py": sources_forger(sources)}
    )
    output = done.stdout + done.stderr
    assert "printed a malformed result: its sources are not file texts" in output, output
    assert "Traceback" not in output
    assert not git(repo, "branch", "--list", "repofix/*").split()  # nothing delivered
    assert (repo / "clamp.py").read_text() == CODE


@pytest.mark.parametrize("found", [0, 1])
def test_the_check_s_seconds_leave_the_differential_check_its_time_once_a_patch_passed(found: int) -> None:
    # the scouts search after a patch passed; the check worker's seconds must leave the comparison
    # of the plausible patches its time, as repair() leaves it (the time left was given whole)
    src = SourceFile("m.py", "def f(x):\n    return x + 1\n")
    candidate = next(iter(mutations(src)))
    model = BuiltinModel(Budget(max_seconds=100))
    model.started = time.monotonic()
    model.passing = ["test_m.py::test_g"]
    model.search = TargetSearch(
        "test_m.py::test_f", [], model.passing, model.budget, 2.0, model.started + 100, 100.0, 1,
        stream=iter([candidate]), found=[candidate] * found,
        searched_after=searched_after(model.budget, model.passing),  # as search_for sets it
    )  # fmt: skip
    reply = model._next_batch()
    assert reply is not None and reply.tool_calls[0].name == "python"
    assert '\\"mode\\": \\"check\\"' in reply.tool_calls[0].arguments["code"]  # a batch, not the comparison
    seconds = float(re.search(r'\\"seconds\\": ([0-9.]+)', reply.tool_calls[0].arguments["code"])[1])
    reserve = differ_seconds(found + 1, 2.0, model.budget, model.passing) if found else 0.0
    assert reserve == (20.0 if found else 0.0)  # two runs of the original and one per patch, 5 s each
    assert 100 - reserve - 5 < seconds <= 100 - reserve
