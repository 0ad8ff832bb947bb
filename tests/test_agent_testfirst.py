"""`repofix implement` through the CLI, test first and not: the red phase accepts only collected test
ids (a module-level import of the new name is refused with a how-to, never a file-level target that
no passing run could show), and with tests first off the run is done only on `submit` plus the full,
independently verified run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from agent_helpers import CLAMP, act, git, make_repo, script, search_replace
from conftest import backend_params, require_backend

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "from repofix.cli import main; main()"]
FIXED = CLAMP.replace("x < hi", "x > hi")
TEXT = """def slug(text):
    return "-".join(text.lower().split())
"""
PROJECT = {
    "pyproject.toml": '[project]\nname = "pkg"\nversion = "0.1"\n',
    "pkg/__init__.py": "",
    "pkg/mathx.py": FIXED,
    "pkg/text.py": TEXT,
    "pkg/report.py": "from pkg.mathx import clamp\nfrom pkg.text import slug\n\n\n"
    'def line(name, value):\n    return f"{slug(name)}: {clamp(value, 0, 100)}"\n',
    "tests/__init__.py": "",
    "tests/test_mathx.py": "from pkg.mathx import clamp\n\n\ndef test_clamp():\n    assert clamp(50, 0, 10) == 10\n"
    "    assert clamp(-5, 0, 10) == 0\n    assert clamp(5, 0, 10) == 5\n",
    "tests/test_text.py": "from pkg.text import slug\n\n\ndef test_slug():\n    assert slug('Hello World') == 'hello-world'\n",
    "tests/test_report.py": "from pkg.report import line\n\n\ndef test_line():\n    assert line('CPU load', 140) == 'cpu-load: 100'\n",
}
WRAP = "\n\ndef wrap(x, lo, hi):\n    return lo + (x - lo) % (hi - lo)\n"
CHECKS = ["assert wrap(12, 0, 10) == 2", "assert wrap(-1, 0, 10) == 9"]


@pytest.fixture
def repo(tmp_path) -> Path:
    return make_repo(tmp_path / "repo", PROJECT)


def repofix(*args: str, home: Path) -> tuple[subprocess.CompletedProcess, dict]:
    """The real command in a child process, its JSON outcome, and that run's trajectory."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REPOFIX_")}
    env.update(REPOFIX_HOME=str(home), PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [*CLI, *args, "--json"], env=env, capture_output=True, text=True, timeout=600, cwd=ROOT
    )
    assert result.stdout, result.stderr
    outcome = json.loads(result.stdout)
    outcome["trajectory"] = json.loads(Path(outcome["trajectory_file"]).read_text())
    return result, outcome


def whole_file(path: str, text: str) -> dict:
    return act("edit", f"Write {path}.", text=f"{path}\n<<<<<<< FILE\n{text.strip()}\n>>>>>>> END\n")


def wrap_tests(style: str) -> str:
    """tests/test_wrap.py in one import style: `module_level` cannot collect before wrap() exists."""
    if style == "module_level":
        return "from pkg.mathx import wrap\n\n\ndef test_wrap():\n    " + "\n    ".join(CHECKS) + "\n"
    if style == "inside":
        return (
            "def test_wrap_above():\n    from pkg.mathx import wrap\n\n    " + CHECKS[0] + "\n\n\n"
            "def test_wrap_below():\n    from pkg.mathx import wrap\n\n    " + CHECKS[1] + "\n"
        )
    assert style == "module_attribute"
    return (
        "import pkg.mathx\n\n\ndef test_wrap_above():\n    assert pkg.mathx.wrap(12, 0, 10) == 2\n\n\n"
        "def test_wrap_below():\n    assert pkg.mathx.wrap(-1, 0, 10) == 9\n"
    )


@pytest.mark.parametrize("backend", backend_params(("bwrap",)))
@pytest.mark.parametrize("style", ["inside", "module_attribute"])
def test_module_level_import_is_refused_with_a_how_to_then_the_rewritten_test_finishes(
    tmp_path, repo, backend, style
):
    require_backend(backend)
    model = script(
        tmp_path / "s.yaml",
        [
            whole_file("tests/test_wrap.py", wrap_tests("module_level")),
            act("submit", summary="tests for wrap"),
            whole_file("tests/test_wrap.py", wrap_tests(style)),
            act("submit", summary="tests for wrap, collecting"),
            act(
                "edit",
                "Now the code.",
                text=search_replace("pkg/mathx.py", "    return x", "    return x" + WRAP),
            ),
        ],
    )
    result, outcome = repofix(
        "implement",
        "add wrap(x, lo, hi) that wraps x into [lo, hi)",
        "--repo",
        str(repo),
        "--model",
        model,
        "--sandbox",
        backend,
        home=tmp_path / "home",
    )
    steps = outcome["trajectory"]["steps"]
    refused = steps[1]["observation"]
    assert "Red phase not accepted" in refused and "tests/test_wrap.py: collection error" in refused
    assert "from pkg.mathx import wrap" in refused and "inside each test function" in refused
    assert "import pkg.mathx" in refused and "pkg.mathx.wrap(...)" in refused
    accepted = steps[3]["observation"]
    assert "Red phase accepted: 2 new test(s)" in accepted
    targets = outcome["trajectory"]["progress"]["targets"]
    assert targets == ["tests/test_wrap.py::test_wrap_above", "tests/test_wrap.py::test_wrap_below"]
    assert result.returncode == 0 and outcome["status"] == "done" and outcome["reason"] == "done", (
        result.stderr
    )
    assert "all 2 target test(s) pass" in outcome["message"] and len(steps) == 5
    assert sorted(outcome["files_changed"]) == ["pkg/mathx.py", "tests/test_wrap.py"]
    branch_file = git(repo, "show", f"{outcome['branch']}:tests/test_wrap.py")
    assert branch_file.strip() == wrap_tests(style).strip()


@pytest.mark.parametrize("backend", backend_params(("bwrap",)))
def test_a_new_module_imported_at_module_level_is_refused_too(tmp_path, repo, backend):
    """No `cannot import name` to quote: the how-to names no module of the project, and the run ends
    by its limit, not done, with no target recorded."""
    require_backend(backend)
    new_module = "from pkg.wrapping import wrap\n\n\ndef test_wrap():\n    " + CHECKS[0] + "\n"
    model = script(
        tmp_path / "s.yaml",
        [whole_file("tests/test_wrapping.py", new_module), act("submit", summary="tests")],
    )
    result, outcome = repofix(
        "implement",
        "add pkg/wrapping.py with wrap()",
        "--repo",
        str(repo),
        "--model",
        model,
        "--sandbox",
        backend,
        "--max-steps",
        "2",
        home=tmp_path / "home",
    )
    refused = outcome["trajectory"]["steps"][1]["observation"]
    assert "Red phase not accepted" in refused and "No module named 'pkg.wrapping'" in refused
    assert "inside each test function" in refused and "does not exist yet" in refused
    assert result.returncode == 1 and outcome["reason"] == "step_limit", result.stderr
    assert (
        outcome["trajectory"]["progress"]["targets"] == []
        and outcome["trajectory"]["progress"]["phase"] == "red"
    )


CLIP = "\n\ndef clip_all(values, lo, hi):\n    return [clamp(v, lo, hi) for v in values]\n"
HALF = act("edit", "wrap first.", text=search_replace("pkg/mathx.py", "    return x", "    return x" + WRAP))
REST = act(
    "edit",
    "Then clip_all.",
    text=search_replace(
        "pkg/mathx.py", "    return lo + (x - lo) % (hi - lo)", "    return lo + (x - lo) % (hi - lo)" + CLIP
    ),
)
BREAK = act(
    "edit",
    "Oops, clamp changed too.",
    text=search_replace("pkg/mathx.py", "        return hi\n", "        return hi - 1\n"),
)
SUBMIT = act("submit", summary="wrap and clip_all")


@pytest.mark.parametrize("backend", backend_params(("bwrap",)))
@pytest.mark.parametrize(
    "case",
    ["two edits then submit", "two edits, no submit", "submit with a regression", "submit before any change"],
)
def test_without_tests_first_only_a_verified_submit_is_done(tmp_path, repo, backend, case):
    require_backend(backend)
    replies, steps_limit = {
        "two edits then submit": ([HALF, REST, SUBMIT], "10"),
        "two edits, no submit": ([HALF, REST], "2"),
        "submit with a regression": ([HALF, REST, BREAK, SUBMIT], "4"),
        "submit before any change": ([SUBMIT], "1"),
    }[case]
    model = script(tmp_path / "s.yaml", replies)
    result, outcome = repofix(
        "implement",
        "add wrap() and clip_all() to pkg.mathx",
        "--repo",
        str(repo),
        "--model",
        model,
        "--sandbox",
        backend,
        "--no-tests-first",
        "--max-steps",
        steps_limit,
        home=tmp_path / "home",
    )
    steps = outcome["trajectory"]["steps"]
    first = steps[0]["observation"]
    verifications = outcome["trajectory"].get("verifications", [])
    if case == "submit before any change":  # the suite passes as it is: still no task done
        assert "Submission not accepted: nothing has changed yet" in first and verifications == []
        assert result.returncode == 1 and outcome["reason"] == "step_limit" and outcome["branch"] is None
        return
    assert "No target tests: when the task is complete, `submit`" in first
    assert "done" not in first.lower() and "verified" not in first.lower()
    if case == "two edits then submit":
        assert result.returncode == 0 and outcome["status"] == "done" and outcome["reason"] == "done", (
            result.stderr
        )
        assert len(steps) == 3 and [v["step"] for v in verifications] == [3] and verifications[0]["done"]
        assert "Verified in a fresh sandbox" in steps[2]["observation"]
        assert "3 previously passing test(s) still pass" in outcome["message"]
        delivered = git(repo, "show", f"{outcome['branch']}:pkg/mathx.py")
        assert "def wrap(" in delivered and "def clip_all(" in delivered
    elif case == "two edits, no submit":
        assert (
            result.returncode == 1 and outcome["status"] == "not_done" and outcome["reason"] == "step_limit"
        )
        assert len(steps) == 2 and verifications == [] and outcome["branch"] is None
    else:
        assert (
            result.returncode == 1 and outcome["status"] == "not_done" and outcome["reason"] == "step_limit"
        )
        refused = steps[3]["observation"]
        assert "Submission not accepted" in refused and "passed before now fail" in refused
        assert "tests/test_mathx.py::test_clamp" in refused and outcome["branch"] is None
        assert all(not v["done"] for v in verifications)
