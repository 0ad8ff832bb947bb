"""A task's repository at its base commit, as a folder on the host: inline files and local
folders through `repofix.tasks.materialize`, remote ones (`github`, `url`) through the workspace
room's acquisition, from a mirror folder when given (offline hosts: `--mirror DIR`).

A mirror folder holds clones, working or bare, in any of these layouts: `owner/name[.git]`,
`owner+name` or `owner__name` (a clone, or a folder holding one, e.g. `owner+name/repo` as the
search tool's fetch writes it), `name[.git]`; or DIR is itself the one clone (a one-repository set).
From a mirror, a task's checkout holds its base commit alone (a depth-1 fetch), not the history."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from repofix.gitsafe import argv, git_env
from repofix.tasks import Task, TasksError, materialize
from repofix.workspace import WorkspaceError
from repofix.workspace.acquire import acquire_into
from repofix.workspace.errors import GitError
from repofix.workspace.git import git, git_ok, neutralize_attributes

_FULL_HASH = re.compile(r"[0-9a-f]{40}")


def checkout(task: Task, dest: Path, *, mirror: Path | None = None) -> Path:
    """Write `task`'s repository at its base commit into `dest` (which must not exist)."""
    source = task.repo.github or task.repo.url
    if source is None:
        return materialize(task, dest)
    if mirror is not None and task.repo.github is not None and task.base_commit:
        clone = find_clone(mirror, *task.repo.github.split("/"))
        # SWE-bench rows' images are built at their environment_setup_commit: fetched alongside.
        setup = task.extra.get("environment_setup_commit")
        wanted = [
            task.base_commit,
            *([setup] if isinstance(setup, str) and setup != task.base_commit else []),
        ]
        if clone is not None and _one_commit(clone, wanted, dest):
            return dest
    with tempfile.TemporaryDirectory(prefix="repofix-mirror-") as view:
        try:
            found = acquire_into(
                source, dest, rev=task.base_commit, mirror=_mirror_view(mirror, task, Path(view))
            )
        except WorkspaceError as error:
            shutil.rmtree(dest, ignore_errors=True)
            raise TasksError(f"task {task.id!r}: cannot get its repository {source}: {error}") from None
    done = subprocess.run(
        argv(dest, ["checkout", "--quiet", "--detach", found.base, "--"]),
        capture_output=True,
        text=True,
        env=git_env(),
    )
    if done.returncode != 0:
        shutil.rmtree(dest, ignore_errors=True)
        raise TasksError(
            f"task {task.id!r}: cannot check out {found.base} of {source}: {done.stderr.strip()}"
        )
    return dest


def _one_commit(clone: Path, commits: list[str], dest: Path) -> bool:
    """`dest` as a clone of `clone` holding `commits` alone (depth 1), the first checked out: the
    tree is copied into every sandbox, and a full history (35-150 MB for the SWE-bench
    repositories) cost seconds per task to copy for tests that never read it. False, with `dest`
    removed, when the commits cannot be had that way (not full hashes, not in the clone,
    submodules): the caller then clones in full."""
    commit = commits[0]
    if not all(_FULL_HASH.fullmatch(c) for c in commits):
        return False
    try:
        git(None, "init", "--quiet", "--", str(dest))
        neutralize_attributes(dest)
        # origin: where an image build fetches the history back from (environments._at_setup_commit)
        git(dest, "remote", "add", "origin", clone.resolve().as_uri())
        fetched = git_ok(dest, "fetch", "--quiet", "--depth", "1", "--no-tags", "origin", *commits)
        if not fetched or git_ok(dest, "cat-file", "-e", f"{commit}:.gitmodules"):
            shutil.rmtree(dest, ignore_errors=True)
            return False
        git(dest, "checkout", "--quiet", "--detach", commit, "--")
    except (GitError, OSError):
        shutil.rmtree(dest, ignore_errors=True)
        return False
    return True


def find_clone(mirror: Path, owner: str, name: str) -> Path | None:
    """The clone of owner/name in `mirror`, in any of the layouts above."""
    for folder in (
        mirror / owner / name,
        mirror / owner / f"{name}.git",
        mirror / f"{owner}+{name}",
        mirror / f"{owner}__{name}",
        mirror / name,
        mirror / f"{name}.git",
    ):
        if _is_repository(folder):
            return folder
    for holder in (mirror / f"{owner}+{name}", mirror / f"{owner}__{name}"):  # a folder holding the clone
        inside = [f for f in sorted(holder.iterdir()) if _is_repository(f)] if holder.is_dir() else []
        if len(inside) == 1:
            return inside[0]
    return mirror if _is_repository(mirror) else None


def _is_repository(folder: Path) -> bool:
    """A working clone (with .git) or a bare repository."""
    if not folder.is_dir():
        return False
    return (folder / ".git").exists() or all((folder / part).exists() for part in ("HEAD", "objects", "refs"))


def _mirror_view(mirror: Path | None, task: Task, view: Path) -> Path | None:
    """`mirror` as the workspace room reads it (owner/name): a symlink to the clone found."""
    if mirror is None or task.repo.github is None:
        return mirror
    owner, name = task.repo.github.split("/")
    found = find_clone(mirror, owner, name)
    if found is None:
        return mirror  # acquisition says what it looked for
    (view / owner).mkdir()
    (view / owner / name).symlink_to(found.resolve(), target_is_directory=True)
    return view
