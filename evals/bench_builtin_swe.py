"""The built-in repair engine on repofix's bundled SWE-style tasks (task_specs/swe/*).

Each task's repository is copied to a temporary folder, its test patch applied (the engine must
see failing tests to start), and `repair()` runs with the task's FAIL_TO_PASS / PASS_TO_PASS.
The grade is SWE-bench's: the patch is applied to a fresh copy and every FAIL_TO_PASS and
PASS_TO_PASS test must pass. Those tests are the ones the engine saw, so "resolved" here means
plausible; the gold patch is never read.

Baseline, same run: no patch at all (what the FAIL_TO_PASS tests give without a repair).

    python evals/bench_builtin_swe.py [--backend bwrap] [--seconds S]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from repofix.repair import Budget, repair  # noqa: E402
from repofix.sandboxes import open_sandbox  # noqa: E402

TASKS = ROOT / "task_specs" / "swe"


def prepare(task_dir: Path, spec: dict, into: Path) -> Path:
    repo = into / "repo"
    shutil.copytree(task_dir / spec["repo"]["path"], repo)
    subprocess.run(["git", "apply", str(task_dir / spec["test_patch"])], cwd=repo, check=True)
    return repo


def grade(repo: Path, spec: dict, files: dict[str, str]) -> bool:
    for path, text in files.items():
        (repo / path).write_text(text)
    tests = spec["FAIL_TO_PASS"] + spec["PASS_TO_PASS"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return done.returncode == 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="bwrap")
    parser.add_argument("--seconds", type=float, default=45.0)
    parser.add_argument("--candidates", type=int, default=600)
    parser.add_argument("--out", type=Path, default=ROOT / "evals" / "results" / "bench_builtin_swe.md")
    args = parser.parse_args()
    budget = Budget(max_candidates=args.candidates, max_seconds=args.seconds)
    rows = []
    for task_dir in sorted(p for p in TASKS.iterdir() if (p / "task.yaml").is_file()):
        spec = yaml.safe_load((task_dir / "task.yaml").read_text())
        with tempfile.TemporaryDirectory(prefix="swe-") as tmp:
            repo = prepare(task_dir, spec, Path(tmp))
            baseline_ok = grade(repo, spec, {})
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with open_sandbox(repo, backend=args.backend) as sandbox:
                    started = time.monotonic()
                    result = repair(sandbox, spec["FAIL_TO_PASS"], spec["PASS_TO_PASS"], budget)
                    seconds = time.monotonic() - started
            resolved = result.fixed and grade(repo, spec, result.files)
        rows.append(
            {
                "id": spec["id"],
                "resolved": resolved,
                "baseline": baseline_ok,
                "status": result.status,
                "tried": result.candidates_tried,
                "seconds": seconds,
                "what": result.message,
            }
        )
        print(
            f"{spec['id']:<32} {'RESOLVED' if resolved else result.status:<11} {result.candidates_tried:>4} "
            f"{seconds:6.1f}s  {result.message[:70]}",
            flush=True,
        )
    resolved = sum(r["resolved"] for r in rows)
    lines = [
        f"# Built-in repair engine on the bundled SWE-style tasks ({len(rows)} tasks)",
        "",
        f"Backend `{args.backend}`, budget {args.candidates} candidates / {args.seconds:.0f} s per task, run "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. Graded SWE-bench style on FAIL_TO_PASS + "
        "PASS_TO_PASS (the tests the engine saw, so resolved = plausible).",
        "",
        "| task | resolved | status | candidates | seconds | patch |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    lines += [
        f"| {r['id']} | {'yes' if r['resolved'] else 'no'} | {r['status']} | {r['tried']} | "
        f"{r['seconds']:.1f} | {r['what'].replace('|', '/')[:80]} |"
        for r in rows
    ]
    baseline = sum(r["baseline"] for r in rows)
    lines += [
        "",
        f"Resolved {resolved}/{len(rows)}; baseline (no patch) {baseline}/{len(rows)}; median "
        f"{statistics.median(r['seconds'] for r in rows):.1f} s per task.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    tmp = args.out.with_suffix(".tmp")
    tmp.write_text(text)
    tmp.replace(args.out)


if __name__ == "__main__":
    main()
