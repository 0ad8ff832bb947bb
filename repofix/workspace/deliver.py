"""Delivering a run's result: a branch `repofix/<slug>` in the user's repository, a patch file and a JSON
report in the run folder; or, on request, the change applied to the working tree (and undone again)."""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from repofix.runs.folder import repofix_home, slug
from repofix.runs.state import read_json, write_json_atomic
from repofix.workspace.errors import ApplyRefused, GitError, WorkspaceError
from repofix.workspace.git import IDENTITY, git, git_ok, read_blobs
from repofix.workspace.store import blob_id
from repofix.workspace.workspace import Workspace


@dataclass(frozen=True)
class Delivery:
    run_id: str
    checkpoint: int
    patch: str  # path of the .patch file
    report: str  # path of the JSON report
    branch: str | None  # the new branch in the user's repository (None for a plain folder)
    commit: str | None
    includes_uncommitted: bool  # the commit also carries the user's uncommitted changes (they overlapped)
    files: list[str]


def slugify(text: str, limit: int = 40) -> str:
    return slug(text, limit) or "change"


def _free_branch(repo: Path, name: str) -> str:
    candidate, i = name, 2
    while git_ok(repo, "show-ref", "--verify", "--quiet", f"refs/heads/{candidate}"):
        candidate, i = f"{name}-{i}", i + 1
    return candidate


def _commit_for_user(ws: Workspace, best_commit: str, message: str) -> tuple[str, bool]:
    """A commit on the user's HEAD holding only the run's change (plus their uncommitted work only if
    the run's change cannot be separated from it)."""
    src, repo = ws.source, ws.folder.repo
    tree = git(repo, "rev-parse", f"{best_commit}^{{tree}}").decode().strip()
    mixed = False
    if src.dirty and src.head:
        with tempfile.TemporaryDirectory(prefix="repofix-index-") as tmp:
            env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
            git(repo, "read-tree", src.head, env=env)
            patch = git(repo, "diff", "--binary", "--full-index", "--no-ext-diff", "--no-textconv", src.base, best_commit)
            try:
                git(repo, "apply", "--cached", "--allow-empty", env=env, input=patch)
                tree = git(repo, "write-tree", env=env).decode().strip()
            except GitError:
                mixed = True
    parents = ["-p", src.head] if src.head else []
    commit = git(repo, "commit-tree", tree, *parents, input=message.encode(), env=IDENTITY).decode().strip()
    return commit, mixed


def deliver(ws: Workspace, n: int | None = None, *, task: str, summary: str = "", status: str = "resolved",
            make_branch: bool = True, report_extra: dict[str, Any] | None = None) -> Delivery:
    """Write the patch and report for checkpoint `n` (default: the latest); with `make_branch`, also
    add one commit on a new branch `repofix/<slug>` in the user's repository (nothing else changes there)."""
    best = ws.current() if n is None else ws.store.get(n)
    src = ws.source
    patch_text = ws.store.diff(src.base, best.commit)
    partial = ws.folder.patch_file.with_suffix(".patch.tmp")
    partial.write_bytes(patch_text.encode("utf-8", "surrogateescape"))
    os.replace(partial, ws.folder.patch_file)  # a reader never sees half a patch
    files = sorted({row[0] for row in _rows(ws, best.commit)})
    branch = commit = None
    mixed = False
    if make_branch and src.user_repo and files:
        title = task.strip().splitlines()[0][:72] if task.strip() else "repofix change"
        message = f"{title}\n\n{summary.strip()}\n\nRepofix-Run: {ws.run_id}\n" if summary.strip() else \
            f"{title}\n\nRepofix-Run: {ws.run_id}\n"
        commit, mixed = _commit_for_user(ws, best.commit, message)
        branch = _free_branch(Path(src.user_repo), f"repofix/{slugify(task)}")
        git(ws.folder.repo, "update-ref", f"refs/repofix-deliver/{ws.run_id}", commit)
        git(src.user_repo, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", str(ws.folder.repo),
            f"refs/repofix-deliver/{ws.run_id}:refs/heads/{branch}")
    delivery = Delivery(ws.run_id, best.n, str(ws.folder.patch_file), str(ws.folder.report_file), branch, commit,
                        mixed, files)
    report = {**asdict(delivery), "task": task, "summary": summary, "status": status, "source": asdict(src),
              "checkpoint": asdict(best), "delivered": time.time(), **(report_extra or {})}
    write_json_atomic(ws.folder.report_file, report)
    ws.folder.update_state(status=status, delivered=asdict(delivery))
    return delivery


def _rows(ws: Workspace, commit: str):
    from repofix.workspace.git import diff_tree

    return diff_tree(ws.folder.repo, ws.source.base, commit)


def _on_disk(path: Path) -> tuple[str | None, int | None]:
    """(blob id, git mode) of a file in the user's tree, (None, None) when absent."""
    if path.is_symlink():
        return blob_id(os.fsencode(os.readlink(path))), 0o120000
    if not path.is_file():
        return None, None
    return blob_id(path.read_bytes()), 0o100755 if os.stat(path).st_mode & 0o111 else 0o100644


def _write(path: Path, data: bytes | None, mode: int | None) -> None:
    if data is None:
        if path.is_symlink() or path.exists():
            path.unlink()
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_symlink() or path.exists():
        path.unlink()
    if mode == 0o120000:
        os.symlink(os.fsdecode(data), path)
        return
    tmp = path.with_name(f".{path.name}.repofix-tmp")
    tmp.write_bytes(data)
    os.chmod(tmp, 0o755 if mode == 0o100755 else 0o644)
    os.replace(tmp, path)


def apply_to_worktree(ws: Workspace, n: int | None = None, home: Path | str | None = None) -> list[str]:
    """Apply the run's change to the user's working tree. Refuses (changing nothing) when a file it
    would write differs from what the run started from, so uncommitted work is never overwritten."""
    best = ws.current() if n is None else ws.store.get(n)
    root = Path(ws.source.user_repo or ws.source.location)
    rows = _rows(ws, best.commit)
    conflicts = []
    for path, old_mode, _new_mode, old_oid, _new_oid in rows:
        expected = (None, None) if old_mode == "000000" else (old_oid, int(old_mode, 8))
        if _on_disk(root / path) != expected:
            conflicts.append(path)
    real_root = root.resolve()
    escaping = [p for p, *_ in rows if not (root / p).parent.resolve().is_relative_to(real_root)]
    if escaping:  # a symlinked folder in the working tree would send the write elsewhere
        raise ApplyRefused(f"--apply would write outside {root} through a symlink: {', '.join(escaping[:10])}")
    if conflicts:
        raise ApplyRefused(f"--apply would overwrite changes you made since the run started: "
                           f"{', '.join(conflicts[:10])}; commit or stash them, or use the branch/patch instead")
    blobs = read_blobs(ws.folder.repo, [r[4] for r in rows if r[2] != "000000"])
    record = []
    for path, old_mode, new_mode, old_oid, new_oid in rows:
        _write(root / path, blobs.get(new_oid), int(new_mode, 8) if new_mode != "000000" else None)
        record.append({"path": path, "before": None if old_mode == "000000" else [old_oid, int(old_mode, 8)],
                       "after": None if new_mode == "000000" else [new_oid, int(new_mode, 8)]})
    write_json_atomic(ws.folder.applied_file, {"root": str(root), "files": record, "checkpoint": best.n})
    write_json_atomic(repofix_home(home) / "last-apply.json", {"run_id": ws.run_id, "root": str(root)})
    ws.folder.update_state(applied=True)
    return [r["path"] for r in record]


def undo_apply(home: Path | str | None = None) -> tuple[str, list[str]]:
    """Reverse the last `--apply`, only if none of the files it wrote changed since. Returns (run id, files)."""
    pointer = repofix_home(home) / "last-apply.json"
    last = read_json(pointer)
    if not last:
        raise WorkspaceError("nothing to undo: no `--apply` was recorded")
    ws = Workspace.open(last["run_id"], home)
    applied = read_json(ws.folder.applied_file)
    if not applied:
        raise WorkspaceError(f"run {ws.run_id} has no applied change to undo")
    root = Path(applied["root"])
    changed = [f["path"] for f in applied["files"]
               if _on_disk(root / f["path"]) != (tuple(f["after"]) if f["after"] else (None, None))]
    if changed:
        raise ApplyRefused(f"cannot undo: these files changed since the apply: {', '.join(changed[:10])}")
    blobs = read_blobs(ws.folder.repo, [f["before"][0] for f in applied["files"] if f["before"]])
    for f in applied["files"]:
        before = f["before"]
        _write(root / f["path"], blobs[before[0]] if before else None, before[1] if before else None)
    ws.folder.applied_file.unlink()
    pointer.unlink()
    ws.folder.update_state(applied=False)
    return ws.run_id, [f["path"] for f in applied["files"]]
