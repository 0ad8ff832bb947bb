"""Delivery under crowds and crashes: concurrent runs on one repository get distinct branches, each
holding its own commit; a delivery done again (resume) or after a follow-up stays on the same branch;
no temporary file is left behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from agent_helpers import DIRECT_FIX, act, clamp_repo, script
from conftest import require_backend
from test_lifecycle_resume import env_for, repofix
from test_workspace_support import make_repo, sh

import repofix as package
from repofix.runs.listing import list_runs
from repofix.workspace import FileEntry, Workspace
from repofix.workspace.deliver import deliver

HERE = str(Path(package.__file__).resolve().parents[1])
CHILD = """
import sys, time
from pathlib import Path
from repofix.workspace import Workspace
from repofix.workspace.deliver import deliver
run_id, home, go = sys.argv[1:]
ws = Workspace.open(run_id, home)
while not Path(go).exists():
    time.sleep(0.005)
d = deliver(ws, task="Make the greeting configurable")
print(d.branch, d.commit)
"""


def change(ws: Workspace, text: str, step: int = 1):
    files = {path: FileEntry(0o100644, b"print('hi')\n") for path in ["app.py"]}
    files["greeting.txt"] = FileEntry(0o100644, text.encode())
    return ws.store.commit_files(files, step=step)


def test_six_concurrent_deliveries_get_six_branches(tmp_path):
    repo = make_repo(tmp_path / "user", {"app.py": "print('hi')\n"})
    home = tmp_path / "home"
    runs = []
    for i in range(6):
        ws = Workspace.create(repo, home=home, label=f"run {i}")
        change(ws, f"hello from run {i}\n")
        runs.append(ws)
    go = tmp_path / "go"
    children = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, ws.run_id, str(home), str(go)],
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": HERE},
        )
        for ws in runs
    ]
    time.sleep(1.0)  # every child imported and waiting: they deliver at the same moment
    go.touch()
    results = []
    for child in children:
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
        results.append(out.split())
    branches = [branch for branch, _ in results]
    assert len(set(branches)) == 6 and all(
        b.startswith("repofix/make-the-greeting-configurable") for b in branches
    )
    for ws, (branch, commit) in zip(runs, results, strict=True):
        assert sh(repo, "git", "rev-parse", f"refs/heads/{branch}").strip() == commit  # nothing dangling
        assert sh(repo, "git", "show", f"{branch}:greeting.txt") == f"hello from run {runs.index(ws)}\n"
        assert f"Repofix-Run: {ws.run_id}" in sh(repo, "git", "log", "-1", "--format=%B", branch)
        assert not list(ws.folder.root.glob("*.tmp")) and not list(ws.folder.root.glob(".*.tmp"))
    assert sh(repo, "git", "status", "--porcelain") == ""


@pytest.mark.parametrize("dirty", [False, True], ids=["clean", "uncommitted-work"])
def test_delivery_again_and_a_follow_up_stay_on_one_branch(tmp_path, dirty):
    repo = make_repo(tmp_path / "user", {"app.py": "print('hi')\n"})
    if dirty:  # the run starts from uncommitted work: the branch holds it as a snapshot below the fix
        (repo / "notes.txt").write_text("my notes\n")
    ws = Workspace.create(repo, home=tmp_path / "home", label="greet")
    change(ws, "hello\n")
    first = deliver(ws, task="Greet")
    assert (first.snapshot is not None) == dirty
    ws.folder.update_state(delivered=None)  # killed after the branch was made, before the state said so
    again = deliver(ws, task="Greet")
    assert (again.branch, again.commit, again.snapshot) == (first.branch, first.commit, first.snapshot)
    below = sh(repo, "git", "rev-parse", f"{first.branch}^").strip()
    assert below == (first.snapshot or sh(repo, "git", "rev-parse", "HEAD").strip())
    change(ws, "hello, and negatives\n", step=2)  # a `continue` phase: a new commit on the same branch
    follow = deliver(ws, task="Also greet negatives")
    assert follow.branch == first.branch and follow.commit != first.commit
    assert sh(repo, "git", "rev-parse", f"{follow.branch}^").strip() == first.commit
    assert sh(repo, "git", "show", f"{follow.branch}:greeting.txt") == "hello, and negatives\n"
    assert sh(repo, "git", "for-each-ref", "--format=%(refname)", "refs/heads/repofix/").split() == [
        f"refs/heads/{first.branch}"
    ]
    assert follow.snapshot == first.snapshot  # the one snapshot, not a second copy of the user's work
    assert sh(repo, "git", "rev-list", "--count", f"HEAD..{follow.branch}").strip() == ("3" if dirty else "2")


def test_a_branch_the_user_moved_on_is_not_reused(tmp_path):
    repo = make_repo(tmp_path / "user", {"app.py": "print('hi')\n"})
    ws = Workspace.create(repo, home=tmp_path / "home", label="greet")
    change(ws, "hello\n")
    first = deliver(ws, task="Greet")
    sh(repo, "git", "checkout", "-q", first.branch)
    sh(repo, "git", "commit", "-q", "--allow-empty", "-m", "my own work on top")
    sh(repo, "git", "checkout", "-q", "main")
    change(ws, "hello again\n", step=2)
    second = deliver(ws, task="Greet")
    assert second.branch == first.branch + "-2"
    assert sh(repo, "git", "log", "-1", "--format=%s", first.branch).strip() == "my own work on top"


@pytest.mark.bwrap
@pytest.mark.parametrize("dirty", [False, True], ids=["clean", "uncommitted-work"])
def test_killed_during_delivery_then_resumed_finishes_the_same_branch(tmp_path, dirty):
    """The state a kill -9 between the branch update and the report leaves: the branch exists, the run
    still says running (its owner is gone), a half-written patch lies in the run folder."""
    require_backend("bwrap")
    repo, home = clamp_repo(tmp_path / "repo"), tmp_path / "home"
    if dirty:
        (repo / "NOTES.md").write_text("my notes, never committed\n")
    env = env_for(home)
    model = script(tmp_path / "s.yaml", [DIRECT_FIX, act("submit", "Done.", summary="fixed")])
    first = repofix(env, "fix", "--repo", str(repo), "-m", model, "--sandbox", "bwrap", "--json")
    assert first.returncode == 0, first.stderr
    branch, run_id = json.loads(first.stdout)["branch"], json.loads(first.stdout)["run_id"]
    run_dir = home / "runs" / run_id
    record = json.loads((run_dir / "trajectory.json").read_text())
    for key in ("final_patch", "delivered", "reason", "message"):
        record.pop(key, None)
    (run_dir / "trajectory.json").write_text(json.dumps({**record, "status": "running"}))
    state = json.loads((run_dir / "state.json").read_text())
    (run_dir / "state.json").write_text(
        json.dumps({**state, "status": "running", "delivered": None, "owner": {"pid": 1, "start": -1}})
    )
    (run_dir / "report.json").unlink()
    (run_dir / "result.patch.tmp").write_text("half a pat")
    assert [r.status for r in list_runs(home)] == ["interrupted"]
    resumed = repofix(env, "resume", run_id, "--json")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert json.loads(resumed.stdout)["branch"] == branch
    assert {k: json.loads(resumed.stdout)[k] for k in ("commit", "snapshot")} == {
        k: json.loads(first.stdout)[k] for k in ("commit", "snapshot")
    }  # the same commits, not new ones
    assert sh(repo, "git", "rev-list", "--count", f"HEAD..{branch}").strip() == ("2" if dirty else "1")
    assert sh(repo, "git", "for-each-ref", "--format=%(refname)", "refs/heads/repofix/").split() == [
        f"refs/heads/{branch}"
    ]
    assert not list(run_dir.glob("*.tmp")) and [r.status for r in list_runs(home)] == ["resolved"]
