"""The Docker backend (default when an engine answers).

Each sandbox is one container: `--init`, uid 1000, read-only root filesystem, every capability
dropped, no-new-privileges, memory (no swap), CPU and pids limits, size-limited tmpfs for the
workspace, /tmp and home. It is started on the setup network (`docker_net`: internet yes, the host's
own addresses no) only so setup commands can install things; the network is disconnected before any
other command runs. The session runner is started with one `docker exec -i` as uid 1000 and then
serves every command over its pipes. The container's own keep-alive process runs as root without any
capability, so nothing the model runs (as uid 1000) can kill the container from inside; killing the
runner is survivable with `restart()`.

The container dies with its owner: the keep-alive is `cat` on the container's stdin, which repofix
holds through an attach socket (stdin-once). When repofix exits or is killed the kernel closes that
socket, the engine closes the stdin, `cat` ends, and the container (`--rm`) removes itself."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repofix import config
from repofix.sandboxes import cleanup, docker_net
from repofix.sandboxes.base import SHM_MB, WORKDIR, CommandResult, Limits, SandboxError
from repofix.sandboxes.common import BASE_ENV, RunnerSandbox
from repofix.sandboxes.notices import say_once

DEFAULT_IMAGE = config.docker_image()  # $REPOFIX_IMAGE, read once at start
# What the docker CLI on the host needs to find the engine; never passed into the container.
DOCKER_CLIENT_ENV = (
    "PATH",
    "HOME",
    "DOCKER_HOST",
    "DOCKER_CONFIG",
    "DOCKER_CERT_PATH",
    "DOCKER_TLS_VERIFY",
    "DOCKER_CONTEXT",
)


class ContainerEnded(SandboxError):
    """The container ended on its own while repofix still needed it."""


@dataclass(frozen=True)
class Layout:
    """Where an image keeps things: the repository's folder, the commands' PATH, the Python that
    runs the session runner (any >= 3.8). repofix's own images use the defaults."""

    workdir: str = WORKDIR
    path: str = BASE_ENV["PATH"]
    python: str = "python3"


def client():
    import docker

    try:
        engine = docker.from_env(timeout=30)
        engine.ping()
    except Exception as error:  # the SDK raises several unrelated types for "no engine"
        raise SandboxError(
            f"no Docker engine answers ({type(error).__name__}: {error}). "
            "Start it (e.g. `dockerd &` or `systemctl start docker`)."
        ) from None
    return engine


def available(image: str = DEFAULT_IMAGE) -> str | None:
    """None when the docker backend works here, else the reason."""
    try:
        engine = client()
    except SandboxError as error:
        return str(error)
    except ImportError:
        return "the docker Python package is not installed"
    import docker.errors

    try:
        engine.images.get(image)
    except docker.errors.ImageNotFound:
        return f"the sandbox image {image} is not built: run `repofix sandbox build`"
    return None


_reaped = False
# Outlives its owner only while the container is being made: when the pipe from repofix closes (the
# container has started, or repofix died before it could), a container still only created (which
# --rm never removes) is removed. A create request already sent may land late: watch a few seconds.
# The docker CLI, not the SDK: the guard runs as `python -S` (no site-packages, so no SDK) to start at once.
STARTER_GUARD = r"""
import subprocess, sys, time
sys.stdin.buffer.read()
name = sys.argv[1]
deadline = time.monotonic() + 5
while time.monotonic() < deadline:
    state = subprocess.run(["docker", "inspect", "-f", "{{.State.Status}}", name], capture_output=True,
                           text=True).stdout.strip()
    if state == "created":
        subprocess.run(["docker", "rm", "-f", name], capture_output=True)
    elif state:
        break
    time.sleep(0.2)
"""


# A keep-alive that has just ended may still read as running: the session runner started in it dies
# (exit 137) before the engine records the container's end (seen in CI on e4df9cc). Asked again for
# so long before a start's error is taken as the sandbox's own.
ENDING_SECONDS = 3.0


class DockerSandbox(RunnerSandbox):
    backend = "docker"

    def __init__(
        self,
        source: Path | None = None,
        limits: Limits | None = None,
        setup: Sequence[str] = (),
        image: str | None = None,
        layout: Layout | None = None,
    ):
        global _reaped
        self.engine = client()
        if not _reaped:  # the first sandbox of a process clears what a dead owner could not
            _reaped = True
            cleanup.reap_dead_containers(self.engine)
        self.image = image or DEFAULT_IMAGE
        self.layout = layout or Layout()
        self.container: Any = None  # docker's Container (lazily imported); None only until it is created
        self._lifeline = None  # the attach socket whose end ends the container
        self.scratch = cleanup.new_scratch("docker-")
        super().__init__(limits)
        self.workdir, self.env["PATH"] = self.layout.workdir, self.layout.path
        # A keep-alive that ends as its container starts was seen once in CI (cause unknown: the engine
        # logged only the end). Nothing of the model's has run yet, so one more container loses nothing.
        for attempt in (1, 2):
            self._start_container()  # closes this sandbox and raises when it cannot
            try:
                if not setup:  # nothing needs the network: cut it before anything else runs
                    self._cut_network()
                self._fill(source, setup)
                return
            except Exception:
                ended = self._ended(settle=ENDING_SECONDS)
                if ended is None or attempt == 2:
                    self.close()
                    if ended is None:
                        raise
                    raise SandboxError(f"{ended}, twice in a row; is the Docker engine healthy?") from None
                say_once(f"sandbox: {ended}; starting another")
                if self._client is not None:  # the ended container's session runner, if it started
                    self._client.kill()
                    self._client = None
                self._discard_container()
            except BaseException:
                self.close()
                raise

    def _start_container(self) -> None:
        import docker.errors

        lim = self.limits
        name = f"repofix-{uuid.uuid4().hex[:12]}"
        guard_r, guard_w = os.pipe()
        guard = subprocess.Popen(
            [sys.executable, "-S", "-c", STARTER_GUARD, name],
            stdin=guard_r,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=self._host_env(),
            start_new_session=True,
        )
        os.close(guard_r)
        try:
            network = docker_net.setup_network(self.engine)
            self.container = self.engine.containers.create(
                self.image,
                ["cat"],
                name=name,
                stdin_open=True,
                auto_remove=True,
                init=True,
                user="0:0",
                read_only=True,
                working_dir=self.workdir,
                network=network,
                tmpfs={
                    self.workdir: f"size={lim.workspace_mb}m,uid=1000,gid=1000,mode=0755,exec",
                    "/tmp": f"size={lim.tmp_mb}m,mode=1777,exec",
                    "/home/sandbox": f"size={lim.home_mb}m,uid=1000,gid=1000,mode=0755,exec",
                },
                cap_drop=["ALL"],
                security_opt=["no-new-privileges"],
                mem_limit=f"{lim.charged_mb}m",
                memswap_limit=f"{lim.charged_mb}m",
                shm_size=f"{SHM_MB}m",
                nano_cpus=int(lim.cpus * 1e9),
                pids_limit=lim.pids,
                environment={k: v for k, v in BASE_ENV.items() if k != "PATH"},
                labels=cleanup.owner_labels(name),
            )
            self._lifeline = self.container.attach_socket(params={"stdin": 1, "stream": 1})
            self.container.start()
        except docker.errors.ImageNotFound:
            self.close()
            raise SandboxError(
                f"the sandbox image {self.image} is not built: run `repofix sandbox build`"
            ) from None
        except docker.errors.APIError as error:
            self.close()
            raise SandboxError(f"docker could not start the sandbox: {error.explanation or error}") from None
        except BaseException:
            self.close()
            raise
        finally:
            os.close(guard_w)  # started (or failed and removed): the guard checks and leaves
            threading.Thread(target=guard.wait, daemon=True).start()  # reaped without waiting here

    def _runner_argv(self) -> list[str]:
        # The docker CLI, not the SDK: the session runner needs a process whose stdin/stdout are plain pipes
        # (the SDK's exec gives a multiplexed socket) and that dies with its session when killed.
        argv = ["docker", "exec", "-i", "-u", "1000:1000", "-w", self.workdir]
        for key, value in self.env.items():
            argv += ["-e", f"{key}={value}"]
        return [*argv, self.container.id, self.layout.python, "-u"]

    def _host_env(self) -> dict[str, str]:
        return {key: os.environ[key] for key in DOCKER_CLIENT_ENV if key in os.environ}

    def _log_path(self) -> Path:
        return self.scratch / "runner.log"

    def restart(self) -> None:
        import docker.errors

        try:
            self.container.reload()
        except docker.errors.NotFound:
            raise SandboxError(
                f"the sandbox container {self.container.name} is gone; open a new sandbox"
            ) from None
        if self.container.status != "running":
            raise SandboxError(
                f"the sandbox container {self.container.name} is {self.container.status}; open a new sandbox"
            )
        if self._client is not None:
            self._client.kill()
            self._client = None
        # The container outlives the runner, and so may what the old session started (the shell that
        # ran `kill -9 -1` survives its own call): none of it is the new runner's to reap, so every
        # process of the sandbox user ends first (the keep-alive runs as root and stays).
        self.container.exec_run(["sh", "-c", "kill -9 -1"], user="1000:1000")
        super().restart()

    def network_connected(self) -> bool:
        self.container.reload()
        return bool(self.container.attrs["NetworkSettings"]["Networks"])

    def _cut_network(self) -> None:
        import docker.errors

        try:
            self.container.reload()
            for name in self.container.attrs["NetworkSettings"]["Networks"]:
                self.engine.networks.get(name).disconnect(self.container, force=True)
        except docker.errors.APIError as error:
            raise self._ended() or error from None

    def _ended(self, settle: float = 0.0) -> ContainerEnded | None:
        """The container's own end (its keep-alive exited, or it was removed), or None while it runs;
        with `settle`, asked again for up to so many seconds while it still reads as running."""
        deadline = time.monotonic() + settle
        while (ended := self._end_now()) is None and time.monotonic() < deadline:
            time.sleep(0.1)
        return ended

    def _end_now(self) -> ContainerEnded | None:
        """The container's end as the engine reads it now (None: running, or the engine cannot say)."""
        import docker.errors

        try:
            self.container.reload()
        except docker.errors.NotFound:
            return ContainerEnded(f"the sandbox container {self.container.name} ended by itself and is gone")
        except Exception:  # the engine cannot say (it may be down itself): the caller's own error stands
            return None
        state = self.container.attrs.get("State", {})
        if state.get("Running"):
            return None
        return ContainerEnded(
            f"the sandbox container {self.container.name} ended by itself "
            f"({state.get('Status', 'unknown')}, exit code {state.get('ExitCode', '?')})"
        )

    def setup(self, commands: Sequence[str], *, timeout: float | None = None) -> list[CommandResult]:
        docker_net.fence_host()  # checked at every setup: the rules must hold whenever commands have network
        if not self.network_connected():
            self.engine.networks.get(docker_net.setup_network(self.engine)).connect(self.container)
        try:
            return super().setup(commands, timeout=timeout)
        finally:
            self._cut_network()

    def _destroy(self) -> None:
        self._discard_container()
        shutil.rmtree(self.scratch, ignore_errors=True)

    def _discard_container(self) -> None:
        import docker.errors

        if self.container is not None:
            try:
                self.container.remove(force=True)
            except docker.errors.NotFound:
                pass  # already gone (removed by hand, by `sandbox prune`, or by itself)
            except docker.errors.APIError as error:
                if error.status_code != 409:  # 409: its own removal (--rm) is already under way
                    raise
        if self._lifeline is not None:
            self._lifeline.close()
            self._lifeline = None
