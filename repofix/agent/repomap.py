"""A compact map of a repository for the first message: files and their top-level definitions,
fitted into a token budget by dropping detail in stages (methods, then test-file definitions,
then definitions altogether, then files)."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

from repofix.models.tokens import estimate_tokens
from repofix.repofiles import read_inside, walk_files
from repofix.testfiles import is_test_file
from repofix.workspace.git import argv, git_env

MAX_SOURCE_BYTES = 256 * 1024  # a bigger .py file is listed without its definitions

SKIP_DIRS = {
    ".git",
    "__pycache__",
    ".venv",
    "venv",
    "node_modules",
    ".tox",
    ".mypy_cache",
    ".pytest_cache",
    "build",
    "dist",
    ".eggs",
}


def list_files(root: Path) -> list[str]:
    """Tracked files when `root` is a git checkout, else every file outside the usual clutter."""
    if (root / ".git").is_dir() and not (root / ".git").is_symlink():
        out = subprocess.run(argv(root, ["ls-files", "-z"]), capture_output=True, env=git_env())
        if out.returncode == 0:
            return sorted(p for p in out.stdout.decode("utf-8", "replace").split("\0") if p)
    return walk_files(root, SKIP_DIRS)


def definitions(source: str, methods: bool) -> list[str]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):  # also a line nested deeper than the parser goes
        return ["(does not parse)"]
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.append(f"def {node.name}()")
        elif isinstance(node, ast.ClassDef):
            inner = [n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
            names.append(f"class {node.name}" + (f"({', '.join(inner)})" if methods and inner else ""))
    return names


def repo_map(root: Path, budget: int = 1200) -> str:
    files = list_files(root)
    sources = {}
    for path in files:
        if path.endswith(".py"):  # never through a symlink, never a device, never unbounded
            data = read_inside(root, path, MAX_SOURCE_BYTES)
            if data is not None:
                sources[path] = data.decode("utf-8", errors="replace")
    stages = [(True, True), (False, True), (False, False), (False, None)]
    for methods, tests_too in stages:
        lines = []
        for path in files:
            defs = []
            if tests_too is not None and path in sources and (tests_too or not is_test_file(path)):
                defs = definitions(sources[path], methods)
            lines.append(f"{path}: {', '.join(defs)}" if defs else path)
        text = "\n".join(lines)
        if estimate_tokens(text) <= budget:
            return text
    kept, used = [], 0
    for line in lines:
        if used + estimate_tokens(line) + 1 > budget - 10:
            break
        kept.append(line)
        used += estimate_tokens(line) + 1
    return "\n".join(kept + [f"... and {len(lines) - len(kept)} more files (use `shell` to list them)"])
