"""A task's repository at its base commit, as a folder on the host: inline files and local
folders through `repofix.tasks.materialize`, remote ones (`github`, `url`) through the workspace
room's acquisition, from a mirror folder when given (offline hosts: `--mirror DIR`)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from repofix.tasks import Task, TasksError, materialize


def checkout(task: Task, dest: Path, *, mirror: Path | None = None) -> Path:
    """Write `task`'s repository at its base commit into `dest` (which must not exist)."""
    source = task.repo.github or task.repo.url
    if source is None:
        return materialize(task, dest)
    from repofix.workspace import WorkspaceError
    from repofix.workspace.acquire import acquire_into

    try:
        found = acquire_into(source, dest, rev=task.base_commit, mirror=mirror)
    except WorkspaceError as error:
        shutil.rmtree(dest, ignore_errors=True)
        raise TasksError(f"task {task.id!r}: cannot get its repository {source}: {error}") from None
    done = subprocess.run(["git", "-C", str(dest), "checkout", "--quiet", "--detach", found.base],
                          capture_output=True, text=True)
    if done.returncode != 0:
        shutil.rmtree(dest, ignore_errors=True)
        raise TasksError(f"task {task.id!r}: cannot check out {found.base} of {source}: {done.stderr.strip()}")
    return dest
