"""Checks a valid-looking Task must also pass: patches are diffs, test lists make sense,
the repository folder and base commit exist. Each problem is (field, message)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

from repofix.gitsafe import argv, git_env
from repofix.tasks.model import Task

Problem = tuple[str, str]


def diff_problem(text: str) -> str | None:
    """Why `text` is not a usable unified diff, or None when it is one."""
    try:
        patch_set = PatchSet(text)
    except UnidiffParseError as error:
        return f"does not parse as a unified diff: {error}"
    if len(patch_set) == 0:
        return "does not contain a unified diff (no '--- a/...' / '+++ b/...' file headers found)"
    return None


def diff_paths(text: str) -> list[str]:
    """The repository paths a diff touches (source and target names, without a/ b/ prefixes)."""
    paths: list[str] = []
    for patched in PatchSet(text):
        for name in (patched.source_file, patched.target_file):
            if name and name != "/dev/null":
                stripped = name[2:] if name[:2] in ("a/", "b/") else name
                if stripped not in paths:
                    paths.append(stripped)
    return paths


def task_problems(task: Task, *, check_git: bool = True) -> list[Problem]:
    problems: list[Problem] = []
    for field in ("test_patch", "patch"):
        text = getattr(task, field)
        if text is not None and (why := diff_problem(text)):
            problems.append((field, why))
    problems += _test_list_problems(task)
    if task.repo.path is not None:
        problems += _path_problems(Path(task.repo.path), task.base_commit, check_git)
    if task.repo.files is not None:
        for name in task.protected_files:
            if name not in task.repo.files:
                problems.append(("protected_files", f"{name!r} is not one of repo.files"))
    return problems


def _test_list_problems(task: Task) -> list[Problem]:
    problems: list[Problem] = []
    if not task.FAIL_TO_PASS:
        problems.append(("FAIL_TO_PASS", "must name at least one test that the fix makes pass"))
    for field in ("FAIL_TO_PASS", "PASS_TO_PASS"):
        items = getattr(task, field)
        repeated = sorted({item for item in items if items.count(item) > 1})
        if repeated:
            problems.append((field, f"lists {', '.join(repeated)} more than once"))
    both = sorted(set(task.FAIL_TO_PASS) & set(task.PASS_TO_PASS))
    if both:
        problems.append(("PASS_TO_PASS", f"also in FAIL_TO_PASS: {', '.join(both)}"))
    return problems


def _path_problems(path: Path, base_commit: str | None, check_git: bool) -> list[Problem]:
    if not path.is_dir():
        return [("repo.path", f"folder {str(path)!r} does not exist")]
    if base_commit is None or not check_git:
        return []
    # The folder itself must be the top of a git repository: a plain folder inside another
    # repository (such as task_specs/ inside repofix) would otherwise borrow that one's commits.
    top = _git(path, "rev-parse", "--show-toplevel")
    if top is None or Path(top).resolve() != path.resolve():
        return [("base_commit", f"is set, but {str(path)!r} is not the top folder of a git repository")]
    if _git(path, "rev-parse", "--verify", "--quiet", f"{base_commit}^{{commit}}") is None:
        return [("base_commit", f"{base_commit!r} is not a commit of the git repository {str(path)!r}")]
    return []


def _git(path: Path, *args: str) -> str | None:
    done = subprocess.run(argv(path, args), capture_output=True, text=True, env=git_env())
    return done.stdout.strip() if done.returncode == 0 else None
