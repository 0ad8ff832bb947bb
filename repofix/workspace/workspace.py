"""One run's workspace on the host: the clone, its checkpoints, and the traffic with the sandbox."""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from repofix.runs.folder import RunFolder, create_run, open_run
from repofix.safetext import visible_path
from repofix.sandboxes.base import Sandbox
from repofix.workspace.acquire import Source, acquire_into
from repofix.workspace.git import git
from repofix.workspace.ignore import ignored, reset_ignore_files, update_ignore_files
from repofix.workspace.paths import path_problem
from repofix.workspace.restore import RestoreResult
from repofix.workspace.restore import restore as restore_checkpoint
from repofix.workspace.store import Checkpoint, CheckpointStore, FileEntry, blob_id, git_mode

DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024


def _skipped(path: str) -> bool:
    """The sandbox's own `.git` at the root: never a change (any other .git is refused, see paths)."""
    return path == ".git" or path.startswith(".git/")


@dataclass
class SyncResult:
    checkpoint: Checkpoint | None  # None: nothing changed
    written: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    refused: list[str] = field(
        default_factory=list
    )  # messages: files refused (size, name), kept at their old state

    @property
    def note(self) -> str:
        return "\n".join(self.refused)


class Workspace:
    """Open one with `Workspace.create(source)` (a new run) or `Workspace.open(run_id)` (resume)."""

    def __init__(
        self, folder: RunFolder, source: Source, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    ) -> None:
        self.folder = folder
        self.source = source
        self.store = CheckpointStore(folder.repo, folder.run_id)
        self.max_file_bytes = max_file_bytes

    # ---- getting one -------------------------------------------------------------------------------
    @classmethod
    def create(
        cls,
        source: str | Path,
        *,
        rev: str | None = None,
        mirror: Path | None = None,
        home: Path | str | None = None,
        run_id: str | None = None,
        label: str = "",
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        local_submodules: bool = False,
    ) -> Workspace:
        """Acquire `source` into a new run folder and make checkpoint 0 (the starting files).
        `local_submodules`: the user allows submodule URLs that are paths on this machine."""
        folder = create_run(home, label=label, run_id=run_id)
        try:
            src = acquire_into(
                source,
                folder.repo,
                rev=rev,
                mirror=mirror,
                local_submodules=local_submodules,
                max_file_bytes=max_file_bytes,
            )
        except BaseException:  # nothing was acquired: leave no run folder or half-made clone behind
            shutil.rmtree(folder.root, ignore_errors=True)
            raise
        git(folder.repo, "update-ref", f"refs/repofix-base/{folder.run_id}", src.base)
        ws = cls(folder, src, max_file_bytes)
        ws.store.commit_tree(f"{src.base}^{{tree}}", parent=src.base, step=0, label="start")
        reset_ignore_files(folder.repo, src.base)
        folder.update_state(
            status="acquired", source=asdict(src), checkpoint=0, max_file_bytes=max_file_bytes
        )
        return ws

    @classmethod
    def open(cls, run_id: str, home: Path | str | None = None) -> Workspace:
        folder = open_run(run_id, home)
        state = folder.read_state()
        if "source" not in state:
            # Stopped (a kill, a crash) while its repository was being copied: nothing ran, nothing to resume.
            raise LookupError(
                f"run {folder.run_id} has no workspace: it stopped while its repository was being "
                f"copied, before anything ran (status {state.get('status')}); start the task again "
                "(`repofix runs prune` removes this run)"
            )
        return cls(folder, Source(**state["source"]), state.get("max_file_bytes", DEFAULT_MAX_FILE_BYTES))

    @property
    def run_id(self) -> str:
        return self.folder.run_id

    def current(self) -> Checkpoint:
        """The latest checkpoint: what the sandbox holds after the last sync or restore."""
        return self.store.latest()

    # ---- files into the sandbox --------------------------------------------------------------------
    def export(self, dest: Path, n: int | None = None, *, with_git: bool = True) -> Path:
        """Write checkpoint `n` (default: the latest) into `dest`, with a small `.git` whose HEAD is the
        run's starting commit, so `git diff` inside the sandbox shows the run's own changes."""
        checkpoint = self.current() if n is None else self.store.get(n)
        self.store.materialize(checkpoint.commit, dest)
        if with_git:
            self.make_git(dest)
        if self.folder.read_state().get("sandbox_git") != with_git:
            self.folder.update_state(sandbox_git=with_git)  # restore recreates .git only if there was one
        return dest

    def make_git(self, dest: Path) -> None:
        """A .git in `dest` holding only the base commit, as the sandbox starts with (restore uses it too)."""
        git(None, "init", "--quiet", str(dest))
        git(
            dest,
            "fetch",
            "--quiet",
            "--no-tags",
            "--depth",
            "1",
            "--",
            str(self.folder.repo),
            f"+refs/repofix-base/{self.run_id}:refs/heads/repofix-base",
        )
        git(dest, "symbolic-ref", "HEAD", "refs/heads/repofix-base")
        git(dest, "read-tree", "HEAD")

    # ---- files out of the sandbox ------------------------------------------------------------------
    def sync(
        self,
        sandbox: Sandbox,
        *,
        step: int | None = None,
        tests: Mapping[str, Any] | None = None,
        label: str = "",
        extra: Mapping[str, Any] | None = None,
        paths: Sequence[str] | None = None,
    ) -> SyncResult:
        """Bring what changed in the sandbox since the last sync into a new checkpoint.
        Reads only the changed files; ignored files and files over the size limit are left out.

        `paths`: the caller knows exactly which files changed (edits written with `write_files`), so
        the sandbox's scan is skipped; modes are kept from the checkpoint. After shell commands, omit it.
        A later full sync sees these files again, finds them checkpointed already, and skips them."""
        result = SyncResult(None)
        contents: dict[str, bytes | None] | None = None
        if paths is None:
            changes = sandbox.changes()
            modified = {p: v for p, v in changes.modified.items() if not _skipped(p)}
            deleted = [p for p in changes.deleted if not _skipped(p)]
            known = self._entries([*modified, *deleted]) if modified or deleted else {}
        else:
            wanted = [p for p in dict.fromkeys(paths) if not _skipped(p)]
            known = self._entries(wanted) if wanted else {}
            contents = sandbox.read_files(wanted) if wanted else {}
            modified = {
                p: (known.get(p, (0o100644, ""))[0], known.get(p, (0, ""))[0] == 0o120000)
                for p in wanted
                if contents.get(p) is not None
            }
            deleted = [p for p in wanted if contents.get(p) is None]
        for path, (mode, is_link) in list(modified.items()):
            problem = path_problem(path, 0o120000 if is_link else mode)
            if problem:
                result.refused.append(
                    f"{visible_path(path)}: refused because {problem}; not checkpointed and never "
                    f"delivered (remove or rename it)"
                )
                del modified[path]
        deleted = [p for p in deleted if p in known]  # a refused name never entered a checkpoint
        untracked = [p for p in modified if p not in known]
        result.ignored = sorted(ignored(self.folder.repo, untracked)) if untracked else []
        for path in result.ignored:  # tracked files stay tracked even when a pattern matches them
            del modified[path]
        if contents is None:
            contents = sandbox.read_files(list(modified)) if modified else {}
        files: dict[str, FileEntry | None] = {}
        for path, (mode, is_link) in modified.items():
            data = contents.get(path)
            if data is None:  # vanished between the scan and the read
                files[path] = None
            elif len(data) > self.max_file_bytes:
                result.refused.append(
                    f"{visible_path(path)}: {len(data) / 2**20:.1f} MiB is over the"
                    f" {self.max_file_bytes / 2**20:.0f} MiB file size limit; not checkpointed, so never"
                    " delivered (delete it, or list it in .gitignore: ignored files are not checkpointed)"
                )
            else:
                files[path] = FileEntry(git_mode(mode, is_link), data)
        for path in deleted:
            files.setdefault(path, None)
        # Leave out what the checkpoint already holds: files our own restore wrote, touched files, and
        # deletions of files that were never checkpointed.
        files = {
            p: e
            for p, e in files.items()
            if (known.get(p) != (e.mode, blob_id(e.data)) if e is not None else p in known)
        }
        if not files:
            return result
        result.written = sorted(p for p, e in files.items() if e is not None)
        result.deleted = sorted(p for p, e in files.items() if e is None)
        result.checkpoint = self.store.commit_files(files, step=step, tests=tests, label=label, extra=extra)
        update_ignore_files(self.folder.repo, files)
        self.folder.update_state(checkpoint=result.checkpoint.n, status="running")
        return result

    def _entries(self, paths: list[str]) -> dict[str, tuple[int, str]]:
        """(mode, blob id) in the latest checkpoint of those `paths` it holds; one `ls-tree`."""
        wanted = set(paths)
        spec = sorted(wanted) if len(wanted) <= 2000 else []  # a huge change: list everything instead
        out = git(
            self.folder.repo, "--literal-pathspecs", "ls-tree", "-r", "-z", self.current().commit, "--", *spec
        )
        entries = {}
        for row in out.split(b"\0"):
            if not row:
                continue
            meta, name = row.split(b"\t", 1)
            path = name.decode("utf-8", "surrogateescape")
            if path in wanted:
                mode, _kind, oid = meta.split()
                entries[path] = (int(mode, 8), oid.decode())
        return entries

    def restore(
        self,
        sandbox: Sandbox | None,
        n: int,
        *,
        step: int | None = None,
        full: bool = False,
        reason: str = "",
        rescue_first: bool = True,
    ) -> RestoreResult:
        """Put checkpoint `n` back (see `repofix.workspace.restore`)."""
        return restore_checkpoint(
            self, sandbox, n, step=step, full=full, reason=reason, rescue_first=rescue_first
        )

    def reset_ignores(self) -> None:
        reset_ignore_files(self.folder.repo, self.current().commit)
