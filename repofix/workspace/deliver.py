"""Delivering a run's result: a branch `repofix/<slug>` in the user's repository, a patch file and a JSON
report in the run folder; or, on request, the change applied to the working tree (and undone again).
A run that started from uncommitted work delivers it as its own commit below the fix, so the fix commit
holds exactly the run's change (the patch file and the `files` list say the same)."""

from __future__ import annotations

import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from repofix.atomic import write_atomic, write_json_atomic
from repofix.runs.folder import slug
from repofix.workspace.apply import apply_to_worktree, undo_apply  # noqa: F401  (their old home)
from repofix.workspace.errors import GitError
from repofix.workspace.git import IDENTITY, diff_tree, git, git_ok
from repofix.workspace.workspace import Workspace

FLAT_PREFIX = "repofix-"  # the branches' prefix when the user's own branch `repofix` blocks `repofix/`


@dataclass(frozen=True)
class Delivery:
    run_id: str
    checkpoint: int
    patch: str  # path of the .patch file
    report: str  # path of the JSON report
    branch: str | None  # the new branch in the user's repository (None for a plain folder)
    commit: str | None
    includes_uncommitted: bool  # the branch carries the user's uncommitted work: `snapshot`, below the fix
    files: list[str]  # what the fix changed (on top of the snapshot, when there is one)
    snapshot: str | None = None  # the commit of the user's uncommitted work at the start of the run


def slugify(text: str, limit: int = 40) -> str:
    return slug(text, limit) or "change"


def _own_branch(repo: Path, run_id: str, hint: str | None) -> tuple[str, str] | None:
    """(branch, tip) of the branch this run delivered to before (a resumed delivery, a `continue`): its tip
    is a commit of this run (the Repofix-Run trailer). A branch the user has moved on from is not ours."""
    trailer = f"Repofix-Run: {run_id}"
    listing = git(
        repo,
        "for-each-ref",
        "--format=%(refname)%00%(objectname)%00%(contents)%00",
        "refs/heads/repofix/",
        f"refs/heads/{FLAT_PREFIX}*",
    ).decode("utf-8", "replace")
    fields = listing.split("\0")
    found = [
        (ref.strip().removeprefix("refs/heads/"), tip)
        for ref, tip, body in zip(fields[0::3], fields[1::3], fields[2::3], strict=False)
        if trailer in body.splitlines()
    ]
    found.sort(key=lambda item: item[0] != hint)  # the recorded branch first
    return found[0] if found else None


def _branch_prefix(repo: Path) -> str:
    """`repofix/`, unless the user has a branch named `repofix`: git keeps branches as paths, so that one
    blocks every `repofix/<name>`; then the flat `repofix-<name>`."""
    return (
        FLAT_PREFIX if git_ok(repo, "show-ref", "--verify", "--quiet", "refs/heads/repofix") else "repofix/"
    )


def _reserve_branch(repo: Path, name: str, commit: str) -> str:
    """Create refs/heads/<name> (or <name>-2, -3...) at `commit`. git's `create` fails when the ref exists,
    under git's own ref lock, so runs delivering at the same time never get the same branch."""
    candidate, i = name, 2
    while True:
        try:
            git(repo, "update-ref", "--stdin", input=f"create refs/heads/{candidate} {commit}\n".encode())
            return candidate
        except GitError:
            if not git_ok(repo, "show-ref", "--verify", "--quiet", f"refs/heads/{candidate}") and not git_ok(
                repo, "check-ref-format", f"refs/heads/{candidate}"
            ):
                raise
            if i > 1000:
                raise
        candidate, i = f"{name}-{i}", i + 1


SNAPSHOT_TITLE = "repofix: snapshot of uncommitted work at start of run {run_id}"


def _snapshot_commit(ws: Workspace) -> str | None:
    """The user's uncommitted work the run started from, as a commit on their HEAD (None: they had none).
    Its dates are the snapshot's own, so delivering again makes the very same commit."""
    src, repo = ws.source, ws.folder.repo
    if not (src.dirty and src.user_repo):
        return None
    # base may be the snapshot with submodules inlined on top: the commit right above HEAD is the user's tree
    chain = git(repo, "rev-list", "--first-parent", src.base, *(["--not", src.head] if src.head else []))
    raw = chain.decode().split()[-1]
    author, committer = git(repo, "show", "-s", "--format=%at%n%ct", raw).decode().split()
    message = (
        f"{SNAPSHOT_TITLE.format(run_id=ws.run_id)}\n\nYour uncommitted and untracked files as the run found "
        f"them, so that the commit above holds only the run's change.\n\nRepofix-Snapshot: {ws.run_id}\n"
    )
    env = {**IDENTITY, "GIT_AUTHOR_DATE": f"@{author} +0000", "GIT_COMMITTER_DATE": f"@{committer} +0000"}
    parents = ["-p", src.head] if src.head else []
    return (
        git(repo, "commit-tree", f"{raw}^{{tree}}", *parents, input=message.encode(), env=env)
        .decode()
        .strip()
    )


def _fix_tree(ws: Workspace, best_commit: str, start: str) -> str:
    """The tree of `start` (the user's HEAD or the snapshot) with the run's change on top."""
    repo, base = ws.folder.repo, ws.source.base
    tree = git(repo, "rev-parse", f"{best_commit}^{{tree}}").decode().strip()
    if (
        git(repo, "rev-parse", f"{start}^{{tree}}").decode().strip()
        == git(repo, "rev-parse", f"{base}^{{tree}}").decode().strip()
    ):
        return tree  # the run started from exactly this tree
    with tempfile.TemporaryDirectory(prefix="repofix-index-") as tmp:  # submodules were inlined for the run
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        git(repo, "read-tree", start, env=env)
        patch = git(
            repo, "diff", "--binary", "--full-index", "--no-ext-diff", "--no-textconv", base, best_commit
        )
        try:
            git(repo, "apply", "--cached", "--allow-empty", env=env, input=patch)
            return git(repo, "write-tree", env=env).decode().strip()
        except GitError:
            return tree  # the change is inside an inlined submodule: the files as the run left them


def _commit_for_user(
    ws: Workspace, best_commit: str, message: str, parent: str | None = None
) -> tuple[str, str | None]:
    """(the fix commit, the snapshot commit below it or None). The fix commit holds only the run's change: on
    the user's HEAD, or on the snapshot of their uncommitted work when the run started from some (so a fix
    that undoes an uncommitted change is seen as such), or on `parent`, this run's earlier delivery."""
    src, repo = ws.source, ws.folder.repo
    snapshot = _snapshot_commit(ws)
    start = snapshot or src.head
    tree = (
        _fix_tree(ws, best_commit, start)
        if start
        else git(repo, "rev-parse", f"{best_commit}^{{tree}}").decode().strip()
    )
    if parent is not None and git(repo, "rev-parse", f"{parent}^{{tree}}").decode().strip() == tree:
        return parent, snapshot  # delivered already (a resumed delivery): the same commit, not a second one
    parent = parent or start
    parents = ["-p", parent] if parent else []
    commit = git(repo, "commit-tree", tree, *parents, input=message.encode(), env=IDENTITY).decode().strip()
    return commit, snapshot


# Fewer objects than this are written loose, more as one pack (git's own fetch.unpackLimit default).
_UNPACK_LIMIT = 100


def _send_objects(ws: Workspace, user: Path, commit: str, earlier: str | None) -> None:
    """Copy into the user's repository the objects of `commit` it lacks, without a transport: a pack made
    in the run's clone, read by `unpack-objects`/`index-pack`. A fetch would read the user's (untrusted)
    config and could run its `core.alternateRefsCommand` or, via `url.*.insteadOf`, its credential
    helper; these two read objects only. Left out: what the user's repository already holds, the HEAD the
    run started from and this run's earlier delivery (each only if it is there: a gc may have pruned it)."""
    repo = ws.folder.repo
    have = [
        rev
        for rev in (ws.source.head, earlier)
        if rev
        and git_ok(repo, "cat-file", "-e", f"{rev}^{{commit}}")
        and git_ok(user, "cat-file", "-e", f"{rev}^{{commit}}")
    ]
    revs = "".join(f"{line}\n" for line in (commit, *(f"^{rev}" for rev in have)))
    pack = git(repo, "pack-objects", "--revs", "--stdout", "-q", input=revs.encode())
    count = int.from_bytes(pack[8:12], "big")  # the pack header: "PACK", version, object count
    if count >= _UNPACK_LIMIT:
        git(user, "index-pack", "--stdin", input=pack)
    elif count:
        git(user, "unpack-objects", "-q", input=pack)
    if not git_ok(user, "cat-file", "-e", f"{commit}^{{commit}}"):
        raise GitError(f"delivering to {user}: commit {commit} is missing there after copying its objects")


def deliver(
    ws: Workspace,
    n: int | None = None,
    *,
    task: str,
    summary: str = "",
    status: str = "resolved",
    make_branch: bool = True,
    report_extra: dict[str, Any] | None = None,
) -> Delivery:
    """Write the patch and report for checkpoint `n` (default: the latest); with `make_branch`, also
    make a new branch `repofix/<slug>` in the user's repository (nothing else changes there): one commit
    on their HEAD, or two when the run started from uncommitted work (that work, labelled, then the fix)."""
    best = ws.current() if n is None else ws.store.get(n)
    src = ws.source
    patch_text = ws.store.diff(src.base, best.commit)
    write_atomic(ws.folder.patch_file, patch_text.encode("utf-8", "surrogateescape"))  # never half a patch
    files = sorted({row[0] for row in _rows(ws, best.commit)})
    branch = commit = snapshot = None
    if make_branch and src.user_repo and files:
        user = Path(src.user_repo)
        title = task.strip().splitlines()[0][:72] if task.strip() else "repofix change"
        message = (
            f"{title}\n\n{summary.strip()}\n\nRepofix-Run: {ws.run_id}\n"
            if summary.strip()
            else f"{title}\n\nRepofix-Run: {ws.run_id}\n"
        )
        earlier = _own_branch(user, ws.run_id, (ws.folder.read_state().get("delivered") or {}).get("branch"))
        commit, snapshot = _commit_for_user(ws, best.commit, message, parent=earlier[1] if earlier else None)
        git(ws.folder.repo, "update-ref", f"refs/repofix-deliver/{ws.run_id}", commit)
        # The objects only (no ref of the user's changes here), then one atomic ref update.
        _send_objects(ws, user, commit, earlier[1] if earlier else None)
        if earlier is None:
            branch = _reserve_branch(user, f"{_branch_prefix(user)}{slugify(task)}", commit)
        else:  # the same branch again; the expected old value makes a concurrent change fail, not vanish
            branch = earlier[0]
            if commit != earlier[1]:
                git(user, "update-ref", f"refs/heads/{branch}", commit, earlier[1])
    delivery = Delivery(
        ws.run_id,
        best.n,
        str(ws.folder.patch_file),
        str(ws.folder.report_file),
        branch,
        commit,
        snapshot is not None,
        files,
        snapshot,
    )
    report = {
        **asdict(delivery),
        "task": task,
        "summary": summary,
        "status": status,
        "source": asdict(src),
        "checkpoint": asdict(best),
        "delivered": time.time(),
        **(report_extra or {}),
    }
    write_json_atomic(ws.folder.report_file, report)
    ws.folder.update_state(status=status, delivered=asdict(delivery))
    return delivery


def _rows(ws: Workspace, commit: str):
    return diff_tree(ws.folder.repo, ws.source.base, commit)
