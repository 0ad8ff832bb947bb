"""`--executor ray`: an evaluation's tasks as Ray tasks on an existing cluster.

Each task (environment, candidate, grading) is one Ray task that declares the CPUs and memory of
its sandbox, so Ray packs them onto the nodes; images are built on each node once (the build
lock of `environments`) and reused. Results come back to this process, the head, which alone
writes the store. A task whose worker or node dies is retried by Ray on another node (at most
`max_retries` times); only the attempt that returns is recorded, so nothing counts twice. A task
over its time limit has its sandboxes closed on its node; if it still does not end, the head
kills its worker. Ctrl-C kills the tasks outstanding, then every node sweeps the sandboxes of
its dead workers (`ray_node.sweep`), so no container is left behind. During the run Ctrl-C is
only recorded, and the dispatch loop (it wakes every second) stops on it: a KeyboardInterrupt
raised inside one of Ray's blocking calls is Ray's to pass on, and a second Ctrl-C must not cut
the cancelling and the sweep short.
"""

from __future__ import annotations

import os
import time
from collections import Counter, deque
from collections.abc import Callable, Generator
from pathlib import Path, PurePosixPath
from typing import Any

from repofix.evaluation import ray_node
from repofix.evaluation.executors import Budget, TaskWork, task_folder
from repofix.evaluation.interrupts import on_sigint
from repofix.evaluation.model import Status, TaskResult
from repofix.evaluation.ray_join import import_ray, join
from repofix.sandboxes import Limits
from repofix.tasks import Task

CANCEL_GRACE = 60.0  # seconds past its limit before the head kills a task's worker
WORKER_MEMORY_MB = 512  # the Ray worker process itself, on top of the sandbox's memory


class RayExecutor:
    def __init__(
        self,
        address: str | None,
        backend: str,
        limits: Limits,
        out_dir: Path,
        *,
        slots: int | None = None,
        task_limit: float = 7200.0,
        max_retries: int = 2,
        note: Callable[[str], None] = print,
        progress_every: float = 30.0,
    ):
        self.ray = import_ray()
        self.address = address or os.environ.get("RAY_ADDRESS") or "auto"
        self.backend, self.limits, self.out_dir, self.note = backend, limits, out_dir, note
        self.slots, self.task_limit, self.max_retries = slots, task_limit, max_retries
        self.progress_every = progress_every
        self.done: Counter[str] = Counter()  # tasks finished per node (by node id)
        self.node_names: dict[str, str] = {}
        self.interrupted = False  # Ctrl-C came: set by the SIGINT handlers below

    def connect(self) -> None:
        """Join the cluster as a driver; RayUnavailable with the reason when that fails."""
        if self.ray.is_initialized():
            return
        with on_sigint(self._interrupt):  # Ctrl-C stops a slow join at once...
            join(self.ray, self.address, self.note)
        self._stop_if_interrupted()  # ...and one that Ray's init swallowed stops the run here
        self.node_names = {n["NodeID"]: n["NodeManagerAddress"] for n in self.ray.nodes()}

    def run(self, tasks: list[Task], work: TaskWork, budget: Budget) -> Generator[TaskResult, None, None]:
        with on_sigint(self._record):  # until the tasks are cancelled and swept
            yield from self._run(tasks, work, budget)

    def _interrupt(self, signum: int, frame: object) -> None:
        self.interrupted = True
        raise KeyboardInterrupt

    def _record(self, signum: int, frame: object) -> None:
        self.interrupted = True

    def _stop_if_interrupted(self) -> None:
        if self.interrupted:
            raise KeyboardInterrupt

    def _run(self, tasks: list[Task], work: TaskWork, budget: Budget) -> Generator[TaskResult, None, None]:
        ray = self.ray
        self.connect()
        memory = (self.limits.memory_mb + WORKER_MEMORY_MB) * 1024 * 1024
        remote = ray.remote(ray_node.run_task).options(
            num_cpus=self.limits.cpus, memory=memory, max_retries=self.max_retries, retry_exceptions=False
        )
        slots = self.slots or max(
            1, int(ray.cluster_resources().get("CPU", 1) // max(self.limits.cpus, 0.01))
        )
        first_sweep = self._sweep_all(delay=0.0)  # what a killed head left behind; not waited for
        tracker = ray.remote(ray_node.Tracker).options(num_cpus=0, scheduling_strategy=self._here()).remote()
        work_ref = ray.put(work)
        self.note(
            f"ray: {len(self.node_names)} node(s), {slots} task slot(s) of {self.limits.cpus:g} CPU and "
            f"{memory // 2**20} MiB each; {len(tasks)} task(s)"
        )
        queued = deque(tasks)
        inflight: dict[Any, Task] = {}  # Ray object ref -> its task
        allowances: dict[Any, float | None] = {}  # ref -> the money reserved for it
        stopping: dict[Any, str] = {}  # ref -> the node asked to stop it
        started, last_note, finished = time.monotonic(), time.monotonic(), False
        try:
            while queued or inflight:
                self._stop_if_interrupted()
                while queued and len(inflight) < slots:
                    left = budget.reserve(slots, len(queued) - 1, wait=False)
                    if left is not None and left <= 0:
                        if budget.capped:
                            queued.clear()
                        break  # or: nothing is free until a running task settles
                    task = queued.popleft()
                    ref = remote.remote(
                        work_ref, task, left, self.backend, self.limits, tracker, self.task_limit
                    )
                    inflight[ref], allowances[ref] = task, left
                if not inflight:
                    break
                ready, _ = ray.wait(list(inflight), num_returns=1, timeout=1.0)
                for ref in ready:
                    result = self._receive(ref, inflight.pop(ref), work)
                    stopping.pop(ref, None)
                    budget.settle(allowances.pop(ref), result.cost)
                    yield result
                running = self._watch(tracker, inflight, stopping)
                if time.monotonic() - last_note >= self.progress_every and (queued or inflight):
                    self.note(self._line(running, len(queued) + len(inflight) - len(running), started))
                    last_note = time.monotonic()
            self._stop_if_interrupted()  # as the last task came back: still a stop, not a success
            finished = True
            self.note(self._line({}, 0, started))
        finally:
            if not finished:
                self.note(f"ray: stopping: cancelling {len(inflight)} task(s), then sweeping the nodes")
                self._cancel(list(inflight))
            self._report_sweep(first_sweep)
            self._report_sweep(self._sweep_all(delay=0.0 if finished else 1.0))  # after kills: wait for them
            ray.kill(tracker)  # an actor already gone (its node lost) is not an error to Ray
            ray.shutdown()

    # -- results ------------------------------------------------------------------------------
    def _receive(self, ref: Any, task: Task, work: TaskWork) -> TaskResult:
        ray = self.ray
        try:
            payload = ray.get(ref)
        except ray.exceptions.TaskCancelledError:  # killed by _watch: its node could not stop it
            return self._failed(
                task,
                work,
                Status.TIMEOUT,
                f"the task ran over its time limit of {self.task_limit:.0f}s and its worker was killed",
            )
        except (
            ray.exceptions.WorkerCrashedError,
            ray.exceptions.NodeDiedError,
            ray.exceptions.ObjectLostError,
            ray.exceptions.RayTaskError,
            ray.exceptions.RaySystemError,
        ) as error:
            # After Ray's retries (lost workers and nodes, a result lost with its node and not
            # remade), or a failure of the harness on a node: an infrastructure error of this task
            # (`--retry-errors` runs it again), not the end of the evaluation.
            lines = str(error).strip().splitlines() or [type(error).__name__]
            return self._failed(
                task,
                work,
                Status.ERROR,
                f"on the Ray cluster, after {self.max_retries} "
                f"retries at most: {type(error).__name__}: {lines[-1][:300]}",
            )
        result = TaskResult.from_json(payload["result"])
        self._unpack(payload, task, result)
        self.done[payload["node"]] += 1
        for line in payload["notes"]:
            self.note(f"[{self._name(payload['node'])}] {line}")
        return result

    def _failed(self, task: Task, work: TaskWork, status: Status, detail: str) -> TaskResult:
        return TaskResult(task.id, status, work.source.name, detail=detail)

    def _unpack(self, payload: dict[str, Any], task: Task, result: TaskResult) -> None:
        """The node's log files into this run folder: task logs beside the task's report, build
        logs under logs/; the result's log path is made to name the copy."""
        for name, data in payload["files"].items():
            parts = PurePosixPath(name).parts
            if len(parts) < 2 or parts[0] not in ("task", "env") or ".." in parts:
                continue
            base = task_folder(self.out_dir, task.id) if parts[0] == "task" else self.out_dir / "logs"
            dest = base.joinpath(*parts[1:])
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
            if result.log_path == f"{payload['logs']}/{name}":
                result.log_path = str(dest)

    # -- time limits, progress, cancelling, sweeping -------------------------------------------
    def _watch(self, tracker: Any, inflight: dict[Any, Task], stopping: dict[Any, str]) -> dict:
        """Kill the workers of tasks that their node could not stop at their time limit; returns
        the running tasks, by id -> node."""
        try:
            now, running, _ = self.ray.get(tracker.snapshot.remote(), timeout=10)
        except Exception:  # the tracker is unreachable for a moment: no limits checked this round
            return {}
        ids = {task.id for task in inflight.values()}
        for ref, task in inflight.items():
            node, since = running.get(task.id, ("", now))
            if ref not in stopping and now - since > self.task_limit + CANCEL_GRACE:
                self.ray.cancel(ref, force=True)
                stopping[ref] = node
                self._sweep_on(node, delay=2.0)
        return {task_id: node for task_id, (node, _) in running.items() if task_id in ids}

    def _line(self, running: dict[str, str], queued: int, started: float) -> str:
        busy = Counter(running.values())
        nodes = sorted(set(self.done) | set(busy), key=self._name)
        per_node = " · ".join(f"{self._name(n)} done {self.done[n]}, running {busy[n]}" for n in nodes)
        rate = sum(self.done.values()) / max((time.monotonic() - started) / 60, 1e-9)
        return f"ray: {per_node or 'no task finished yet'} · queued {queued} · {rate:.1f} tasks/min"

    def _name(self, node: str) -> str:
        if node not in self.node_names:
            self.node_names = {n["NodeID"]: n["NodeManagerAddress"] for n in self.ray.nodes()}
        return self.node_names.get(node, node[:8])

    def _here(self) -> Any:
        """Near this process when it runs on a node of the cluster (not through ray://), so that
        losing a worker node does not lose the tracker."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        if self.address.startswith("ray://"):
            return "DEFAULT"
        return NodeAffinitySchedulingStrategy(self.ray.get_runtime_context().get_node_id(), soft=True)

    def _cancel(self, refs: list[Any]) -> None:
        """Kill the outstanding tasks' workers (a gentle cancel cannot reach a thread blocked in a
        call) and wait until they are gone; the sweep then removes their sandboxes."""
        for ref in refs:
            self.ray.cancel(ref, force=True)
        if refs:
            self.ray.wait(refs, num_returns=len(refs), timeout=30)

    def _sweep_on(self, node: str, delay: float = 0.0) -> Any:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        return (
            self.ray.remote(ray_node.sweep)
            .options(num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False))
            .remote(delay)
        )

    def _sweep_all(self, delay: float) -> list[Any]:
        return [self._sweep_on(n["NodeID"], delay=delay) for n in self.ray.nodes() if n["Alive"]]

    def _report_sweep(self, refs: list[Any]) -> None:
        for ref in refs:
            try:
                removed = self.ray.get(ref, timeout=120)
            except Exception as error:  # a node lost meanwhile: its sandboxes went with it
                self.note(f"ray: a node's sandbox sweep failed: {type(error).__name__}")
                continue
            if removed:
                self.note(f"ray: removed {len(removed)} sandbox(es) left by dead workers")
