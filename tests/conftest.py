"""Shared fixtures. Sandbox backends that are not available here are skipped locally, but
CI sets REPOFIX_REQUIRE_DOCKER=1 / REPOFIX_REQUIRE_BWRAP=1 and then a missing backend fails; the same
for PyPI, which the `network` tests need (REPOFIX_REQUIRE_NETWORK=1)."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
import warnings
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

from repofix.sandboxes import Limits, open_sandbox

# In CI, property tests are derandomized (the same examples every run, so a landing never hinges on a
# lucky draw; new examples are explored locally) and have no per-example deadline (a loaded 2-core box).
hypothesis_settings.register_profile("ci", derandomize=True, deadline=None)
hypothesis_settings.register_profile("dev", deadline=None)
hypothesis_settings.load_profile("ci" if os.environ.get("CI") else "dev")

ISOLATING = ["docker", "bwrap"]
TEST_LIMITS = Limits(
    memory_mb=256, pids=128, workspace_mb=64, tmp_mb=64, home_mb=64, output_bytes=64 * 1024, timeout=60
)


def backend_problem(backend: str) -> str | None:
    if backend == "docker":
        from repofix.sandboxes import docker

        return docker.available()
    if backend == "bwrap":
        from repofix.sandboxes import bwrap

        return bwrap.available()
    return None


def require_backend(backend: str) -> None:
    """Skip (locally) or fail (when CI requires the backend) if `backend` cannot run here."""
    problem = backend_problem(backend)
    if problem is None:
        return
    if os.environ.get(f"REPOFIX_REQUIRE_{backend.upper()}") == "1":
        pytest.fail(f"the {backend} backend is required here but unavailable: {problem}")
    pytest.skip(f"{backend} unavailable: {problem}")


def require_pypi() -> None:
    """For the few tests that need PyPI on purpose (pypi.org:443, from a sandbox's setup phase or a
    venv's pip install; marked `network`): skip with the reason where it is unreachable, fail where
    CI says it must be reachable (REPOFIX_REQUIRE_NETWORK=1, as .ci/run sets)."""
    try:
        socket.create_connection(("pypi.org", 443), timeout=10).close()
    except OSError as error:
        if os.environ.get("REPOFIX_REQUIRE_NETWORK") == "1":
            pytest.fail(f"PyPI is required here but unreachable: {error}")
        pytest.skip(f"needs PyPI (pypi.org:443), unreachable from this machine: {error}")


def marks_for(backend: str) -> list:
    return [getattr(pytest.mark, backend)] if backend in ISOLATING else []


def backend_params(backends=("docker", "bwrap", "none")) -> list:
    return [pytest.param(name, marks=marks_for(name), id=name) for name in backends]


def wait_until(condition, limit: float = 60.0) -> bool:
    """Poll `condition` until it holds or a generous `limit` passes (how fast is the benchmarks' job)."""
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A tiny project to copy into sandboxes."""
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text(
        "from pkg.calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    )
    return root


@pytest.fixture
def make_sandbox(tree: Path):
    """Factory: make_sandbox(backend, **kwargs) opens a sandbox on `tree`, closed after the test."""
    opened = []

    def make(backend: str, source: Path | None = tree, limits: Limits = TEST_LIMITS, **kwargs):
        require_backend(backend)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            box = open_sandbox(source, backend=backend, limits=limits, **kwargs)
        opened.append(box)
        return box

    yield make
    for box in opened:
        box.close()


@pytest.fixture
def repaired(make_sandbox, tmp_path: Path):
    """Factory: repaired(files) writes `files` (name -> text) to a fresh repository and runs the
    built-in engine on it in an unisolated sandbox (a test's own code, up to 240 s)."""
    from repofix.repair import Budget, repair

    def run(files: dict[str, str]):
        root = tmp_path / "repo"
        root.mkdir()
        for name, text in files.items():
            (root / name).write_text(text)
        return repair(make_sandbox("none", source=root), budget=Budget(max_seconds=240, test_timeout=2))

    return run


@pytest.fixture
def listening():
    """Start TCP servers on the host: listening(address) -> (port, accepted connections)."""
    servers = []

    def start(address: str) -> tuple[int, list]:
        server = socket.socket()
        server.bind((address, 0))
        server.listen()
        server.settimeout(0.2)
        accepted: list = []

        def serve():
            while True:
                try:
                    accepted.append(server.accept())
                except TimeoutError:
                    continue
                except OSError:
                    return

        threading.Thread(target=serve, daemon=True).start()
        servers.append(server)
        return server.getsockname()[1], accepted

    yield start
    for server in servers:
        server.close()


def containers_running(text: str) -> list[str]:
    """Ids of the engine's containers (any state) whose command holds `text`: a test puts a marker of
    its own there, so it sees only its own build containers."""
    listed = subprocess.run(
        ["docker", "ps", "-a", "--no-trunc", "--format", "{{.ID}} {{.Command}}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [line.split()[0] for line in listed.splitlines() if text in line]
