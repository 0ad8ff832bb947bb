"""A scratch folder is never ownerless: its owner (pid and start time) is in its name from the moment
it exists, so a kill -9 at any instant leaves nothing `sandbox prune` keeps."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pytest

from repofix.sandboxes import cleanup

MAKER = """
import shutil, sys
from repofix.sandboxes import cleanup
shutil.rmtree(cleanup.new_scratch("grade-"))
print("ready", flush=True)
while True:  # folders made and removed as fast as it can: a kill lands anywhere in new_scratch
    shutil.rmtree(cleanup.new_scratch("grade-"))
"""


def test_a_kill_at_any_moment_of_making_a_folder_leaves_nothing_prune_keeps(tmp_path, monkeypatch):
    monkeypatch.setenv("REPOFIX_SCRATCH", str(tmp_path))
    kept = []
    for _ in range(12):  # a kill between mkdtemp and writing owner.pid left one in two folders before
        maker = subprocess.Popen(
            [sys.executable, "-c", MAKER],
            stdout=subprocess.PIPE,
            env={**os.environ, "REPOFIX_SCRATCH": str(tmp_path)},
        )
        assert maker.stdout is not None and maker.stdout.readline() == b"ready\n"
        time.sleep(random.uniform(0.05, 0.3))
        os.kill(maker.pid, signal.SIGKILL)
        maker.wait()
        cleanup.prune()
        kept += [folder.name for folder in tmp_path.iterdir()]
    assert kept == []


@pytest.mark.parametrize("written", [None, ""], ids=["no owner file", "owner file being written"])
def test_the_name_names_the_owner_when_the_file_does_not(tmp_path, monkeypatch, written):
    monkeypatch.setenv("REPOFIX_SCRATCH", str(tmp_path))
    dead = subprocess.run(["sh", "-c", "echo $$"], capture_output=True, text=True).stdout.strip()
    mine = cleanup.new_scratch("agent-")
    orphan = tmp_path / f"agent-{dead}.12345.abc_9"
    orphan.mkdir()
    for folder in (mine, orphan):
        if written is None:
            (folder / "owner.pid").unlink(missing_ok=True)
        else:
            (folder / "owner.pid").write_text(written)
    assert cleanup.folder_owner(mine) == cleanup.owner_id()
    assert cleanup.reap_dead_scratch() == [f"scratch {orphan}"]
    assert mine.exists() and not orphan.exists()


def test_a_stray_file_in_the_scratch_root_names_no_owner_and_stops_no_sweep(tmp_path, monkeypatch):
    from repofix.evaluation import ray_node

    monkeypatch.setenv("REPOFIX_SCRATCH", str(tmp_path / "scratch"))
    monkeypatch.setenv("REPOFIX_RAY_STATE", str(tmp_path / "state"))
    dead = subprocess.run(["sh", "-c", "echo $$"], capture_output=True, text=True).stdout.strip()
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / f"{os.uname().nodename}-{dead}").write_text(f"{dead} 111")  # a dead worker
    (tmp_path / "scratch").mkdir()
    stray = (
        tmp_path / "scratch" / "notes.txt"
    )  # not a folder: reading its owner.pid raised NotADirectoryError
    stray.write_text("x")
    assert cleanup.folder_owner(stray) is None
    assert cleanup.reap_dead_scratch() == []  # younger than a minute, owned by no one: left alone
    assert ray_node.sweep() == []  # the dead worker's sweep reads every entry of the scratch root
    assert stray.exists()
