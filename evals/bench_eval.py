"""Evaluation benchmark (issue 7): `--gold` on the bundled tasks, per-task time of the harness
minus the time of running the same tests directly with pytest in the same image (a warm
container, `docker exec`), measured in this run; and the speed-up of -j 2 over -j 1.

    python evals/bench_eval.py [--hef 10] [--out evals/results/bench_eval.md]

Overhead is everything the harness adds around the test command: preparing the tree
(materialize, patches), starting and removing the sandbox, copying the tree in, the JUnit
report and the done rule. The baseline's tree is prepared the same way, outside the timing."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
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
from repofix.evaluation.patching import apply_patch, restore, test_files  # noqa: E402
from repofix.evaluation.progress import Progress  # noqa: E402
from repofix.evaluation.runner import RunOptions, run_evaluation  # noqa: E402
from repofix.evaluation.store import ResultsStore  # noqa: E402
from repofix.sandboxes import Limits  # noqa: E402
from repofix.sandboxes.docker import DEFAULT_IMAGE  # noqa: E402
from repofix.tasks import Task, load_tasks, materialize  # noqa: E402

warnings.simplefilter("ignore")


def prepared_tree(task: Task, dest: Path) -> Path:
    """The tree the tests run on under --gold: base + gold patch, tests restored, test patch."""
    base, tree = dest / "base", dest / "tree"
    materialize(task, base)
    materialize(task, tree)
    apply_patch(tree, task.patch or "")
    restore(tree, base, test_files(task))
    if task.test_patch:
        apply_patch(tree, task.test_patch)
    return tree


def baseline_seconds(tasks: list[Task], scratch: Path) -> tuple[dict[str, float], float, float]:
    """pytest run directly in the same image, in one warm container (no sandbox start per task):
    per-task seconds, then the wall time of all of them one at a time and two at a time (the
    speed-up this machine allows right now, the ceiling for the harness's -j 2)."""
    from concurrent.futures import ThreadPoolExecutor

    container = subprocess.run(
        [
            "docker",
            "run",
            "-d",
            "--rm",
            "--network",
            "none",
            "--user",
            "1000:1000",
            "--entrypoint",
            "sleep",
            DEFAULT_IMAGE,
            "infinity",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    times: dict[str, float] = {}

    def run(number_task: tuple[int, Task]) -> None:
        number, task = number_task
        started = time.perf_counter()
        done = subprocess.run(
            [
                "docker",
                "exec",
                "-w",
                f"/tmp/task-{number}",
                container,
                "sh",
                "-c",
                f"{task.test_cmd} -p no:cacheprovider",
            ],
            capture_output=True,
            text=True,
        )
        times[task.id] = time.perf_counter() - started
        if done.returncode != 0:
            print(f"warning: {task.id}: tests fail when run directly:\n{done.stdout[-500:]}", file=sys.stderr)

    try:
        for number, task in enumerate(tasks):
            tree = prepared_tree(task, scratch / f"baseline-{number}")
            subprocess.run(
                ["docker", "cp", f"{tree}/.", f"{container}:/tmp/task-{number}"],
                check=True,
                capture_output=True,
            )
        walls = []
        for jobs in (2, 1):  # the sequential pass last: its per-task times are the ones kept
            started = time.perf_counter()
            with ThreadPoolExecutor(jobs) as pool:
                list(pool.map(run, enumerate(tasks)))
            walls.append(time.perf_counter() - started)
    finally:
        subprocess.run(["docker", "rm", "-f", container], capture_output=True)
    return times, walls[1], walls[0]


def evaluate(tasks: list[Task], jobs: int, scratch: Path) -> tuple[float, dict]:
    out = scratch / f"run-j{jobs}"
    environments = Environments("docker", Limits(cpus=1.0 if jobs > 1 else 2.0), out / "logs")
    started = time.perf_counter()
    with ResultsStore(out) as store:
        run_evaluation(
            tasks,
            GoldSource(),
            store,
            environments,
            out,
            RunOptions(jobs=jobs, timeout=300),
            Progress(len(tasks), quiet=True),
        )
        wall = time.perf_counter() - started
        return wall, store.latest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hef", type=int, default=10, help="HumanEvalFix tasks added to the SWE-style set")
    parser.add_argument("--out", type=Path, default=ROOT / "evals" / "results" / "bench_eval.md")
    args = parser.parse_args()
    tasks = load_tasks([ROOT / "task_specs" / "swe"])
    if args.hef:
        tasks += load_tasks([ROOT / "task_specs" / "humanevalfix.yaml"])[: args.hef]
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-eval-") as folder:
        scratch = Path(folder)
        # Warm-up: the first container start on a cold engine is not what a run of many pays.
        evaluate(tasks[:1], 1, scratch / "warmup")
        base, direct1, direct2 = baseline_seconds(tasks, scratch)
        wall1, results1 = evaluate(tasks, 1, scratch)
        wall2, results2 = evaluate(tasks, 2, scratch)
    load = (load_before, os.getloadavg()[0])
    text = table(tasks, base, (direct1, direct2), wall1, results1, wall2, results2, args, load)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(text)


def table(tasks, base, direct_walls, wall1, results1, wall2, results2, args, load) -> str:
    ids = [t.id for t in tasks]
    grade = [results1[i].grade_seconds for i in ids]
    tests = [results1[i].test_seconds for i in ids]
    direct = [base[i] for i in ids]
    overhead = [g - d for g, d in zip(grade, direct, strict=True)]
    mean, median = statistics.mean, statistics.median
    resolved1 = sum(r.resolved for r in results1.values())
    resolved2 = sum(r.resolved for r in results2.values())
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Evaluation benchmark",
        "",
        f"`python evals/bench_eval.py --hef {args.hef}`; {len(tasks)} tasks (bundled SWE-style set + "
        f"{args.hef} HumanEvalFix), `--gold`, Docker sandbox; {stamp}; 2-core machine shared with other jobs "
        f"(1-minute load average {load[0]:.1f} before, {load[1]:.1f} after).",
        "",
        "| per task | mean s | median s |",
        "| --- | ---: | ---: |",
        f"| repofix grading (-j 1): prepare, sandbox, tests, verdict | {mean(grade):.2f} | {median(grade):.2f} |",
        f"| of which the test command inside the sandbox | {mean(tests):.2f} | {median(tests):.2f} |",
        f"| baseline: same tests run directly with pytest in the same image (warm container) | "
        f"{mean(direct):.2f} | {median(direct):.2f} |",
        f"| **overhead** (grading minus baseline) | **{mean(overhead):.2f}** | **{median(overhead):.2f}** |",
        "",
        "| whole set | -j 1 | -j 2 | speed-up |",
        "| --- | ---: | ---: | ---: |",
        f"| repofix eval --gold: wall time (s) | {wall1:.1f} | {wall2:.1f} | {wall1 / wall2:.2f}x |",
        f"| baseline: the bare pytest runs, 1 or 2 at a time (s) | {direct_walls[0]:.1f} | {direct_walls[1]:.1f} | "
        f"{direct_walls[0] / direct_walls[1]:.2f}x |",
        f"| resolved | {resolved1}/{len(tasks)} | {resolved2}/{len(tasks)} | |",
        "",
        "The bare runs' speed-up is what this machine allowed two parallel jobs while the benchmark ran;",
        "the harness's speed-up is judged against it.",
        "",
        "Targets (issue 7): overhead <= 3 s per task at -j 1; near-linear speed-up to -j 2 on 2 cores.",
        "",
        "| task | grading s | tests in sandbox s | baseline s | overhead s |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for i, g, t, d in zip(ids, grade, tests, direct, strict=True):
        lines.append(f"| {i} | {g:.2f} | {t:.2f} | {d:.2f} | {g - d:.2f} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
