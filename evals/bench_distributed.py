"""Distributed evaluation benchmark (issue 21): throughput of `--executor ray` with N task slots
against the local executor with `-j N`, both measured in this run on this machine (a real local
Ray cluster of one node with N CPUs, real Docker sandboxes, `--gold` on the bundled tasks), runs
interleaved (local, ray, local, ray, ...) so that the machine's load hits both alike; then a model
of a 500-task evaluation on K nodes from the measured per-task times, its assumptions written out.

    python evals/bench_distributed.py [--jobs 2] [--rounds 2] [--out evals/results/bench_distributed.md]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
import time
import warnings
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from repofix.evaluation.candidates import GoldSource  # noqa: E402
from repofix.evaluation.environments import Environments  # noqa: E402
from repofix.evaluation.progress import Progress  # noqa: E402
from repofix.evaluation.ray_executor import RayExecutor  # noqa: E402
from repofix.evaluation.runner import RunOptions, run_evaluation  # noqa: E402
from repofix.evaluation.store import ResultsStore  # noqa: E402
from repofix.sandboxes import Limits  # noqa: E402
from repofix.tasks import load_tasks  # noqa: E402
from tests.ray_cluster import LocalRayCluster  # noqa: E402

warnings.simplefilter("ignore")

# The model's assumptions (not measured here): a SWE-bench Verified-like evaluation with an agent.
MODEL_TASKS = 500
AGENT_SECONDS = 300.0  # one agent run per task (minutes each, as the issue says)
SWE_TEST_SECONDS = 60.0  # a SWE-bench test run, in place of the bundled tasks' ~1 s
ENVIRONMENTS = 60  # distinct environment images among the 500 tasks
BUILD_SECONDS = 300.0  # one environment image build
SLOTS_PER_NODE = 8  # an 8-core node, 1 CPU per task
NODES = [1, 2, 4, 8, 16]


def one_run(kind: str, tasks, jobs: int, folder: Path, address: str) -> dict:
    out = folder / f"{kind}-{time.monotonic_ns()}"
    limits = Limits(cpus=1.0)
    environments = Environments("docker", limits, out / "logs")
    executor = None
    if kind == "ray":
        executor = RayExecutor(address, "docker", limits, out, slots=jobs, note=lambda line: None)
    progress = Timed(len(tasks), quiet=True)
    started = time.monotonic()
    with ResultsStore(out) as store:
        outcome = run_evaluation(
            tasks,
            GoldSource(),
            store,
            environments,
            out,
            RunOptions(jobs=jobs, timeout=300),
            progress,
            executor,
        )
        results = list(store.latest().values())
    wall = time.monotonic() - started
    assert outcome.graded == len(tasks) and all(r.resolved for r in results), [r.detail for r in results]
    span = progress.times[-1] - progress.times[0]  # first to last result: the steady state
    return {
        "wall": wall,
        "grade": statistics.mean(r.grade_seconds for r in results),
        "first": progress.times[0] - started,
        "steady": 60 * (len(tasks) - 1) / span,
        "resolved": sum(r.resolved for r in results),
        "tasks": len(tasks),
    }


class Timed(Progress):
    """Progress that notes when each result arrives."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.times: list[float] = []

    def finished(self, result, *, replaces=None) -> None:
        self.times.append(time.monotonic())
        super().finished(result, replaces=replaces)


def model_rows(task_seconds: float, overhead_ratio: float, fixed_seconds: float) -> list[str]:
    """Wall time of MODEL_TASKS tasks on K nodes: a fixed start, each node's image builds spread
    over its slots, then the tasks in waves of K * SLOTS_PER_NODE, each slowed by Ray's overhead."""
    rows = []
    per_task = (AGENT_SECONDS + SWE_TEST_SECONDS + task_seconds) * (1 + overhead_ratio)
    one_node = None
    for k in NODES:
        builds = min(ENVIRONMENTS, math.ceil(MODEL_TASKS / k)) * BUILD_SECONDS / SLOTS_PER_NODE
        waves = math.ceil(MODEL_TASKS / (k * SLOTS_PER_NODE))
        wall = fixed_seconds + builds + waves * per_task
        one_node = one_node or wall
        rows.append(
            f"| {k} | {k * SLOTS_PER_NODE} | {builds / 60:.0f} | {waves} | {wall / 3600:.2f} | "
            f"{one_node / wall:.1f}x | {100 * one_node / wall / k:.0f}% |"
        )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "evals" / "results" / "bench_distributed.md")
    args = parser.parse_args()
    tasks = load_tasks([ROOT / "task_specs" / "swe"])
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-distributed-") as scratch:
        folder = Path(scratch)
        cluster = LocalRayCluster(folder / "cluster", cpus=args.jobs)
        try:
            started = time.monotonic()
            cluster.start_node({"bench_node": 1})
            cluster_seconds = time.monotonic() - started
            os.environ["REPOFIX_RAY_STATE"] = str(cluster.state)
            runs: dict[str, list[dict]] = {"local": [], "ray": []}
            for _ in range(args.rounds):
                for kind in ("local", "ray"):
                    runs[kind].append(one_run(kind, tasks, args.jobs, folder, cluster.address))
                    print(f"{kind}: {runs[kind][-1]['wall']:.1f}s", file=sys.stderr)
        finally:
            cluster.stop()
    load_after = os.getloadavg()[0]
    rate = {kind: statistics.mean(60 * r["tasks"] / r["wall"] for r in rs) for kind, rs in runs.items()}
    steady = {kind: statistics.mean(r["steady"] for r in rs) for kind, rs in runs.items()}
    first = {kind: statistics.mean(r["first"] for r in rs) for kind, rs in runs.items()}
    grade = {kind: statistics.mean(r["grade"] for r in rs) for kind, rs in runs.items()}
    wall = {kind: statistics.mean(r["wall"] for r in rs) for kind, rs in runs.items()}
    overhead = rate["local"] / rate["ray"] - 1
    steady_overhead = steady["local"] / steady["ray"] - 1
    fixed = max(0.0, first["ray"] - first["local"])  # joining the cluster, starting its workers
    lines = [
        "# Distributed evaluation benchmark",
        "",
        f"`python evals/bench_distributed.py --jobs {args.jobs} --rounds {args.rounds}`; {len(tasks)} bundled tasks, "
        f"`--gold`, Docker sandboxes; {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; a 2-core machine shared "
        f"with other jobs (1-minute load average {load_before:.1f} before, {load_after:.1f} after). Ray: one local "
        f"node with {args.jobs} CPUs started with `ray start` ({cluster_seconds:.0f} s, not counted); each run "
        "includes joining the cluster, the start and end sweeps and starting its worker processes.",
        "",
        f"| executor ({args.jobs} task slots) | wall s per run (mean of {args.rounds}) | tasks/min, whole run | "
        "s to the first result | tasks/min, first to last result | mean grading s per task | resolved |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for kind in ("local", "ray"):
        resolved = sum(r["resolved"] for r in runs[kind])
        lines.append(
            f"| {kind} | {wall[kind]:.1f} | {rate[kind]:.1f} | {first[kind]:.1f} | {steady[kind]:.1f} | "
            f"{grade[kind]:.2f} | {resolved}/{len(tasks) * args.rounds} |"
        )
    lines += [
        "",
        f"**Overhead of going through Ray, steady state (first to last result): {100 * steady_overhead:+.1f}% "
        f"in tasks/min** (target <= 10%). Whole runs, start included: {100 * overhead:+.1f}% "
        f"({wall['ray'] - wall['local']:+.1f} s per run; the first result comes {fixed:.1f} s later: joining "
        "the cluster and starting worker processes, paid once per evaluation).",
        "",
        "Every run, per executor: "
        + "; ".join(
            f"{kind} " + ", ".join(f"{r['wall']:.1f}" for r in rs) + " s" for kind, rs in runs.items()
        )
        + ".",
        "",
        f"## Model: {MODEL_TASKS} tasks on K nodes",
        "",
        "Assumptions (not measured here): an agent run of "
        f"{AGENT_SECONDS:.0f} s per task, a SWE-bench test run of {SWE_TEST_SECONDS:.0f} s, {ENVIRONMENTS} distinct "
        f"environment images of {BUILD_SECONDS:.0f} s each, built once on every node that needs them (at most one "
        f"per task it runs), {SLOTS_PER_NODE} slots per node (1 CPU per task), tasks of equal length packed in "
        "full waves, no node lost. Measured here and used: the grading harness's own time per task "
        f"({grade['ray']:.2f} s), Ray's steady-state overhead ({100 * steady_overhead:+.1f}%, applied to every task "
        f"when positive) and its start ({fixed:.1f} s, counted once).",
        "",
        "| nodes K | slots | image builds per node (min) | waves | wall (h) | speed-up vs 1 node | efficiency |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        *model_rows(grade["ray"], max(steady_overhead, 0.0), fixed),
        "",
        "Builds stop scaling first: every node builds the images of the tasks it gets, so with many nodes "
        "each environment is built several times (a shared registry would remove that; not modelled).",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
