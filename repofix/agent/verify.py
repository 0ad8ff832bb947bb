"""The verdict, decided where the model cannot reach.

The checkpoint that would be delivered is tested in a fresh sandbox of the same backend that no
model command ever ran in: it starts from the run's starting tree with the user's setup commands
(run on the user's own files, not the model's), then gets the checkpoint's changes written over it,
except the test infrastructure (`repofix.testing.infra`), which stays as in the reference tree: the
baseline, plus the red tests repofix accepted for `implement`. The tests run with the sandbox's
starting environment, and their report is read from a new folder in a sandbox where no process of
the model's exists. The model's version of its sandbox, its shell variables, its background
processes and anything it left in /tmp or the home folder play no part."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path

from repofix.agent.progress import Progress
from repofix.config import Settings
from repofix.sandboxes import Limits, open_sandbox
from repofix.sandboxes.cleanup import owned_tempdir
from repofix.testing import TestRun, Verdict, run_tests
from repofix.testing.infra import (
    has_sections,
    is_protected,
    module_name,
    pytest_settings,
    shadows_runner,
    splice,
)
from repofix.workspace import Workspace
from repofix.workspace.git import diff_tree, git, read_blobs
from repofix.workspace.restore import _write_incremental
from repofix.workspace.store import FileEntry


@dataclass
class VerificationTree:
    files: dict[str, FileEntry | None] = field(default_factory=dict)  # written over the starting tree
    not_counted: list[str] = field(default_factory=list)  # test infrastructure the model changed


@dataclass
class Verification:
    verdict: Verdict
    run: TestRun
    not_counted: list[str]

    @property
    def note(self) -> str:
        if not self.not_counted:
            return ""
        return (
            "Changes to test infrastructure were not used for the verdict (the user's versions were): "
            + ", ".join(self.not_counted)
        )


def entries_at(repo: Path, commit: str, paths: set[str]) -> dict[str, FileEntry]:
    """The files among `paths` that exist in `commit` (submodules left out)."""
    if not paths:
        return {}
    out = git(repo, "--literal-pathspecs", "ls-tree", "-r", "-z", commit, "--", *sorted(paths))
    rows = []
    for row in out.split(b"\0"):
        if row:
            meta, name = row.split(b"\t", 1)
            mode, kind, oid = meta.decode().split()
            if kind == "blob":
                rows.append((name.decode("utf-8", "surrogateescape"), int(mode, 8), oid))
    blobs = read_blobs(repo, [oid for _, _, oid in rows])
    return {path: FileEntry(mode, blobs[oid]) for path, mode, oid in rows if path in paths}


def verification_tree(workspace: Workspace, n: int, reference: int = 0) -> VerificationTree:
    """What to write over the starting tree (checkpoint 0) to get checkpoint `n` with the test
    infrastructure of checkpoint `reference`."""
    repo, store = workspace.folder.repo, workspace.store
    start, ref, candidate = store.get(0).commit, store.get(reference).commit, store.get(n).commit
    paths = {row[0] for row in diff_tree(repo, start, candidate)}
    if ref != start:
        paths |= {row[0] for row in diff_tree(repo, start, ref)}
    at_start, at_ref, at_candidate = (entries_at(repo, c, paths) for c in (start, ref, candidate))
    packages = _packages(repo, candidate, paths)
    tree = VerificationTree()
    for path in sorted(paths):
        wanted, ours = at_candidate.get(path), at_ref.get(path)
        # a module the reference lacks that pytest itself would import in place of its own: left out
        if is_protected(path) or (ours is None and shadows_runner(path, packages)):
            target = ours
        elif has_sections(path) and pytest_settings(path, wanted.data if wanted else None) != pytest_settings(
            path, ours.data if ours else None
        ):
            target = (
                FileEntry(wanted.mode, splice(path, wanted.data, ours.data if ours else None))
                if wanted
                else ours
            )
        else:
            target = wanted
        if target != wanted:
            tree.not_counted.append(path)
        if target != at_start.get(path):
            tree.files[path] = target
    return tree


def _packages(repo: Path, commit: str, paths: set[str]) -> set[str]:
    """The folders of `paths`' modules that are regular packages (hold an `__init__.py`) in `commit`."""
    folders = {found[0] for found in map(module_name, paths) if found and found[0]}
    inits = entries_at(repo, commit, {f"{folder}/__init__.py" for folder in folders})
    return {path.rsplit("/", 1)[0] for path in inits}


def verify_checkpoint(
    settings: Settings, workspace: Workspace, progress: Progress, n: int, backend: str, reference: int = 0
) -> Verification:
    """Run the full suite on checkpoint `n` in a fresh sandbox and judge it with the done rule."""
    plan = verification_tree(workspace, n, reference)
    with owned_tempdir("verify-") as tmp:
        start = workspace.export(Path(tmp) / "tree", 0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the run already warned about --sandbox none
            limits = Limits(
                timeout=settings.command_timeout, **settings.limits.given()
            )  # as the run's sandbox
            box = open_sandbox(
                start,
                backend=backend,
                limits=limits,
                setup=settings.setup,
                image=settings.image,
                python=settings.python,
            )
    with box:
        _write_incremental(box, plan.files)
        run = run_tests(
            box,
            progress.command or settings.test_cmd,
            timeout=settings.test_timeout,
            log_dir=workspace.folder.root / "logs",
        )
    return Verification(progress.verdict(run), run, plan.not_counted)
