"""Build the tree the tests run on, on the host, the way SWE-bench's harness does in its
container: base commit -> candidate patch -> restore the files the test patch touches (and the
task's protected files) -> test patch."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from repofix.gitsafe import argv as git_argv
from repofix.gitsafe import git_env
from repofix.tasks import Task
from repofix.tasks.checks import diff_paths


class PatchError(Exception):
    """A patch does not apply; the message carries git's (and patch's) explanation."""


def _git_env(tree: Path) -> dict[str, str]:
    # Never let git climb out of the tree into an enclosing repository (a tree materialized
    # without .git under, say, a checkout would otherwise resolve paths against that one).
    return git_env({"GIT_CEILING_DIRECTORIES": str(tree.parent.resolve())})


def apply_patch(tree: Path, text: str) -> str:
    """Apply a unified diff to `tree`; return which tool applied it.

    Like SWE-bench: `git apply` first, then GNU patch with fuzz 5 for diffs whose context drifted.
    Raises PatchError with both tools' messages when neither applies it."""
    if not text.endswith("\n"):
        text += "\n"  # a diff cut at its last line is a common model output; git rejects it
    with tempfile.NamedTemporaryFile("w", suffix=".diff", delete=False, encoding="utf-8") as handle:
        handle.write(text)
        diff = handle.name
    try:
        git = subprocess.run(
            git_argv(None, ["apply", "--whitespace=nowarn", "-p1", "--", diff]),
            cwd=tree,
            capture_output=True,
            text=True,
            env=_git_env(tree),
        )
        if git.returncode == 0:
            return "git apply"
        if shutil.which("patch") is None:
            raise PatchError(f"git apply: {git.stderr.strip()}")
        # --dry-run first: a partly applied patch would leave the tree in between.
        argv = [
            "patch",
            "--batch",
            "--fuzz=5",
            "-p1",
            "--no-backup-if-mismatch",
            "--reject-file=-",
            "-i",
            diff,
        ]
        dry = subprocess.run([*argv, "--dry-run"], cwd=tree, capture_output=True, text=True)
        if dry.returncode != 0:
            raise PatchError(f"git apply: {git.stderr.strip()}\npatch --fuzz=5: {dry.stdout.strip()}")
        _refuse_git_dir(_patched_files(dry.stdout))
        with _git_dir_aside(tree):
            done = subprocess.run(argv, cwd=tree, capture_output=True, text=True)
        if done.returncode != 0:
            raise PatchError(f"patch --fuzz=5: {done.stdout.strip()} {done.stderr.strip()}")
        return "patch --fuzz=5"
    finally:
        os.unlink(diff)


# git apply refuses paths inside .git; GNU patch does not, and the host runs git on this tree
# afterwards: a patch that wrote .git/config (a filter, a pager, an external diff) would have the
# host run what the model or the predictions file chose.
def _patched_files(dry_run_output: str) -> list[str]:
    prefix = "checking file "
    return [line[len(prefix) :] for line in dry_run_output.splitlines() if line.startswith(prefix)]


def _refuse_git_dir(names: list[str]) -> None:
    for name in names:
        if ".git" in (part.lower() for part in Path(name).parts):
            raise PatchError(f"the patch writes inside .git ({name!r}): refused")


@contextmanager
def _git_dir_aside(tree: Path) -> Iterator[None]:
    """Move the tree's .git out of reach while GNU patch runs, whatever file names it read; a .git
    the patch made anyway is removed and refused."""
    git_dir = tree / ".git"
    with tempfile.TemporaryDirectory(prefix="repofix-gitdir-", dir=tree.parent) as holder:
        kept = Path(holder) / "git"
        had = git_dir.exists() or git_dir.is_symlink()
        if had:
            git_dir.rename(kept)
        try:
            yield
        finally:
            made = git_dir.exists() or git_dir.is_symlink()
            if made:
                if git_dir.is_dir() and not git_dir.is_symlink():
                    shutil.rmtree(git_dir)
                else:
                    git_dir.unlink()
            if had:
                kept.rename(git_dir)
    if made:
        raise PatchError("the patch writes inside .git: refused")


def restore(tree: Path, base: Path, paths: list[str]) -> list[str]:
    """Put `paths` back as they are in `base` (deleting the ones `base` lacks); return those changed."""
    changed = []
    for name in paths:
        original, current = base / name, tree / name
        if not _inside(tree, current):
            continue  # diff_paths never yields these; belt and braces for symlinked parents
        if original.is_file() or original.is_symlink():
            if current.is_dir() and not current.is_symlink():
                shutil.rmtree(current)
            elif current.exists() or current.is_symlink():
                if _same(original, current):
                    continue
                current.unlink()
            current.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(original, current, follow_symlinks=False)
            changed.append(name)
        elif current.exists() or current.is_symlink():
            if current.is_dir() and not current.is_symlink():
                shutil.rmtree(current)
            else:
                current.unlink()
            changed.append(name)
    return changed


def save_files(tree: Path, dest: Path, paths: list[str]) -> None:
    """Copy `paths` of `tree` (those that exist) into `dest`, for `restore(tree, dest, paths)`."""
    for name in paths:
        original = tree / name
        if not _inside(tree, original):
            continue  # a symlinked parent: never read through it (restore skips these too)
        if original.is_file() or original.is_symlink():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(original, dest / name, follow_symlinks=False)


def _inside(root: Path, path: Path) -> bool:
    try:
        path.parent.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def _same(a: Path, b: Path) -> bool:
    if a.is_symlink() or b.is_symlink():
        return a.is_symlink() and b.is_symlink() and os.readlink(a) == os.readlink(b)
    return a.read_bytes() == b.read_bytes()


def test_files(task: Task) -> list[str]:
    """Files graders put back to their base version before the test patch: the ones the test
    patch touches, and the task's protected files."""
    paths = diff_paths(task.test_patch) if task.test_patch else []
    return list(dict.fromkeys([*paths, *task.protected_files]))


test_files.__test__ = False  # type: ignore[attr-defined]  # not a pytest test
