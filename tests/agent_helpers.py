"""Small repositories and scripted replies for the agent tests."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import yaml

CLAMP = """def clamp(x, lo, hi):
    if x < lo:
        return lo
    if x < hi:
        return hi
    return x
"""
CLAMP_TESTS = """from pkg.mathx import clamp


def test_low():
    assert clamp(-5, 0, 10) == 0


def test_mid():
    assert clamp(5, 0, 10) == 5


def test_high():
    assert clamp(50, 0, 10) == 10
"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def make_repo(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    for path, content in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(content)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "-c", "user.email=dev@example.com", "-c", "user.name=Dev", "commit", "-qm", "start")
    return root


def clamp_repo(root: Path) -> Path:
    return make_repo(root, {"pkg/__init__.py": "", "pkg/mathx.py": CLAMP, "tests/test_mathx.py": CLAMP_TESTS})


def search_replace(path: str, old: str, new: str) -> str:
    return f"{path}\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n"


def act(tool: str, content: str = "", **arguments: Any) -> dict[str, Any]:
    return {"content": content, "tool": tool, "arguments": arguments}


WRONG_FIX = act("edit", "Try <=.", text=search_replace("pkg/mathx.py", "    if x < hi:", "    if x <= hi:"))
RIGHT_FIX = act(
    "edit", "Compare the other way.", text=search_replace("pkg/mathx.py", "    if x <= hi:", "    if x > hi:")
)
DIRECT_FIX = act(
    "edit", "Compare the other way.", text=search_replace("pkg/mathx.py", "    if x < hi:", "    if x > hi:")
)


def script(path: Path, replies: list[dict[str, Any]]) -> str:
    path.write_text(yaml.safe_dump(replies, sort_keys=False))
    return f"scripted:{path}"
