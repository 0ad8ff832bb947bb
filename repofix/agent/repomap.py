"""A compact map of a repository for the first message: files and their top-level definitions,
fitted into a token budget by dropping detail in stages (methods, then test-file definitions,
then definitions altogether, then files)."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

from repofix.testing.text import estimate_tokens

SKIP_DIRS = {".git", "__pycache__", ".venv", "venv", "node_modules", ".tox", ".mypy_cache", ".pytest_cache",
             "build", "dist", ".eggs"}


def list_files(root: Path) -> list[str]:
    """Tracked files when `root` is a git checkout, else every file outside the usual clutter."""
    if (root / ".git").exists():
        out = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True)
        if out.returncode == 0:
            return sorted(p for p in out.stdout.decode("utf-8", "replace").split("\0") if p)
    found = []
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        if path.is_file() and not any(part in SKIP_DIRS or part.endswith(".egg-info") for part in rel.parts):
            found.append(rel.as_posix())
    return sorted(found)


def definitions(source: str, methods: bool) -> list[str]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ["(does not parse)"]
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.append(f"def {node.name}()")
        elif isinstance(node, ast.ClassDef):
            inner = [n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
            names.append(f"class {node.name}" + (f"({', '.join(inner)})" if methods and inner else ""))
    return names


def is_test(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name.startswith("test_") or name.endswith("_test.py") or "/tests/" in f"/{path}"


def repo_map(root: Path, budget: int = 1200) -> str:
    files = list_files(root)
    sources = {}
    for path in files:
        if path.endswith(".py"):
            try:
                sources[path] = (root / path).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
    stages = [(True, True), (False, True), (False, False), (False, None)]
    for methods, tests_too in stages:
        lines = []
        for path in files:
            defs = []
            if tests_too is not None and path in sources and (tests_too or not is_test(path)):
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
