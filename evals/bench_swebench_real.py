"""Eval overhead on real SWE-bench rows (issue 18): per task, repofix's `--gold` grading time at
-j 1 (image already built) against the same test command run directly in the same environment
image (a warm container, `docker exec`), both measured in this run; then where the time goes,
one grading taken step by step with the grader's own functions.

    python evals/bench_swebench_real.py ROWS.jsonl --mirror DIR [--ids ID ...] [--out FILE]

ROWS are SWE-bench rows with an environment (the repositories come from the mirror folder; nothing
of them is committed)."""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from repofix.evaluation import build_outputs  # noqa: E402
from repofix.evaluation.candidates import GoldSource  # noqa: E402
from repofix.evaluation.environments import Environments  # noqa: E402
from repofix.evaluation.grading import judge, run_task_tests  # noqa: E402
from repofix.evaluation.patching import apply_patch, restore, save_files, test_files  # noqa: E402
from repofix.evaluation.progress import Progress  # noqa: E402
from repofix.evaluation.repositories import checkout  # noqa: E402
from repofix.evaluation.runner import RunOptions, run_evaluation  # noqa: E402
from repofix.evaluation.store import ResultsStore  # noqa: E402
from repofix.evaluation.swebench_verdict import judge_log, parser_name, test_command  # noqa: E402
from repofix.sandboxes import Limits  # noqa: E402
from repofix.tasks import Task, load_tasks  # noqa: E402

warnings.simplefilter("ignore")
STEPS = (
    "checkout",
    "patches",
    "sandbox start (tree copied in)",
    "tests",
    "verdict",
    "sandbox stop",
    "cleanup",
)


def gold_tree(task: Task, dest: Path, mirror: Path, environments: Environments) -> Path:
    """The tree the tests run on under --gold (the image is built from the clean checkout first)."""
    tree = checkout(task, dest / "tree", mirror=mirror)
    environments.prepare(task, tree)
    save_files(tree, dest / "originals", test_files(task))
    apply_patch(tree, task.patch or "")
    restore(tree, dest / "originals", test_files(task))
    if task.test_patch:
        apply_patch(tree, task.test_patch)
    return tree


def bare_seconds(task: Task, tree: Path, image: str) -> float:
    """The row's test command run directly in a warm container of the same image, the tree at
    /workspace where the image's editable installs point (as in the sandbox)."""
    container = subprocess.run(
        ["docker", "run", "-d", "--rm", "--network", "none", "--entrypoint", "sleep", image, "infinity"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    try:
        subprocess.run(
            ["docker", "cp", f"{tree}/.", f"{container}:/workspace"], check=True, capture_output=True
        )
        subprocess.run(
            ["docker", "exec", "-u", "0", container, "chown", "-R", "1000:1000", "/workspace"], check=True
        )
        started = time.perf_counter()
        done = subprocess.run(
            [
                "docker",
                "exec",
                "-u",
                "1000:1000",
                "-w",
                "/workspace",
                container,
                "sh",
                "-c",
                test_command(task),
            ],
            capture_output=True,
            text=True,
        )
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            print(f"warning: {task.id}: exit {done.returncode}:\n{done.stdout[-500:]}", file=sys.stderr)
        return seconds
    finally:
        subprocess.run(["docker", "rm", "-f", container], capture_output=True)


def steps(task: Task, scratch: Path, mirror: Path, environments: Environments) -> dict[str, float]:
    """One --gold grading, the grader's steps timed one by one."""
    times: dict[str, float] = {}
    clock = [time.perf_counter()]

    def tick(name: str) -> None:
        now = time.perf_counter()
        times[name] = times.get(name, 0.0) + now - clock[0]
        clock[0] = now

    tree = checkout(task, scratch / "tree", mirror=mirror)
    tick("checkout")
    environments.prepare(task, tree)
    save_files(tree, scratch / "originals", test_files(task))
    apply_patch(tree, task.patch or "")
    restore(tree, scratch / "originals", test_files(task))
    if task.test_patch:
        apply_patch(tree, task.test_patch)
    tick("patches")
    sandbox = environments.sandbox(task, tree, tree)
    box = sandbox.__enter__()
    tick("sandbox start (tree copied in)")
    run = run_task_tests(box, task, timeout=900, log_dir=scratch / "logs")
    tick("tests")
    judge(task, run)
    name = parser_name(task)
    if name:
        judge_log(task, run, name)
    tick("verdict")
    sandbox.__exit__(None, None, None)
    tick("sandbox stop")
    shutil.rmtree(scratch, ignore_errors=True)
    tick("cleanup")
    return times


def grade_all(tasks: list[Task], scratch: Path, mirror: Path) -> dict:
    out = scratch / "run"
    environments = Environments("docker", Limits(cpus=2.0), out / "logs")
    with ResultsStore(out) as store:
        run_evaluation(
            tasks,
            GoldSource(),
            store,
            environments,
            out,
            RunOptions(jobs=1, timeout=900, mirror=mirror),
            Progress(len(tasks), quiet=True),
        )
        return store.latest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=Path)
    parser.add_argument("--mirror", type=Path, required=True)
    parser.add_argument("--ids", nargs="*", help="only these instances")
    parser.add_argument("--out", type=Path, default=ROOT / "evals" / "results" / "bench_swebench_real.md")
    args = parser.parse_args()
    tasks = [t for t in load_tasks([args.rows]) if not args.ids or t.id in args.ids]
    environments = Environments("docker", Limits(cpus=2.0), Path(tempfile.gettempdir()) / "bench-swe-logs")
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-swe-") as folder:
        scratch = Path(folder)
        bare = {}
        for number, task in enumerate(tasks):  # builds the images (not timed), then the baseline
            tree = gold_tree(task, scratch / f"bare-{number}", args.mirror, environments)
            image = environments.image_for(task, tree)
            if task.environment.setup:  # what the install built in the tree, as the sandbox gets it
                build_outputs.lay_onto(tree, build_outputs.fetch(image, None))
            bare[task.id] = bare_seconds(task, tree, image)
        results = grade_all(tasks, scratch, args.mirror)
        split = [steps(t, scratch / f"steps-{n}", args.mirror, environments) for n, t in enumerate(tasks)]
    load = (load_before, os.getloadavg()[0])
    text = table(tasks, bare, results, split, load, " ".join(sys.argv[1:]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(text)


def table(tasks, bare, results, split, load, command) -> str:
    mean: Callable = statistics.mean
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Eval overhead on real SWE-bench rows",
        "",
        f"`python evals/bench_swebench_real.py {command}`; {stamp}; Docker sandboxes, images built "
        f"before timing; 2-core machine shared with other jobs (1-minute load average {load[0]:.1f} "
        f"before, {load[1]:.1f} after).",
        "",
        "| instance | verdict | repofix grading s (-j 1) | of which tests in sandbox s | "
        "baseline: bare test command, warm container s | overhead s | ratio |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    overheads = []
    for task in tasks:
        result = results[task.id]
        overhead = result.grade_seconds - bare[task.id]
        overheads.append(overhead)
        lines.append(
            f"| {task.id} | {result.status.value} | {result.grade_seconds:.2f} | {result.test_seconds:.2f} | "
            f"{bare[task.id]:.2f} | {overhead:.2f} | {result.grade_seconds / bare[task.id]:.2f}x |"
        )
    lines += [
        "",
        f"Overhead: mean {mean(overheads):.2f} s, median {statistics.median(overheads):.2f} s, "
        f"max {max(overheads):.2f} s (target <= 3 s).",
        "",
        "Where the time goes (one more --gold grading per task, its steps timed; mean over the tasks):",
        "",
        "| step | mean s |",
        "| --- | ---: |",
    ]
    lines += [f"| {name} | {mean(s.get(name, 0.0) for s in split):.2f} |" for name in STEPS]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
