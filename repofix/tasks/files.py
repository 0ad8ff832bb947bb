"""Putting tasks on disk: a task's repository as a folder (`materialize`).

`materialize` handles the sources that need no network: inline `files` and a local `path`.
Remote sources (`url`, `github`) belong to the workspace room, which keeps mirrors and caches.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from repofix.gitsafe import argv, git_env
from repofix.tasks.model import Task, TasksError

_IGNORED = shutil.ignore_patterns("__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache")


class RemoteSource(TasksError):
    """The task's repository must be fetched (url / github); use repofix.workspace for that."""


def write_files(root: Path, files: dict[str, str]) -> None:
    """Write inline files below `root` (names are relative; the Task model rejects '..')."""
    for name, content in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8", newline="")


def materialize(task: Task, dest: Path) -> Path:
    """Write the task's repository at its base commit into `dest` (which must not exist or be
    empty) and return `dest`. The result appears all at once: on any error nothing is left."""
    source = task.repo
    if source.url is not None or source.github is not None:
        raise RemoteSource(
            f"task {task.id!r}: its repository ({source.describe()}) must be fetched; "
            "use repofix.workspace, which clones and caches remote repositories"
        )
    if dest.exists() and any(dest.iterdir()):
        raise TasksError(f"task {task.id!r}: cannot write its repository into {dest}: folder is not empty")
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=dest.parent, prefix=f".{dest.name}."))
    try:
        tree = staging / "repo"
        if source.files is not None:
            tree.mkdir()
            write_files(tree, source.files)
        else:
            _copy_path(task, Path(source.path or ""), tree)
        if dest.exists():
            dest.rmdir()
        os.replace(tree, dest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return dest


def _copy_path(task: Task, folder: Path, tree: Path) -> None:
    if not folder.is_dir():
        raise TasksError(f"task {task.id!r}: repo.path {str(folder)!r} is not a folder")
    if task.base_commit is None:
        # The folder as it is, uncommitted changes included (and its .git, if any).
        shutil.copytree(folder, tree, symlinks=True, ignore=_IGNORED)
        return
    for command in (
        argv(None, ["clone", "--quiet", "--no-checkout", "--no-hardlinks", "--", str(folder), str(tree)]),
        argv(tree, ["checkout", "--quiet", "--detach", task.base_commit, "--"]),
    ):
        done = subprocess.run(command, capture_output=True, text=True, env=git_env())
        if done.returncode != 0:
            raise TasksError(
                f"task {task.id!r}: cannot check out {task.base_commit!r} from {str(folder)!r}: "
                f"{done.stderr.strip() or done.stdout.strip()}"
            )
