"""repofix declares `requires-python >= 3.10`: on a Python 3.10 interpreter (here pyenv's; Debian
bookworm ships only 3.11), with the dependencies pip picks for 3.10 from pyproject.toml (markers
included: tomli stands in for tomllib), every module imports and a whole `repofix fix` run is DONE.

The 3.10 environment is cached under ~/.cache/repofix-tests, keyed by the dependency list, so only
the first run (or a changed dependency) pays for pip."""

from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from agent_helpers import DIRECT_FIX, act, clamp_repo, script
from conftest import require_pypi

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.network  # the venv's dependencies come from PyPI (once; cached)
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "repofix-tests"


def python310() -> str | None:
    """A working Python 3.10 (pyenv's shim may exist without the version being selected)."""
    candidates = [
        *sorted(glob.glob(str(Path.home() / ".pyenv/versions/3.10*/bin/python3.10")), reverse=True),
        shutil.which("python3.10"),
    ]
    for candidate in filter(None, candidates):
        probe = subprocess.run(
            [candidate, "-c", "import sys; print(sys.version_info[:2] == (3, 10))"],
            capture_output=True,
            text=True,
        )
        if probe.stdout.strip() == "True":
            return candidate
    return None


@pytest.fixture(scope="module")
def py310() -> Path:
    """A Python 3.10 venv holding what pip installs for repofix on 3.10 (plus pytest for the run)."""
    interpreter = python310()
    if interpreter is None:
        message = "no Python 3.10 interpreter (python3.10 on PATH, or pyenv's 3.10)"
        if os.environ.get("CI"):
            pytest.fail(f"{message}: the Python 3.10 support that pyproject.toml declares is untested")
        pytest.skip(message)
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    key = hashlib.sha256(json.dumps([interpreter, dependencies]).encode()).hexdigest()[:12]
    venv = CACHE / f"py310-{key}"
    if not (venv / "ready").exists():
        require_pypi()  # the dependencies come from PyPI, once (the venv is cached afterwards)
        CACHE.mkdir(parents=True, exist_ok=True)  # "ready" is written last: a half-made venv is redone
        subprocess.run([interpreter, "-m", "venv", "--clear", str(venv)], check=True, capture_output=True)
        pip = subprocess.run(
            [str(venv / "bin/python"), "-m", "pip", "install", "-q", *dependencies, "pytest>=8"],
            capture_output=True,
            text=True,
        )
        assert pip.returncode == 0, pip.stderr[-3000:]
        (venv / "ready").write_text(key)
    return venv / "bin/python"


def run310(python: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("REPOFIX_")}
    clean.update(PYTHONPATH=str(ROOT), LITELLM_LOCAL_MODEL_COST_MAP="True", **env)
    return subprocess.run(
        [str(python), *args], env=clean, capture_output=True, text=True, timeout=600, cwd=ROOT
    )


@pytest.mark.timeout(1200)  # the first run installs the dependencies
def test_every_module_imports_on_python_310(py310):
    code = (
        "import importlib, pkgutil, sys, repofix\n"
        "assert sys.version_info[:2] == (3, 10), sys.version\n"
        "names = [m.name for m in pkgutil.walk_packages(repofix.__path__, 'repofix.')]\n"
        "for name in names: importlib.import_module(name)\n"
        "print(len(names))\n"
    )
    result = run310(py310, "-c", code)
    assert result.returncode == 0, result.stderr[-3000:]
    assert int(result.stdout.split()[-1]) > 50  # every module, not a few


def test_a_whole_run_on_python_310(py310, tmp_path):
    """The agent, checkpoints, edits, the test runner and delivery on 3.10 (the unisolated backend
    runs the session runner with this interpreter too)."""
    repo = clamp_repo(tmp_path / "repo")
    replies = script(tmp_path / "s.yaml", [act("view", path="pkg/mathx.py"), DIRECT_FIX])
    result = run310(
        py310,
        "-c",
        "from repofix.cli import main; main()",
        "fix",
        "--repo",
        str(repo),
        "--model",
        replies,
        "--sandbox",
        "none",
        "--json",
        REPOFIX_HOME=str(tmp_path / "home"),
    )
    assert result.returncode == 0, result.stderr[-3000:]
    outcome = json.loads(result.stdout)
    assert (outcome["status"], outcome["files_changed"]) == ("done", ["pkg/mathx.py"])
    assert "tomllib" not in result.stderr
