"""Delivering a run's result: a branch `repofix/<slug>` in the user's repository, a patch file and a JSON
report in the run folder; or, on request, the change applied to the working tree (and undone again)."""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from repofix.runs.folder import slug
from repofix.runs.state import write_json_atomic
from repofix.workspace.apply import apply_to_worktree, undo_apply  # noqa: F401  (their old home)
from repofix.workspace.errors import GitError
from repofix.workspace.git import IDENTITY, diff_tree, git, git_ok
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


def _own_branch(repo: Path, run_id: str, hint: str | None) -> tuple[str, str] | None:
    """(branch, tip) of the branch this run delivered to before (a resumed delivery, a `continue`): its tip
    is a commit of this run (the Repofix-Run trailer). A branch the user has moved on from is not ours."""
    trailer = f"Repofix-Run: {run_id}"
    listing = git(repo, "for-each-ref", "--format=%(refname)%00%(objectname)%00%(contents)%00",
                  "refs/heads/repofix/").decode("utf-8", "replace")
    fields = listing.split("\0")
    found = [(ref.strip().removeprefix("refs/heads/"), tip) for ref, tip, body in zip(fields[0::3], fields[1::3],
                                                                                        fields[2::3], strict=False)
             if trailer in body.splitlines()]
    found.sort(key=lambda item: item[0] != hint)  # the recorded branch first
    return found[0] if found else None


def _reserve_branch(repo: Path, name: str, commit: str) -> str:
    """Create refs/heads/<name> (or <name>-2, -3...) at `commit`. git's `create` fails when the ref exists,
    under git's own ref lock, so runs delivering at the same time never get the same branch."""
    candidate, i = name, 2
    while True:
        try:
            git(repo, "update-ref", "--stdin", input=f"create refs/heads/{candidate} {commit}\n".encode())
            return candidate
        except GitError:
            if not git_ok(repo, "show-ref", "--verify", "--quiet", f"refs/heads/{candidate}") and \
                    not git_ok(repo, "check-ref-format", f"refs/heads/{candidate}"):
                raise
            if i > 1000:
                raise
        candidate, i = f"{name}-{i}", i + 1


def _commit_for_user(ws: Workspace, best_commit: str, message: str, parent: str | None = None) -> tuple[str, bool]:
    """A commit on the user's HEAD (or on `parent`, this run's earlier delivery) holding only the run's change
    (plus their uncommitted work only if the run's change cannot be separated from it)."""
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
    if parent is not None and git(repo, "rev-parse", f"{parent}^{{tree}}").decode().strip() == tree:
        return parent, mixed  # delivered already (a resumed delivery): the same commit, not a second one
    parent = parent or src.head
    parents = ["-p", parent] if parent else []
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
    try:
        partial.write_bytes(patch_text.encode("utf-8", "surrogateescape"))
        os.replace(partial, ws.folder.patch_file)  # a reader never sees half a patch
    finally:
        partial.unlink(missing_ok=True)
    files = sorted({row[0] for row in _rows(ws, best.commit)})
    branch = commit = None
    mixed = False
    if make_branch and src.user_repo and files:
        user = Path(src.user_repo)
        title = task.strip().splitlines()[0][:72] if task.strip() else "repofix change"
        message = f"{title}\n\n{summary.strip()}\n\nRepofix-Run: {ws.run_id}\n" if summary.strip() else \
            f"{title}\n\nRepofix-Run: {ws.run_id}\n"
        earlier = _own_branch(user, ws.run_id, (ws.folder.read_state().get("delivered") or {}).get("branch"))
        commit, mixed = _commit_for_user(ws, best.commit, message, parent=earlier[1] if earlier else None)
        git(ws.folder.repo, "update-ref", f"refs/repofix-deliver/{ws.run_id}", commit)
        # The objects only (no ref of the user's changes here), then one atomic ref update.
        git(user, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--", str(ws.folder.repo),
            f"refs/repofix-deliver/{ws.run_id}")
        if earlier is None:
            branch = _reserve_branch(user, f"repofix/{slugify(task)}", commit)
        else:  # the same branch again; the expected old value makes a concurrent change fail, not vanish
            branch = earlier[0]
            if commit != earlier[1]:
                git(user, "update-ref", f"refs/heads/{branch}", commit, earlier[1])
    delivery = Delivery(ws.run_id, best.n, str(ws.folder.patch_file), str(ws.folder.report_file), branch, commit,
                        mixed, files)
    report = {**asdict(delivery), "task": task, "summary": summary, "status": status, "source": asdict(src),
              "checkpoint": asdict(best), "delivered": time.time(), **(report_extra or {})}
    write_json_atomic(ws.folder.report_file, report)
    ws.folder.update_state(status=status, delivered=asdict(delivery))
    return delivery


def _rows(ws: Workspace, commit: str):
    return diff_tree(ws.folder.repo, ws.source.base, commit)

