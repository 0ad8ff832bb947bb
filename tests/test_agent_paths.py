"""Paths as models write them: absolute paths inside the sandbox's workdir (`/workspace/pkg/mod.py`)
work in every action (view, each edit format, run_tests ids); a path outside the repository gets an
error observation and the run goes on. Through the CLI, with scripted models, on real sandboxes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from agent_helpers import CLAMP, act, clamp_repo, script, search_replace
from conftest import backend_params, require_backend

from repofix.agent.actions import Action, resolve_paths, workspace_relative
from repofix.edits import apply_edit

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "from repofix.cli import main; main()"]
MOD = "/workspace/pkg/mathx.py"
FIXED = CLAMP.replace("x < hi", "x > hi")

FIXES = {
    "search-replace": search_replace(MOD, "    if x < hi:", "    if x > hi:"),
    "whole-file": f"{MOD}\n<<<<<<< FILE\n{FIXED}>>>>>>> END\n",
    "diff": (
        f"--- {MOD}\n+++ {MOD}\n@@ -3,5 +3,5 @@ def clamp(x, lo, hi):\n         return lo\n"
        "-    if x < hi:\n+    if x > hi:\n         return hi\n     return x\n"
    ),
}
# What the model tries outside the repository, and the words of the observation it gets back.
OUTSIDE = [
    (act("view", path="/etc/passwd"), "/etc/passwd: outside the repository (/workspace)"),
    (act("view", path="../secrets.txt"), "../secrets.txt: outside the repository"),
    (act("view", path="/workspace/../etc/passwd"), "outside the repository"),
    (
        act("edit", text="/etc/profile.d/x.sh\n<<<<<<< FILE\necho hi\n>>>>>>> END\n"),
        "/etc/profile.d/x.sh: outside the repository",
    ),
    (
        act("edit", text=search_replace("../pkg/mathx.py", "    if x < hi:", "    if x > hi:")),
        "the path leaves the repository",
    ),
    (
        act("run_tests", tests=["/etc/tests/test_x.py::test_a"]),
        "/etc/tests/test_x.py: outside the repository",
    ),
]


def repofix(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REPOFIX_")}
    env.update(REPOFIX_HOME=str(home), PYTHONPATH=str(ROOT))
    return subprocess.run([*CLI, *args], env=env, capture_output=True, text=True, timeout=600, cwd=ROOT)


@pytest.mark.parametrize("backend", backend_params(("docker", "bwrap")))
@pytest.mark.parametrize("fmt", list(FIXES))
def test_absolute_paths_inside_work_outside_are_refused_and_the_run_goes_on(tmp_path, backend, fmt):
    require_backend(backend)
    repo = clamp_repo(tmp_path / "repo")
    replies = [
        act("view", path=MOD, start=1, end=4),
        *(reply for reply, _ in OUTSIDE),
        act("run_tests", tests=["/workspace/tests/test_mathx.py::test_high"]),
        act("edit", text=FIXES[fmt]),
        act("submit", summary="fixed"),
    ]
    result = repofix(
        "fix",
        "--repo",
        str(repo),
        "--model",
        script(tmp_path / "s.yaml", replies),
        "--sandbox",
        backend,
        "--max-steps",
        "20",
        "--json",
        home=tmp_path / "home",
    )
    assert result.returncode == 0, result.stderr[-3000:]
    outcome = json.loads(result.stdout)
    assert (outcome["status"], outcome["reason"], outcome["files_changed"]) == (
        "done",
        "done",
        ["pkg/mathx.py"],
    )
    assert "+    if x > hi:" in outcome["patch"]
    steps = json.loads(Path(outcome["trajectory_file"]).read_text())["steps"]
    observations = [step["observation"] for step in steps]
    assert observations[0].startswith("pkg/mathx.py (lines 1-4 of 6)")
    assert "def clamp(x, lo, hi):" in observations[0]
    for observation, (_, expected) in zip(observations[1:], OUTSIDE, strict=False):
        assert expected in observation, observation
        assert "root:" not in observation  # /etc/passwd was not read
    tests = observations[1 + len(OUTSIDE)]
    assert "test_high" in tests and "outside" not in tests
    assert (repo / "pkg" / "mathx.py").read_text() == CLAMP  # the user's checkout is untouched


@pytest.mark.parametrize(
    "path, workdir, expected",
    [
        ("/workspace/pkg/mod.py", "/workspace", "pkg/mod.py"),
        ("/workspace/", "/workspace", "."),
        ("./pkg/../pkg/mod.py", "/workspace", "pkg/mod.py"),
        ("/tmp/rf/workspace/a.py", "/tmp/rf/workspace/", "a.py"),
        ("/workspace2/a.py", "/workspace", None),
        ("/workspace/../a.py", "/workspace", None),
        ("pkg/../../a.py", "/workspace", None),
        ("/etc/passwd", "/workspace", None),
    ],
)
def test_workspace_relative(path, workdir, expected):
    assert workspace_relative(path, workdir) == expected


def test_test_ids_keep_their_parameters_and_relative_ids_stay_as_written():
    action = Action(
        "run_tests",
        {"tests": ["/workspace/t/test_a.py::test_x[/etc/passwd]", "t/test_b.py", "./t/test_c.py::C::test_y"]},
    )
    resolved, refused = resolve_paths(action, "/workspace")
    assert refused == ""
    assert resolved.arguments["tests"] == [
        "t/test_a.py::test_x[/etc/passwd]",
        "t/test_b.py",
        "./t/test_c.py::C::test_y",
    ]
    assert action.arguments["tests"][0].startswith("/workspace/")  # the recorded action is the model's own


@pytest.mark.parametrize("fmt", list(FIXES))
def test_edit_library_accepts_paths_under_its_root(fmt):
    result = apply_edit(FIXES[fmt], {"pkg/mathx.py": CLAMP}, root="/workspace")
    assert result.ok, result.message()
    assert result.changes == {"pkg/mathx.py": FIXED}
    refused = apply_edit(FIXES[fmt], {"pkg/mathx.py": CLAMP})  # without a root, absolute paths stay refused
    assert not refused.ok and "outside the repository" in refused.message()
