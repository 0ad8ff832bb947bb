"""Run folders: atomic state, listing, pruning, the CLI, and kill -9 in the middle of checkpoints."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_workspace_support import make_repo, sh

import repofix
from repofix.atomic import write_json_atomic
from repofix.cli import main
from repofix.runs import create_run, open_run, read_json
from repofix.runs.listing import list_runs, prune
from repofix.workspace import Workspace, WorkspaceError
from repofix.workspace.resume import claim, resume_point


def test_state_is_written_atomically(tmp_path):
    path = tmp_path / "state.json"
    write_json_atomic(path, {"a": 1})
    write_json_atomic(path, {"a": 2, "text": "é"})
    assert read_json(path) == {"a": 2, "text": "é"}
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]  # no temporary left behind
    assert read_json(tmp_path / "missing.json", default={}) == {}


def test_home_from_parameter_and_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("REPOFIX_HOME", str(tmp_path / "env-home"))
    run = create_run(label="Fix the export!")
    assert run.root.parent == tmp_path / "env-home" / "runs" and "fix-the-export" in run.run_id
    other = create_run(tmp_path / "param-home")
    assert other.root.parent == tmp_path / "param-home" / "runs"
    assert open_run(run.run_id[:-2]).run_id == run.run_id  # a unique prefix is enough


def test_list_prune_and_cli(tmp_path):
    home = tmp_path / "home"
    old = create_run(home, label="old")
    old.update_state(status="resolved")
    state = old.read_state()
    state.update(created=time.time() - 40 * 86400, updated=time.time() - 40 * 86400)
    write_json_atomic(old.state_file, state)
    active = create_run(home, label="active")
    active.update_state(status="running", updated=time.time() - 40 * 86400)
    write_json_atomic(active.state_file, {**active.read_state(), "updated": time.time() - 40 * 86400})
    fresh = create_run(home, label="fresh")
    assert [r.run_id for r in list_runs(home)][0] == fresh.run_id
    out = CliRunner().invoke(main, ["runs", "--home", str(home)])
    assert out.exit_code == 0 and "resolved" in out.output and fresh.run_id in out.output
    assert prune(home, keep=0, dry_run=True) == [old.run_id]
    out = CliRunner().invoke(main, ["runs", "--home", str(home), "prune", "--keep", "0"])
    assert out.exit_code == 0 and old.run_id in out.output
    assert not old.root.exists() and active.root.exists() and fresh.root.exists()


def test_checkpoint_commands(tmp_path, make_sandbox):
    repo = make_repo(tmp_path / "user", {"a.txt": "a\n"})
    home = tmp_path / "home"
    ws = Workspace.create(repo, home=home)
    box = make_sandbox("none", source=ws.export(tmp_path / "export"))
    box.changes()
    box.run("echo b > a.txt", timeout=10)
    ws.sync(box, step=1, tests={"passed": 3, "failed": 0})
    runner = CliRunner()
    listing = runner.invoke(main, ["checkpoints", ws.run_id, "--home", str(home)])
    assert listing.exit_code == 0 and "#1" in listing.output and "passed 3" in listing.output
    diff = runner.invoke(main, ["diff", ws.run_id, "1", "--home", str(home)])
    assert "-a\n+b" in diff.output
    restored = runner.invoke(main, ["restore", ws.run_id, "0", "--home", str(home)])
    assert restored.exit_code == 0 and "#2" in restored.output
    assert Workspace.open(ws.run_id, home).current().tree == ws.store.get(0).tree
    missing = runner.invoke(main, ["diff", ws.run_id, "9", "--home", str(home)])
    assert (
        missing.exit_code == 2
        and missing.output.startswith("repofix: run ")
        and "no checkpoint 9" in missing.output
    )
    store = Workspace.open(ws.run_id, home).store  # checkpoints 0, 1 and the restore's 2
    assert store.get(-1).n == 2 and store.get(-3).n == 0
    with pytest.raises(WorkspaceError, match="no checkpoint -4"):  # counting back past the first one
        store.get(-4)
    nothing = runner.invoke(main, ["undo", "--home", str(home)])
    assert nothing.exit_code == 1 and "repofix: nothing to undo" in nothing.output


# The child makes checkpoints of large files as fast as it can and reports each one it finished.
CHILD = r"""
import sys
from repofix.workspace import Workspace, FileEntry
ws = Workspace.open(sys.argv[1], sys.argv[2])
i = ws.current().n
while True:
    i += 1
    files = {f"big{j}.bin": FileEntry(0o100644, bytes([i % 251]) * (4 << 20) + bytes([j])) for j in range(3)}
    files[f"step{i}.txt"] = FileEntry(0o100644, b"%d\n" % i)
    checkpoint = ws.store.commit_files(files, step=i)
    ws.folder.update_state(checkpoint=checkpoint.n, status="running")
    print(checkpoint.n, checkpoint.commit, flush=True)
"""


@pytest.mark.parametrize("delay", [0.0, 0.1, 0.25])  # a checkpoint of 12 MiB takes ~0.5 s here
def test_kill_9_mid_checkpoint_then_resume(tmp_path, delay):
    repo = make_repo(tmp_path / "user", {"a.txt": "a\n"})
    home = tmp_path / "home"
    ws = Workspace.create(repo, home=home)
    here = str(Path(repofix.__file__).resolve().parents[1])  # this checkout's repofix, whatever is installed
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, ws.run_id, str(home)],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "PYTHONPATH": here},
    )
    reported = [child.stdout.readline().split() for _ in range(2)]  # two done, the third under way
    time.sleep(delay)
    os.killpg(child.pid, signal.SIGKILL)  # repofix and its git processes, mid-write
    child.wait()
    reported += [line.split() for line in child.stdout.read().splitlines()]

    ws2, point = resume_point(ws.run_id, home)
    claim(ws2, point)
    checkpoints = {c.n: c.commit for c in ws2.store.list()}
    for n, commit in reported:  # every checkpoint the child finished survived
        assert checkpoints[int(n)] == commit
    assert sorted(checkpoints) == list(range(len(checkpoints)))
    sh(ws2.folder.repo, "git", "fsck", "--connectivity-only", "--no-dangling")
    assert not list((ws2.folder.repo / ".git" / "objects").glob("pack/tmp_*"))
    assert (
        point.checkpoint == max(checkpoints)
        and json.loads(ws2.folder.state_file.read_text())["checkpoint"] == point.checkpoint
    )
    if point.checkpoint:
        assert (
            sh(ws2.folder.repo, "git", "show", f"{point.commit}:step{point.checkpoint}.txt")
            == f"{point.checkpoint}\n"
        )
    # The run goes on from there.
    from repofix.workspace import FileEntry

    following = ws2.store.commit_files(
        {"after.txt": FileEntry(0o100644, b"resumed\n")}, step=point.checkpoint + 1
    )
    assert following.n == point.checkpoint + 1


@pytest.mark.parametrize("lock", ["next-ref", "index", "packed-refs"])
def test_a_resume_drops_the_git_locks_a_killed_writer_left(tmp_path, lock):
    # kill -9 while fast-import wrote checkpoint 2 left refs/repofix/<run>/2.lock: the resumed run's
    # own checkpoint 2 failed with "cannot lock ref ... File exists" (CI, delay 0.25 s above)
    from repofix.workspace import FileEntry

    home = tmp_path / "home"
    ws = Workspace.create(make_repo(tmp_path / "user", {"a.txt": "a\n"}), home=home)
    ws.store.commit_files({"b.txt": FileEntry(0o100644, b"b\n")}, step=1)
    git_dir = ws.folder.repo / ".git"
    ref_dir = git_dir / "refs" / "repofix" / ws.run_id  # the run's checkpoints: 0 and 1 so far
    assert sorted(p.name for p in ref_dir.iterdir()) == ["0", "1"]
    path = {
        "next-ref": ref_dir / "2.lock",
        "index": git_dir / "index.lock",
        "packed-refs": git_dir / "packed-refs.lock",
    }
    path[lock].write_text("")
    ws2, point = resume_point(ws.run_id, home)
    claim(ws2, point)
    assert not path[lock].exists()
    following = ws2.store.commit_files({"c.txt": FileEntry(0o100644, b"c\n")}, step=2)
    assert following.n == 2 and [c.n for c in ws2.store.list()] == [0, 1, 2]


@pytest.mark.parametrize("command", [["show"], ["resume"], ["restore", "3"], ["diff"], ["checkpoints"]])
def test_an_unknown_run_is_refused_alike_by_every_command(tmp_path, command):
    result = CliRunner().invoke(
        main, [command[0], "nosuchrun", *command[1:]], env={"REPOFIX_HOME": str(tmp_path)}
    )
    assert result.exit_code == 2, result.output
    assert result.output.startswith("repofix: no run 'nosuchrun' under"), result.output
