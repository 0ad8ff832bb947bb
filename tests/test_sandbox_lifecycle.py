"""Nothing outlives repofix: cleanup on exit and signals, `sandbox prune` after kill -9, network only
during setup, `sandbox doctor`."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import backend_params, require_backend, require_pypi, wait_until

from repofix.cli import main

ISOLATING = backend_params(("docker", "bwrap"))
HOLDER = """
import json, sys, time, warnings
warnings.simplefilter("ignore")
from repofix.sandboxes import open_sandbox
box = open_sandbox(sys.argv[1], backend=sys.argv[2])
box.run("sleep 1000 &")
cgroup = getattr(box, "cgroup", None)
print(json.dumps({"scratch": str(getattr(box, "scratch", "")),
                  "container": getattr(getattr(box, "container", None), "name", None),
                  "cgroups": [str(folder) for folder in cgroup.dirs] if cgroup else []}), flush=True)
if sys.argv[3] == "busy":  # killed while a command (and a background child of it) runs
    box.run("sleep 1000 & sleep 1000", timeout=900)
time.sleep(600)
"""


NEXT_RUN = """
import sys, warnings
warnings.simplefilter("ignore")
from repofix.sandboxes import open_sandbox
with open_sandbox(None, backend=sys.argv[1]) as box:
    assert box.run("echo ok").ok
"""


def hold_sandbox(
    tree: Path, backend: str, scratch_root: Path, busy: bool = False
) -> tuple[subprocess.Popen, dict]:
    env = dict(os.environ, REPOFIX_SCRATCH=str(scratch_root))
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(tree), backend, "busy" if busy else "idle"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    info = json.loads(proc.stdout.readline())
    return proc, info


def container_exists(name: str | None) -> bool:
    if name is None:
        return False
    import docker

    # sparse: the engine's one listing, no per-container inspect that a container removing itself
    # in between (--rm) would turn into "404 No such container"
    return bool(docker.from_env().containers.list(all=True, sparse=True, filters={"name": name}))


def sandbox_processes(scratch: str) -> list[str]:
    out = subprocess.run(
        ["ps", "-ww", "-eo", "args="], capture_output=True, text=True
    ).stdout  # -ww: whole lines
    return [line for line in out.splitlines() if scratch in line and "bwrap" in line]


@pytest.mark.parametrize("backend", ISOLATING)
def test_sigterm_removes_everything(tree, backend, tmp_path):
    require_backend(backend)
    proc, info = hold_sandbox(tree, backend, tmp_path / "scratch")
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 128 + signal.SIGTERM
    assert not Path(info["scratch"]).exists()
    assert not container_exists(info["container"])
    assert not sandbox_processes(info["scratch"])


@pytest.mark.parametrize("backend", ISOLATING)
@pytest.mark.parametrize("moment", ["idle", "mid-command"])
def test_kill_9_of_the_owner_leaves_nothing(tree, backend, moment, tmp_path):
    require_backend(backend)
    proc, info = hold_sandbox(tree, backend, tmp_path / "scratch", busy=moment == "mid-command")
    assert container_exists(info["container"]) if backend == "docker" else sandbox_processes(info["scratch"])
    os.kill(proc.pid, signal.SIGKILL)  # the owner only: nothing else is signalled
    proc.wait(timeout=30)
    assert wait_until(
        lambda: not sandbox_processes(info["scratch"]) and not container_exists(info["container"])
    )
    # The scratch folder (and bwrap's cgroups, when it could make them) is what remains; the next repofix
    # to start a sandbox removes them at once (their owner is dead), not only `sandbox prune` a minute on.
    left = [Path(info["scratch"]), *map(Path, info["cgroups"])]
    assert all(path.exists() for path in left)
    if backend == "bwrap" and os.geteuid() == 0:
        assert info["cgroups"]  # root: bwrap limits memory and pids through cgroups
    env = dict(os.environ, REPOFIX_SCRATCH=str(tmp_path / "scratch"))
    subprocess.run([sys.executable, "-c", NEXT_RUN, backend], env=env, check=True, timeout=120)
    assert not any(path.exists() for path in left)


BOTH = """
import sys, time, warnings
warnings.simplefilter("ignore")
from repofix.sandboxes import open_sandbox
boxes = [open_sandbox(sys.argv[1], backend=name) for name in ("docker", "bwrap")]
print(boxes[0].container.name, boxes[1].scratch, flush=True)
time.sleep(600)
"""
IN_SETUP = """
import sys, warnings
warnings.simplefilter("ignore")
from repofix.sandboxes import open_sandbox
open_sandbox(sys.argv[1], backend=sys.argv[2], setup=[f"echo setting-up; sleep {sys.argv[3]}"])
"""


def children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(field) for field in out.split()]


def owned_containers(owner: int) -> list[str]:
    import docker

    return [
        c.attrs["Names"][0].lstrip("/")
        for c in docker.from_env().containers.list(
            all=True, sparse=True, filters={"label": f"org.repofix.owner-pid={owner}"}
        )
    ]


def test_kill_9_of_an_owner_of_both_backends_leaves_nothing(tree, tmp_path):
    require_backend("docker")
    require_backend("bwrap")
    env = dict(os.environ, REPOFIX_SCRATCH=str(tmp_path / "scratch"))
    proc = subprocess.Popen(
        [sys.executable, "-c", BOTH, str(tree)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    container, scratch = proc.stdout.readline().split()
    assert container_exists(container) and sandbox_processes(scratch)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert wait_until(lambda: not container_exists(container) and not sandbox_processes(scratch))


@pytest.mark.parametrize("backend", ISOLATING)
def test_kill_9_during_the_networked_setup_leaves_nothing(tree, backend, tmp_path):
    require_backend(backend)
    env = dict(os.environ, REPOFIX_SCRATCH=str(tmp_path / "scratch"))
    pause = str(random.SystemRandom().randrange(10**8, 10**9))  # this test's sleep, nobody else's
    proc = subprocess.Popen(
        [sys.executable, "-c", IN_SETUP, str(tree), backend, pause], env=env, start_new_session=True
    )

    def in_setup() -> bool:
        out = subprocess.run(["ps", "-ww", "-eo", "args="], capture_output=True, text=True).stdout
        return f"sleep {pause}" in out.splitlines() and (backend == "docker" or bool(slirps()))

    def slirps() -> list[int]:
        return [
            pid
            for pid in children(proc.pid)
            if Path(f"/proc/{pid}/comm").exists()
            and Path(f"/proc/{pid}/comm").read_text().strip() == "slirp4netns"
        ]

    assert wait_until(in_setup)
    network_helpers = slirps() if backend == "bwrap" else []
    containers = owned_containers(proc.pid) if backend == "docker" else []
    scratches = [str(path) for path in (tmp_path / "scratch").iterdir()]
    assert (containers if backend == "docker" else network_helpers) and scratches
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert wait_until(
        lambda: (
            not any(map(container_exists, containers))
            and not any(sandbox_processes(scratch) for scratch in scratches)
            and not any(Path(f"/proc/{pid}").exists() for pid in network_helpers)
        )
    )


DIES_BEFORE_START = """
import os, warnings
warnings.simplefilter("ignore")
import docker.models.containers
from repofix.sandboxes.docker import DockerSandbox


def die(container, **kwargs):  # the owner dies in the one moment --rm cannot cover: created, not started
    print(container.name, flush=True)
    os._exit(9)


docker.models.containers.Container.start = die
DockerSandbox(None)
"""


def test_owner_dying_between_create_and_start_leaves_no_container(tmp_path):
    require_backend("docker")
    env = dict(os.environ, REPOFIX_SCRATCH=str(tmp_path / "scratch"))
    proc = subprocess.run(
        [sys.executable, "-c", DIES_BEFORE_START], capture_output=True, text=True, env=env, timeout=120
    )
    name = proc.stdout.strip()
    assert proc.returncode == 9 and name.startswith("repofix-")
    assert wait_until(lambda: not container_exists(name))


def test_reaping_keeps_scratch_of_live_owners_and_spots_reused_pids(tmp_path, monkeypatch):
    from repofix.sandboxes import cleanup

    monkeypatch.setenv("REPOFIX_SCRATCH", str(tmp_path))
    mine = cleanup.new_scratch("live-")
    impostor = tmp_path / "reused-pid"  # a live pid, but a different process's start time: its owner is dead
    impostor.mkdir()
    (impostor / "owner.pid").write_text(f"{os.getpid()} 1")
    newborn = tmp_path / "being-created"  # no owner file yet: too young to judge
    newborn.mkdir()
    assert cleanup.reap_dead_scratch() == [f"scratch {impostor}"]
    assert mine.exists() and newborn.exists() and not impostor.exists()


def test_prune_dry_run_lists_and_keeps(tree, tmp_path, monkeypatch):
    require_backend("docker")
    import docker

    from repofix.sandboxes import cleanup
    from repofix.sandboxes.docker import DEFAULT_IMAGE

    monkeypatch.setenv("REPOFIX_SCRATCH", str(tmp_path / "scratch"))
    (tmp_path / "scratch").mkdir()
    dead = subprocess.run(["sh", "-c", "echo $$"], capture_output=True, text=True).stdout.strip()
    stale = tmp_path / "scratch" / "docker-stale"
    stale.mkdir()
    (stale / "owner.pid").write_text(f"{dead} 12345")
    # What a host reboot leaves: a labelled container whose owner is gone.
    name = f"repofix-stale-{os.getpid()}"
    engine = docker.from_env()
    engine.containers.create(
        DEFAULT_IMAGE,
        ["sleep", "infinity"],
        name=name,
        labels={cleanup.LABEL: name, "org.repofix.owner": f"{dead} 12345"},
    )
    try:
        dry = CliRunner().invoke(main, ["sandbox", "prune", "--dry-run"])
        assert dry.exit_code == 0, dry.output
        assert (
            f"would remove container {name}" in dry.output and f"would remove scratch {stale}" in dry.output
        )
        assert container_exists(name) and stale.exists()
        real = CliRunner().invoke(main, ["sandbox", "prune"])
        assert real.exit_code == 0, real.output
        assert f"removed container {name}" in real.output
        assert not container_exists(name) and not stale.exists()
    finally:
        for container in engine.containers.list(all=True, filters={"name": name}):
            container.remove(force=True)


@pytest.mark.network
@pytest.mark.parametrize("backend", ISOLATING)
def test_network_only_during_setup(tree, backend, make_sandbox):
    require_backend(backend)
    require_pypi()  # what the setup phase reaches on purpose, as a project's `pip install` would
    probe = "python3 -c \"import socket; socket.create_connection(('pypi.org', 443), timeout=15)\""
    box = make_sandbox(backend, setup=[probe, "echo installed > /home/sandbox/marker"])
    after = box.run(probe)
    assert after.exit_code == 1 and (
        "unreachable" in after.stderr or "resolution" in after.stderr or "Name or service" in after.stderr
    )
    assert box.run("cat /home/sandbox/marker").stdout.strip() == "installed"
    assert box.run("cat pkg/calc.py").ok  # the workspace survived the setup phase


@pytest.mark.parametrize("backend", ISOLATING)
def test_failing_setup_is_a_clear_error_and_leaves_nothing(tree, backend, tmp_path, monkeypatch):
    require_backend(backend)
    from repofix.sandboxes import SandboxError, open_sandbox

    monkeypatch.setenv("REPOFIX_SCRATCH", str(tmp_path / "scratch"))
    with pytest.raises(SandboxError, match=r"setup command failed \(exit 3\)"):
        open_sandbox(tree, backend=backend, setup=["echo preparing; exit 3"])
    assert list((tmp_path / "scratch").iterdir()) == []


def test_doctor_reports_each_backend():
    result = CliRunner().invoke(main, ["sandbox", "doctor"])
    lines = {
        line.split()[0]: line for line in result.output.splitlines() if line and not line.startswith(" ")
    }
    assert set(lines) >= {"docker", "bwrap", "none"}
    for name in ("docker", "bwrap"):
        if os.environ.get(f"REPOFIX_REQUIRE_{name.upper()}") == "1":
            assert " ok " in lines[name], lines[name]


@pytest.mark.docker
def test_sandbox_build_makes_a_working_image():
    require_backend("docker")
    import docker

    tag = "repofix-sandbox:test-build"
    result = CliRunner().invoke(main, ["sandbox", "build", "--tag", tag])
    try:
        assert result.exit_code == 0, result.output
        assert f"built {tag}" in result.output
        from repofix.sandboxes import open_sandbox

        with open_sandbox(None, backend="docker", image=tag) as box:
            assert box.run("python3 -m pytest --version").ok
    finally:
        docker.from_env().images.remove(tag, noprune=True)


def test_sandbox_build_reports_a_missing_base_image():
    require_backend("docker")
    result = CliRunner().invoke(
        main,
        [
            "sandbox",
            "build",
            "--base-image",
            "no-such-base:1",
            "--no-build-base",
            "--tag",
            "repofix-sandbox:never",
        ],
    )
    assert result.exit_code == 2
    assert "docker build failed" in result.output


def test_cgroups_of_dead_owners_go_with_their_processes_and_the_rest_stay():
    from repofix.sandboxes import cleanup, limits
    from repofix.sandboxes.base import Limits

    if not limits.can_limit():
        pytest.skip("bwrap's cgroups need root and a cgroup filesystem")
    dead = subprocess.run(["sh", "-c", "echo $$"], capture_output=True, text=True).stdout.strip()
    tag = random.SystemRandom().randrange(16**11, 16**12)
    ns = limits.pid_namespace()
    groups = {
        "dead": limits.CgroupLimits(f"{dead}.12345.{ns}.{tag:x}", Limits()),
        "reused pid": limits.CgroupLimits(
            f"{os.getpid()}.1.{ns}.{tag:x}", Limits()
        ),  # live pid, not its start
        "mine": limits.CgroupLimits(f"{cleanup.owner_id().replace(' ', '.')}.{ns}.{tag:x}", Limits()),
        "older repofix's, young": limits.CgroupLimits(f"{tag:x}", Limits()),
        # a pid of another pid namespace (a repofix in a container sharing these cgroups) says nothing here
        "another namespace's, young": limits.CgroupLimits(f"{dead}.12345.{ns + 1}.{tag:x}", Limits()),
    }
    stray = subprocess.Popen(["sleep", "1000"])  # left in the dead owner's cgroup: killed with it
    try:
        for path in groups["dead"].procs_files:
            Path(path).write_text(str(stray.pid))
        dry = limits.prune_cgroups(dry_run=True, owner_alive=cleanup.owner_alive)
        assert {f"cgroup {folder}" for folder in groups["dead"].dirs + groups["reused pid"].dirs} <= set(dry)
        assert all(folder.exists() for group in groups.values() for folder in group.dirs)
        limits.prune_cgroups(owner_alive=cleanup.owner_alive)
        assert stray.wait(timeout=30) == -signal.SIGKILL
        gone = {name: not any(folder.exists() for folder in group.dirs) for name, group in groups.items()}
        assert gone == {
            "dead": True,
            "reused pid": True,
            "mine": False,
            "older repofix's, young": False,
            "another namespace's, young": False,
        }
    finally:
        stray.kill()
        for group in groups.values():
            group.remove()
