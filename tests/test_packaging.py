"""The wheel carries every package, the in-sandbox runner and the prompt templates."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_folder_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "repofix").rglob("__init__.py")}
    assert listed == found | {"repofix._sandbox"}


def test_the_wheel_ships_the_runner_and_templates(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
    )
    names = set(zipfile.ZipFile(next(tmp_path.glob("repofix-*.whl"))).namelist())
    for required in (
        "repofix/_sandbox/runner.py",
        "repofix/_sandbox/procs.py",
        "repofix/_sandbox/watch.py",
        "repofix/_sandbox/changes.py",
        "repofix/_sandbox/pyworker.py",
        "repofix/_sandbox/Dockerfile",
        "repofix/_sandbox/build_base.sh",
        "repofix/_sandbox/PROTOCOL.md",  # named in the session errors
        "repofix/agent/prompts/system.md",
        "repofix/agent/sandbox_helpers.py",
        "repofix/models/prompts/text_protocol.md",
        "repofix/repair/insandbox/worker.py",
        "repofix/repair/insandbox/check.py",
    ):
        assert required in names, required
