"""A real local Ray cluster for the tests and the benchmark: a head and worker nodes, each started
with `ray start` and its own custom resources, on loopback addresses only.

Ray rewrites 127.0.0.1 into the machine's network address, so the nodes use other addresses of the
loopback range (127.0.0.2, 127.0.0.3, ...), which it keeps. Each node gets a block of ports from
`base_port`: 26300, or where every port of every node's block can be bound right now (a fixed block
would fail whenever something else on the machine holds one of them). Every process of the cluster carries a marker in its environment, so `stop()`
and `kill_node()` end exactly the cluster's processes (never another Ray on the machine).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKER = "REPOFIX_TEST_RAY_NODE"
RAY = [sys.executable, "-m", "ray.scripts.scripts"]  # the `ray` command of this Python, whatever PATH says


MAX_NODES = 4  # blocks checked free: the head and up to three workers


def _bindable(address: str, port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind((address, port))
        except OSError:
            return False
    return True


def free_base_port(tries: int = 50) -> int:
    """A base whose ports (base + 100 * node + 0..60, on node's address) are all free now: 26300 when
    it is, else another block below Linux's ephemeral ports (32768) and above Ray's own client-server
    range (23000-24000)."""
    for attempt in range(tries):
        base = 26300 if attempt == 0 else random.randrange(24500, 32000 - 100 * MAX_NODES, 100)
        if all(
            _bindable(f"127.0.0.{2 + node}", base + 100 * node + offset)
            for node in range(MAX_NODES)
            for offset in range(61)
        ):
            return base
    raise RuntimeError("no free block of ports for a local Ray cluster on 127.0.0.2-5")


STARTUP_TIMEOUT = "The current node timed out during startup"  # ray/_private/node.py


class LocalRayCluster:
    def __init__(self, folder: Path, base_port: int | None = None, cpus: int = 1):
        base_port = base_port or free_base_port()
        self.folder, self.base_port, self.cpus = folder, base_port, cpus
        # Ray's own files (sockets, logs): a short path, as socket paths are limited to 107 bytes.
        self.temp = Path(tempfile.mkdtemp(prefix="rfray-"))
        self.state = folder / "state"  # repofix's worker markers (REPOFIX_RAY_STATE)
        self.run_id = uuid.uuid4().hex[:12]
        self.nodes: list[str] = []  # node markers, head first
        self.address = f"127.0.0.2:{base_port}"
        self.client_address = f"ray://127.0.0.2:{base_port + 7}"  # the head's Ray Client server

    def env(self, node: int | None = None) -> dict[str, str]:
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "REPOFIX_RAY_STATE": str(self.state),
            "RAY_USAGE_STATS_ENABLED": "0",
            # No token authentication, whatever the user's ~/.ray holds: with a token file there (a
            # local `ray.init()` writes one) Ray enables it, and the worker node was refused.
            "RAY_AUTH_MODE": "disabled",
            # A lost node is noticed after ~3 s instead of ~30 s.
            "RAY_health_check_period_ms": "1000",
            "RAY_health_check_failure_threshold": "3",
            "RAY_health_check_timeout_ms": "1000",
        }
        if node is not None:
            env[MARKER] = f"{self.run_id}-{node}"
        return env

    def _ports(self, node: int) -> list[str]:
        p = self.base_port + 100 * node
        return [
            "--node-manager-port",
            str(p + 1),
            "--object-manager-port",
            str(p + 2),
            "--min-worker-port",
            str(p + 20),
            "--max-worker-port",
            str(p + 60),
            "--dashboard-agent-listen-port",
            str(p + 3),
            "--dashboard-agent-grpc-port",
            str(p + 4),
            "--runtime-env-agent-port",
            str(p + 5),
            "--metrics-export-port",
            str(p + 6),
        ]

    def start_node(self, resources: dict[str, float]) -> int:
        """Start the head (first call) or one more worker node; returns its index."""
        node = len(self.nodes)
        self.nodes.append(f"{self.run_id}-{node}")
        common = [
            "--temp-dir",
            str(self.temp),
            "--num-cpus",
            str(self.cpus),
            "--resources",
            json.dumps(resources),
            "--object-store-memory",
            str(100 * 2**20),
            "--disable-usage-stats",
            *self._ports(node),
        ]
        if node == 0:
            command = [
                *RAY,
                "start",
                "--head",
                "--node-ip-address",
                "127.0.0.2",
                "--port",
                str(self.base_port),
                "--include-dashboard",
                "false",
                "--ray-client-server-port",
                str(self.base_port + 7),
                *common,
            ]
        else:
            command = [
                *RAY,
                "start",
                "--address",
                self.address,
                "--node-ip-address",
                f"127.0.0.{2 + node}",
                *common,
            ]
        for attempt in range(3):
            done = subprocess.run(command, env=self.env(node), capture_output=True, text=True, timeout=180)
            # Ray waits a fixed 30 s for a new node to register with the GCS; on a machine loaded by
            # other work it can miss that by a little: the node's processes go, and it starts again
            if done.returncode == 0 or STARTUP_TIMEOUT not in done.stderr + done.stdout or attempt == 2:
                break
            self.kill_node(node)
            time.sleep(2.0)
        if done.returncode != 0:
            raise RuntimeError(
                f"ray start failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
            )
        return node

    def pids(self, node: int | None = None) -> list[int]:
        """The live processes of one node (or of the whole cluster): those started with its marker,
        their descendants (Ray's workers and agents retitle themselves, which hides their
        environment) and, for the whole cluster, whatever still has a file open in its folder."""
        wanted = {self.nodes[node]} if node is not None else set(self.nodes)
        parents: dict[int, int] = {}
        found: set[int] = set()
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            pid = int(proc.name)
            try:
                state, parent = (proc / "stat").read_text().rsplit(")", 1)[1].split()[:2]
                if state == "Z":  # a zombie has ended already
                    continue
                parents[pid] = int(parent)
                environ = (proc / "environ").read_bytes().split(b"\0")
            except (OSError, IndexError, ValueError):
                continue
            marked = any(
                e.startswith(f"{MARKER}=".encode()) and e.split(b"=", 1)[1].decode() in wanted
                for e in environ
            )
            if marked or (node is None and _has_open_file_in(proc, self.temp)):
                found.add(pid)
        grew = True
        while grew:
            more = {pid for pid, parent in parents.items() if parent in found and pid not in found}
            found |= more
            grew = bool(more)
        return sorted(found)

    def kill_node(self, node: int) -> None:
        """Lose a node at once (raylet and workers killed with SIGKILL), as when a machine dies."""
        for pid in self.pids(node):
            _signal(pid, signal.SIGKILL)

    def stop(self) -> None:
        """Stop every process of the cluster: SIGTERM, then SIGKILL what is left after 5 s."""
        for pid in self.pids():
            _signal(pid, signal.SIGTERM)
        deadline = time.monotonic() + 5
        while self.pids() and time.monotonic() < deadline:
            time.sleep(0.3)
        for pid in self.pids():
            _signal(pid, signal.SIGKILL)
        shutil.rmtree(self.temp, ignore_errors=True)

    def worker_pids(self) -> list[int]:
        """Pids of every repofix worker process the cluster has had (its markers)."""
        if not self.state.is_dir():
            return []
        return [int(p.name.rsplit("-", 1)[1]) for p in self.state.iterdir()]


def _has_open_file_in(proc: Path, folder: Path) -> bool:
    try:
        return any(os.readlink(fd).startswith(str(folder)) for fd in (proc / "fd").iterdir())
    except OSError:
        return False


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass
