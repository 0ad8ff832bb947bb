"""Nothing outlives repofix: cleanup on exit and signals, `sandbox prune` after kill -9, network only
during setup, `sandbox doctor`."""

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
from conftest import backend_params, require_backend

from repofix.cli import main

ISOLATING = backend_params(("docker", "bwrap"))
HOLDER = """
import json, sys, time, warnings
warnings.simplefilter("ignore")
from repofix.sandboxes import open_sandbox
box = open_sandbox(sys.argv[1], backend=sys.argv[2])
box.run("sleep 1000 &")
print(json.dumps({"scratch": str(getattr(box, "scratch", "")),
                  "container": getattr(getattr(box, "container", None), "name", None)}), flush=True)
time.sleep(600)
"""


def hold_sandbox(tree: Path, backend: str, scratch_root: Path) -> tuple[subprocess.Popen, dict]:
    env = dict(os.environ, REPOFIX_SCRATCH=str(scratch_root))
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(tree), backend], stdout=subprocess.PIPE, text=True,
                            env=env, start_new_session=True)
    info = json.loads(proc.stdout.readline())
    return proc, info


def container_exists(name: str | None) -> bool:
    if name is None:
        return False
    import docker

    return bool(docker.from_env().containers.list(all=True, filters={"name": name}))


def sandbox_processes(scratch: str) -> list[str]:
    out = subprocess.run(["ps", "-eo", "args="], capture_output=True, text=True).stdout
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
def test_prune_removes_what_a_killed_run_left(tree, backend, tmp_path, monkeypatch):
    require_backend(backend)
    monkeypatch.setenv("REPOFIX_SCRATCH", str(tmp_path / "scratch"))
    proc, info = hold_sandbox(tree, backend, tmp_path / "scratch")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    for _ in range(50):  # bwrap dies with its parent; give the kernel a moment
        if not sandbox_processes(info["scratch"]):
            break
        time.sleep(0.1)
    assert not sandbox_processes(info["scratch"])
    assert Path(info["scratch"]).exists()  # the scratch dir is what a crash leaves...
    assert container_exists(info["container"]) == (backend == "docker")  # ...and, for docker, the container
    result = CliRunner().invoke(main, ["sandbox", "prune"])
    assert result.exit_code == 0, result.output
    assert not Path(info["scratch"]).exists()
    assert not container_exists(info["container"])
    assert "removed" in result.output


@pytest.mark.parametrize("backend", ISOLATING)
def test_network_only_during_setup(tree, backend, make_sandbox):
    require_backend(backend)
    probe = "python3 -c \"import socket; socket.create_connection(('pypi.org', 443), timeout=15)\""
    box = make_sandbox(backend, setup=[probe, "echo installed > /home/sandbox/marker"])
    after = box.run(probe)
    assert after.exit_code == 1 and ("unreachable" in after.stderr or "resolution" in after.stderr
                                     or "Name or service" in after.stderr)
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
    lines = {line.split()[0]: line for line in result.output.splitlines() if line and not line.startswith(" ")}
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
    result = CliRunner().invoke(main, ["sandbox", "build", "--base-image", "no-such-base:1", "--no-build-base",
                                       "--tag", "repofix-sandbox:never"])
    assert result.exit_code == 2
    assert "docker build failed" in result.output
