"""Resume bookkeeping: where a run that stopped (crash, kill -9, limit) picks up again. It lives in the
workspace room, beside the checkpoint store it reads.

The checkpoint refs are the truth: a ref exists only once its objects do. state.json may lag one
checkpoint behind (killed between the ref update and the state rename); `resume_point` repairs that."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repofix.runs.owner import me
from repofix.workspace.workspace import Workspace


@dataclass(frozen=True)
class ResumePoint:
    run_id: str
    checkpoint: int  # the latest complete checkpoint: seed the new sandbox with it
    commit: str
    step: int | None  # the step that made it; the loop continues after it
    state: dict[str, Any]
    trajectory: Path  # the agent's record (may not exist yet)


def _drop_partial_objects(objects: Path) -> None:
    """Temporary files of a git process killed mid-write; nothing refers to them."""
    for partial in [*objects.glob("pack/tmp_*"), *objects.glob("??/tmp_obj_*"), *objects.glob("tmp_obj_*")]:
        partial.unlink(missing_ok=True)


def _drop_stale_locks(git_dir: Path) -> None:
    """Lock files of a git process killed mid-write (a ref's while fast-import wrote the next
    checkpoint, the index's, packed-refs'): git refuses to write that ref again while one is there
    ("cannot lock ref ... File exists"). The run is ours (`claim`), so no live writer holds one."""
    named = [git_dir / name for name in ("index.lock", "HEAD.lock", "packed-refs.lock", "config.lock")]
    in_refs = [
        Path(folder, name)
        for folder, _, names in os.walk(git_dir / "refs")  # links to folders are not followed
        for name in names
        if name.endswith(".lock")
    ]
    for lock in [*named, *in_refs]:
        if lock.is_file() and not lock.is_symlink():
            lock.unlink()


def resume_point(run_id: str, home: Path | str | None = None) -> tuple[Workspace, ResumePoint]:
    """Open the run's workspace and say where to continue, changing nothing on disk (a refused resume must
    leave the run as it was; `claim` makes it ours)."""
    ws = Workspace.open(run_id, home)
    latest = ws.store.latest()
    state = ws.folder.read_state()
    steps = [c.step for c in ws.store.list() if c.step is not None]
    point = ResumePoint(
        ws.run_id, latest.n, latest.commit, max(steps) if steps else None, state, ws.folder.trajectory_file
    )
    return ws, point


def claim(ws: Workspace, point: ResumePoint, **changes: Any) -> dict[str, Any]:
    """Make this process the run's owner: drop what a killed writer left half-done, repair a state file
    that lags one checkpoint behind, and mark the run running again."""
    _drop_partial_objects(ws.folder.repo / ".git" / "objects")
    _drop_stale_locks(ws.folder.repo / ".git")
    for partial in ws.folder.root.glob("*.tmp"):  # result.patch.tmp, .state.json.*.tmp of a killed writer
        partial.unlink(missing_ok=True)
    for partial in ws.folder.root.glob(".*.tmp"):
        partial.unlink(missing_ok=True)
    ws.reset_ignores()
    return ws.folder.update_state(
        checkpoint=point.checkpoint, status="running", resumed_from=point.checkpoint, owner=me(), **changes
    )
