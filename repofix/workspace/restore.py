"""Putting a checkpoint back into the sandbox, even after the sandbox's copy was wrecked.

The sandbox's current files are checkpointed first (the rescue checkpoint), so a restore never
loses anything; then only the files that differ are written. When that is impossible (files or
folders made unreadable, a folder where a file must go), the workspace is emptied and the whole
checkpoint copied in. The restore itself becomes a new checkpoint whose tree is the restored one."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from repofix.sandboxes.base import Sandbox, SandboxError
from repofix.sandboxes.cleanup import owned_tempdir
from repofix.workspace.ignore import is_ignore_file
from repofix.workspace.store import Checkpoint, FileEntry

if TYPE_CHECKING:
    from repofix.workspace.workspace import Workspace

_WIPE = "chmod -R u+rwX . 2>/dev/null; find . -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +"


@dataclass
class RestoreResult:
    checkpoint: Checkpoint  # the new checkpoint recording the restore
    target: Checkpoint  # the checkpoint that was put back
    rescue: Checkpoint | None  # the sandbox's state just before, or None if it could not be read
    undone: list[str] = field(default_factory=list)  # files that changed back
    full: bool = False  # the whole tree was copied in (the sandbox's copy was wrecked)
    note: str = ""  # for the model's history: what was undone and why


def _write_incremental(sandbox: Sandbox, files: dict[str, FileEntry | None]) -> None:
    deletions = {p: None for p, e in files.items() if e is None}
    writes = {p: e.data for p, e in files.items() if e is not None}
    modes = {p: e.mode for p, e in files.items() if e is not None}
    if deletions:
        sandbox.write_files(deletions)
        # Folders emptied by the deletions go too: a file may have to take a folder's place.
        folders = sorted({p.rsplit("/", 1)[0] for p in deletions if "/" in p}, key=len, reverse=True)
        blocking = [p for p in writes if any(d.startswith(p + "/") for d in deletions)]
        if folders or blocking:
            sandbox.run(
                [
                    "sh",
                    "-c",
                    'rmdir -p --ignore-fail-on-non-empty -- "$@" 2>/dev/null; true',
                    "rmdir",
                    *folders,
                ],
                cwd=sandbox.workdir,
                timeout=60,
            )
        if blocking:
            result = sandbox.run(["rm", "-rf", "--", *blocking], cwd=sandbox.workdir, timeout=60)
            if not result.ok:
                raise SandboxError(f"could not clear {', '.join(blocking)}: {result.output[-300:]}")
    if writes:
        sandbox.write_files(writes, modes=modes)  # type: ignore[call-arg]  # backends accept git modes


def _write_full(ws: Workspace, sandbox: Sandbox, target: Checkpoint) -> None:
    result = sandbox.run(["sh", "-c", _WIPE], cwd=sandbox.workdir, timeout=300)
    if not result.ok:
        raise SandboxError(f"could not empty the sandbox's workspace for a restore: {result.output[-500:]}")
    with owned_tempdir("restore-") as tmp:
        tree = Path(tmp) / "tree"
        ws.store.materialize(target.commit, tree)
        sandbox.copy_in(tree)


def _needs_git(sandbox: Sandbox) -> bool:
    try:
        return sandbox.read_files([".git/HEAD"]).get(".git/HEAD") is None
    except (SandboxError, OSError):
        return True


def restore(
    ws: Workspace,
    sandbox: Sandbox | None,
    n: int,
    *,
    step: int | None = None,
    full: bool = False,
    reason: str = "",
    with_git: bool | None = None,
    rescue_first: bool = True,
) -> RestoreResult:
    """Put checkpoint `n` back into `sandbox` (None: only record it, for a run that is not live).
    `rescue_first=False` skips the rescue sync when the caller synced just now (a guard rollback)."""
    target = ws.store.get(n)
    if with_git is None:
        with_git = bool(ws.folder.read_state().get("sandbox_git", True))
    rescue: Checkpoint | None = None
    problems: list[str] = []
    if sandbox is not None and rescue_first:
        try:
            rescue = ws.sync(sandbox, step=step, label=f"rescue before restore of #{target.n}").checkpoint
        except (SandboxError, OSError) as exc:  # unreadable files: the copy is wrecked, restore it whole
            problems.append(f"the sandbox's files could not be read ({exc})")
            full = True
    before = ws.current()
    rescue = rescue or before
    files = dict(ws.store.changed(before.commit, target.commit))
    if sandbox is not None:
        if not full:
            try:
                _write_incremental(sandbox, files)
            except (SandboxError, OSError) as exc:
                problems.append(f"writing files one by one failed ({exc})")
                full = True
        if full:
            _write_full(ws, sandbox, target)
        if with_git and _needs_git(sandbox):
            with tempfile.TemporaryDirectory(prefix="repofix-git-") as tmp:
                ws.make_git(Path(tmp))
                sandbox.copy_in(Path(tmp))
            problems.append("the repository's .git folder was missing and was recreated")
        # No second scan to forget our own writes: the next sync reads them, finds exactly what the
        # checkpoint holds, and leaves them out.
    # The restore checkpoint applies the same files onto the previous one: its tree is the target's.
    checkpoint = ws.store.commit_files(
        files,
        parent=before.commit,
        step=step,
        label=f"restore of #{target.n}",
        tests=target.tests,
        extra={"restored": target.n, "rescue": rescue.n, "reason": reason},
    )
    if full or any(is_ignore_file(p) for p in files):
        ws.reset_ignores()
    ws.folder.update_state(checkpoint=checkpoint.n)
    undone = sorted(files)
    shown = ", ".join(undone[:10]) + (f" and {len(undone) - 10} more" if len(undone) > 10 else "")
    note = (
        f"The workspace was restored to checkpoint {target.n} (after step {target.step})"
        + (f" because {reason}" if reason else "")
        + ". "
        + (f"Undone: {len(undone)} file(s): {shown}. " if undone else "No files differed. ")
        + f"The state before the restore is saved as checkpoint {rescue.n}."
        + (" Note: " + "; ".join(problems) + "." if problems else "")
    )
    return RestoreResult(checkpoint, target, rescue, undone, full, note)
