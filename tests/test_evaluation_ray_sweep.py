"""A node's sweep removes what a dead worker left (its containers, its scratch folders) and never
what a new worker with the same pid owns: pids come round within minutes where pid_max is 32768
and the repair engine forks a child per candidate."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from repofix.evaluation import ray_node
from repofix.sandboxes import cleanup
from repofix.sandboxes.docker import DEFAULT_IMAGE
from tests.conftest import require_backend

pytestmark = pytest.mark.docker


def container(owner: str, pid: int) -> str:
    labels = {cleanup.LABEL: f"sweep-test-{uuid.uuid4().hex[:8]}", "org.repofix.owner-pid": str(pid)}
    labels["org.repofix.owner"] = owner
    args = [f"--label={key}={value}" for key, value in labels.items()]
    made = subprocess.run(
        ["docker", "create", "--network", "none", *args, DEFAULT_IMAGE, "true"],
        capture_output=True,
        text=True,
        check=True,
    )
    return made.stdout.strip()


def present(ids: list[str]) -> set[str]:
    listed = subprocess.run(["docker", "ps", "-aq", "--no-trunc"], capture_output=True, text=True).stdout
    return {i for i in ids if i in listed.split()}


def test_a_dead_workers_sandboxes_go_and_a_new_worker_with_its_pid_keeps_its_own(
    tmp_path: Path, monkeypatch
) -> None:
    require_backend("docker")
    monkeypatch.setenv("REPOFIX_RAY_STATE", str(tmp_path / "state"))
    monkeypatch.setenv("REPOFIX_SCRATCH", str(tmp_path / "scratch"))
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    pid = gone.pid  # dead now; "pid 111" was its start, "pid 222" a later process's with the same pid
    dead, reused = f"{pid} 111", f"{pid} 222"
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / f"{os.uname().nodename}-{pid}").write_text(dead)
    scratch = {}
    for owner in (dead, reused):
        folder = tmp_path / "scratch" / f"docker-{owner.replace(' ', '-')}"
        folder.mkdir(parents=True)
        (folder / "owner.pid").write_text(owner)
        scratch[owner] = folder
    old, new = container(dead, pid), container(reused, pid)
    try:
        removed = ray_node.sweep()
        assert present([old, new]) == {new}
        assert not scratch[dead].exists() and scratch[reused].is_dir()
        assert sorted(removed) == [f"container {old[:12]}", f"scratch {scratch[dead]}"]
        assert list((tmp_path / "state").iterdir()) == []  # the dead worker's marker went too
    finally:
        subprocess.run(["docker", "rm", "-f", old, new], capture_output=True)
