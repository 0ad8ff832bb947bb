"""`--apply` and `repofix undo`: the run's change written into the user's working tree, all or nothing.

The undo record is written before the first file, and a failure part way puts back every file
already written (and removes the folders made for them), so the working tree is never left half
applied. Each repository has its own pointer to its last apply: `undo` in one repository never
reverses an apply made in another, nor an older run's apply when the latest one failed."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from repofix.atomic import write_atomic, write_json_atomic
from repofix.runs.folder import repofix_home
from repofix.runs.state import read_json
from repofix.safetext import visible_path
from repofix.workspace.errors import ApplyRefused, GitError, WorkspaceError
from repofix.workspace.git import checkout_top, diff_tree, read_blobs
from repofix.workspace.paths import path_problem
from repofix.workspace.store import blob_id
from repofix.workspace.workspace import Workspace

Change = tuple[str, bytes | None, int | None]  # path, new content (None: delete), git mode


def repo_root(path: Path | str) -> Path:
    """The top of the git checkout holding `path`, else the folder itself (a plain folder); a checkout
    whose config names another working tree is refused (`checkout_top`)."""
    folder = Path(path).expanduser().resolve()
    try:
        top = checkout_top(folder)
    except GitError:
        top = None
    return top or folder


def _pointer(home: Path | str | None, root: Path) -> Path:
    return repofix_home(home) / "applies" / (hashlib.sha256(str(root).encode()).hexdigest()[:20] + ".json")


def _on_disk(path: Path) -> tuple[str | None, int | None]:
    """(blob id, git mode) of a file in the user's tree, (None, None) when absent."""
    if path.is_symlink():
        return blob_id(os.fsencode(os.readlink(path))), 0o120000
    if not path.is_file():
        return None, None
    return blob_id(path.read_bytes()), 0o100755 if os.stat(path).st_mode & 0o111 else 0o100644


def _write(path: Path, data: bytes | None, mode: int | None) -> None:
    if path.is_symlink() or path.exists():
        path.unlink()
    if data is None:
        return
    if mode == 0o120000:
        os.symlink(os.fsdecode(data), path)
        return
    write_atomic(path, data, mode=0o755 if mode == 0o100755 else 0o644)


def _write_all(root: Path, changes: list[Change], undo: list[Change]) -> None:
    """Write `changes` in order; on any failure write back `undo` (same order, the old contents) for
    the ones already touched, remove the folders made on the way, and re-raise."""
    made: list[Path] = []
    done = 0
    try:
        for rel, data, mode in changes:
            target = root / rel
            made += reversed(
                [
                    p
                    for p in [target.parent, *target.parent.parents]
                    if p.is_relative_to(root) and not p.exists()
                ]
            )
            target.parent.mkdir(parents=True, exist_ok=True)
            done += 1  # counted before writing: a failure half way through this file is undone too
            _write(target, data, mode)
    except BaseException:
        for rel, data, mode in reversed(undo[:done]):
            _write(root / rel, data, mode)
        for folder in reversed(made):
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
        raise


def apply_to_worktree(ws: Workspace, n: int | None = None, home: Path | str | None = None) -> list[str]:
    """Apply the run's change to the user's working tree. Refuses (changing nothing) when a file it
    would write differs from what the run started from, so uncommitted work is never overwritten."""
    best = ws.current() if n is None else ws.store.get(n)
    root = Path(ws.source.user_repo or ws.source.location).resolve()
    rows = diff_tree(ws.folder.repo, ws.source.base, best.commit)
    bad = [
        f"{visible_path(p)} ({problem})"
        for p, _o, new_mode, *_ in rows
        if (problem := path_problem(p, int(new_mode, 8) if new_mode != "000000" else None))
    ]
    if bad:
        raise ApplyRefused(f"--apply refuses names git would refuse: {', '.join(bad[:10])}")
    escaping = [p for p, *_ in rows if not (root / p).parent.resolve().is_relative_to(root)]
    if escaping:  # a symlinked folder in the working tree would send the write elsewhere
        raise ApplyRefused(
            f"--apply would write outside {root} through a symlink: {', '.join(escaping[:10])}"
        )
    conflicts = [
        p
        for p, old_mode, _n, old_oid, _o in rows
        if _on_disk(root / p) != ((None, None) if old_mode == "000000" else (old_oid, int(old_mode, 8)))
    ]
    if conflicts:
        raise ApplyRefused(
            f"--apply would overwrite changes you made since the run started: "
            f"{', '.join(conflicts[:10])}; commit or stash them, or use the branch/patch instead"
        )
    blobs = read_blobs(
        ws.folder.repo, [oid for r in rows for mode, oid in ((r[1], r[3]), (r[2], r[4])) if mode != "000000"]
    )
    record: list[dict[str, Any]] = [
        {
            "path": path,
            "before": None if old_mode == "000000" else [old_oid, int(old_mode, 8)],
            "after": None if new_mode == "000000" else [new_oid, int(new_mode, 8)],
        }
        for path, old_mode, new_mode, old_oid, new_oid in rows
    ]
    # The record first: whatever happens next, `undo` knows exactly which files this apply may touch.
    write_json_atomic(
        ws.folder.applied_file,
        {"root": str(root), "files": record, "checkpoint": best.n, "state": "applying"},
    )
    write_json_atomic(_pointer(home, root), {"run_id": ws.run_id, "root": str(root)})
    try:
        _write_all(root, _changes(record, "after", blobs), _changes(record, "before", blobs))
    except OSError as error:
        write_json_atomic(
            ws.folder.applied_file,
            {
                "root": str(root),
                "files": record,
                "checkpoint": best.n,
                "state": "rolled back",
                "error": str(error),
            },
        )
        raise ApplyRefused(
            f"--apply failed part way ({error}); every file it had written was put back, "
            f"so your working tree is as it was; use the branch or patch instead"
        ) from error
    write_json_atomic(
        ws.folder.applied_file, {"root": str(root), "files": record, "checkpoint": best.n, "state": "applied"}
    )
    ws.folder.update_state(applied=True)
    return [r["path"] for r in record]


def _changes(record: list[dict], side: str, blobs: dict[str, bytes]) -> list[Change]:
    return [
        (f["path"], blobs[f[side][0]] if f[side] else None, f[side][1] if f[side] else None) for f in record
    ]


def undo_apply(home: Path | str | None = None, repo: Path | str | None = None) -> tuple[str, list[str]]:
    """Reverse the last `--apply` made in the repository holding `repo` (default: the current folder),
    only if none of the files it wrote changed since. Returns (run id, files)."""
    root = repo_root(repo if repo is not None else Path.cwd())
    pointer = _pointer(home, root)
    last = read_json(pointer)
    if not last or Path(last.get("root", "")) != root:
        raise WorkspaceError(f"nothing to undo in {root}: no `--apply` was recorded for it")
    ws = Workspace.open(last["run_id"], home)
    applied = read_json(ws.folder.applied_file)
    if not applied or Path(applied["root"]) != root:
        raise WorkspaceError(f"nothing to undo in {root}: run {ws.run_id} has no applied change there")
    if applied.get("state", "applied") != "applied":
        raise WorkspaceError(
            f"nothing to undo in {root}: the last --apply (run {ws.run_id}) failed and was "
            f"rolled back; no older apply is reversed"
        )
    changed = [
        f["path"]
        for f in applied["files"]
        if _on_disk(root / f["path"]) != (tuple(f["after"]) if f["after"] else (None, None))
    ]
    if changed:
        raise ApplyRefused(f"cannot undo: these files changed since the apply: {', '.join(changed[:10])}")
    oids = [f[side][0] for f in applied["files"] for side in ("before", "after") if f[side]]
    blobs = read_blobs(ws.folder.repo, oids)
    try:
        _write_all(
            root, _changes(applied["files"], "before", blobs), _changes(applied["files"], "after", blobs)
        )
    except OSError as error:
        raise ApplyRefused(
            f"undo failed part way ({error}); the applied files were put back as they were"
        ) from error
    _remove_empty_folders(root, [f["path"] for f in applied["files"] if not f["before"]])
    ws.folder.applied_file.unlink()
    pointer.unlink()
    ws.folder.update_state(applied=False)
    return ws.run_id, [f["path"] for f in applied["files"]]


def _remove_empty_folders(root: Path, removed: list[str]) -> None:
    """Folders the apply made for new files go again when undo leaves them empty."""
    for rel in removed:
        for folder in (root / rel).parents:
            if (
                folder == root
                or not folder.is_relative_to(root)
                or not folder.is_dir()
                or any(folder.iterdir())
            ):
                break
            folder.rmdir()
