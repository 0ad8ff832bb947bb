"""What runs on the nodes of a Ray cluster: one task (its candidate and its grading) with the
logs it wrote sent back to the head; a tracker that tells the head which task started where;
and the sweep that removes the sandboxes of worker processes that died mid-task (a lost node,
a task killed at its time limit, a head killed with -9).

Each worker process leaves a marker file `<host name>-<pid>` in the state folder; a sweep on a
node removes the containers and scratch folders owned by a dead pid of that host's markers, and
only those: other users' sandboxes on a shared Docker engine are never touched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from repofix import config
from repofix.evaluation.environments import Environments
from repofix.evaluation.executors import TaskWork
from repofix.evaluation.model import Status, TaskResult
from repofix.sandboxes import Limits, cleanup
from repofix.tasks import Task

MAX_LOG_BYTES = 2 * 1024 * 1024  # per log file sent back to the head (its end is kept)
_marked: list[Path] = []
_environments_cache: dict[tuple[str, Limits, str], Environments] = {}


def state_dir() -> Path:
    return config.ray_state_dir()


def run_task(
    work: TaskWork, task: Task, left: float | None, backend: str, limits: Limits, tracker: Any, limit: float
) -> dict[str, Any]:
    """Produce and grade `task`'s candidate on this node. The logs are written to a folder of
    this node and come back in the answer: the head writes them into its run folder.

    At `limit` seconds the task's sandboxes are closed under it (a Python thread cannot be
    interrupted inside a blocking call, a sandbox can be torn down): its commands fail at once,
    and the task is reported as over its time limit."""
    import ray

    node = ray.get_runtime_context().get_node_id()
    _mark_worker()
    if tracker is not None:
        tracker.started.remote(task.id, node)
    notes: list[str] = []
    logs = Path(tempfile.mkdtemp(prefix="repofix-ray-logs-"))
    expired = threading.Event()

    def expire() -> None:
        expired.set()
        cleanup.close_all()

    timer = threading.Timer(limit, expire)
    timer.start()
    started = time.monotonic()
    try:
        environments = _environments(backend, limits, work.images)
        environments.log_dir, environments.echo = logs / "env", notes.append
        prepared = work.prepare(task, environments)
        if isinstance(prepared, TaskResult):
            result = prepared
        else:
            candidate = work.candidate(prepared, left)
            result = work.grade(task, candidate, environments, logs / "task")
    finally:
        timer.cancel()
        files = _pack(logs)
        shutil.rmtree(logs, ignore_errors=True)
    if expired.is_set():
        result.status = Status.TIMEOUT
        result.detail = (
            f"the task ran over its time limit of {limit:.0f}s and was stopped on its node "
            f"after {time.monotonic() - started:.0f}s ({result.detail[:200]})"
        )
    return {"result": result.to_json(), "files": files, "logs": str(logs), "node": node, "notes": notes}


def _environments(backend: str, limits: Limits, images: str) -> Environments:
    """One per worker process (it runs one task at a time), so what it learnt (base image id,
    Python versions of images) serves the process's later tasks too."""
    key = (backend, limits, images)
    if key not in _environments_cache:
        _environments_cache[key] = Environments(backend, limits, Path(tempfile.gettempdir()), images=images)
    return _environments_cache[key]


def _mark_worker() -> None:
    if not _marked:
        folder = state_dir()
        folder.mkdir(parents=True, exist_ok=True)
        marker = folder / f"{os.uname().nodename}-{os.getpid()}"
        marker.write_text(cleanup.owner_id())  # pid and start time: a reused pid is someone else
        _marked.append(marker)


def _pack(logs: Path) -> dict[str, bytes]:
    files = {}
    for path in sorted(logs.rglob("*")):
        if path.is_file() and not path.is_symlink():
            with path.open("rb") as stream:
                size = stream.seek(0, os.SEEK_END)
                stream.seek(max(0, size - MAX_LOG_BYTES))
                files[path.relative_to(logs).as_posix()] = stream.read()
    return files


class Tracker:
    """A Ray actor near the head: which task started on which node, and when (its own clock)."""

    def __init__(self) -> None:
        self.running: dict[str, tuple[str, float]] = {}
        self.starts: Counter[str] = Counter()

    def started(self, task_id: str, node: str) -> None:
        self.running[task_id] = (node, time.time())
        self.starts[task_id] += 1

    def snapshot(self) -> tuple[float, dict[str, tuple[str, float]], dict[str, int]]:
        return time.time(), dict(self.running), dict(self.starts)


def sweep(delay: float = 0.0) -> list[str]:
    """On this node: remove the sandboxes of repofix worker processes that are dead. A worker is
    known by its pid and start time (the marker's content, the sandboxes' `org.repofix.owner`):
    with pids reused within minutes (pid_max 32768 on a machine that forks per candidate), a pid
    alone named a new worker's sandbox as a dead one's."""
    time.sleep(delay)  # a worker just killed may take a moment to be gone
    folder, prefix = state_dir(), f"{os.uname().nodename}-"
    removed: list[str] = []
    if not folder.is_dir():
        return removed
    for marker in sorted(folder.glob(prefix + "*")):
        pid = int(marker.name.removeprefix(prefix) or 0)
        owner = marker.read_text().strip() or str(pid)  # an older repofix's marker is empty
        if cleanup.owner_alive(owner):
            continue
        if shutil.which("docker"):
            label = f"org.repofix.owner={owner}" if " " in owner else f"org.repofix.owner-pid={pid}"
            found = subprocess.run(
                ["docker", "ps", "-aq", "--filter", f"label={cleanup.LABEL}", "--filter", f"label={label}"],
                capture_output=True,
                text=True,
            )
            ids = found.stdout.split()
            if ids:
                subprocess.run(["docker", "rm", "-f", *ids], capture_output=True)
                removed += [f"container {i}" for i in ids]
        for scratch in cleanup.scratch_root().iterdir():
            held = cleanup.folder_owner(scratch)
            if held is not None and held.strip() == owner:
                shutil.rmtree(scratch, ignore_errors=True)
                removed.append(f"scratch {scratch}")
        marker.unlink(missing_ok=True)
    return removed
