"""Benchmark of the built-in repair engine on HumanEvalFix (Python, 164 tasks).

Each row becomes a tiny repository in a temporary folder (never in this repository):
`solution.py` = prompt + buggy solution, `test_solution.py` = the row's test with one pytest test
calling `check(entry_point)`. The engine repairs it through a real sandbox.

Honesty: in HumanEvalFix the visible test IS the hidden `check`, so "plausible" (the failing test
passes) and "passes check" coincide. To catch overfitting, every plausible patch is also compared
with the canonical solution on extra inputs derived from the test's own calls (integers +-1, strings
and lists shortened or reversed...); a patch that disagrees is counted plausible-but-wrong.
`--visible examples` is the held-out mode: the engine sees only the docstring examples and the
patch is graded with the full `check`.

Baseline, measured in the same run on a deterministic subset: the same operators tried in plain
source order (no fault-localization ranking, no operator priors).

    python evals/bench_builtin.py [--backend bwrap] [--limit N] [--stride K] [--seconds S]
"""

from __future__ import annotations

import argparse
import ast
import json
import statistics
import sys
import tempfile
import time
import warnings
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from repofix.repair import Budget, repair  # noqa: E402
from repofix.sandboxes import open_sandbox  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "humanevalfix" / "humanevalpack_python.jsonl"


def strip_call(test: str) -> str:
    """The row's test without its module-level `check(...)` call."""
    tree = ast.parse(test)
    lines = test.splitlines(keepends=True)
    for node in reversed(tree.body):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and getattr(node.value.func, "id", "") == "check"
        ):
            del lines[node.lineno - 1 : node.end_lineno]
    return "".join(lines)


def make_task(row: dict, folder: Path, visible: str) -> None:
    # The sandbox Python here also carries hypothesis and pytest-benchmark, whose pytest plugins
    # cost seconds to import and which these tasks never use; a project's own venv would not have them.
    (folder / "pytest.ini").write_text("[pytest]\naddopts = -p no:hypothesispytest -p no:benchmark\n")
    (folder / "solution.py").write_text(row["prompt"] + row["buggy_solution"])
    test = row["test"] if visible == "check" else row["example_test"]
    (folder / "test_solution.py").write_text(
        "from solution import *  # noqa\n"
        + strip_call(test)
        + f"\n\ndef test_check():\n    check({row['entry_point']})\n"
    )


def passes_hidden(row: dict, source: str) -> bool:
    """Grade a repaired solution with the row's full check, in a fresh interpreter."""
    import subprocess

    code = source + "\n" + row["test"]
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=30)
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0


EQUIV = r"""
import ast, copy, json, math, signal, sys
req = json.loads(sys.stdin.read())
def load(src):
    ns = {}
    exec(src, ns)
    return ns[req["entry"]]
canon, patched = load(req["canonical"]), load(req["patched"])
tree = ast.parse(req["test"])
check = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "check")
param = check.args.args[0].arg
inputs = []
for node in ast.walk(check):
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == param:
        try:
            inputs.append([ast.literal_eval(a) for a in node.args])
        except Exception:
            pass
def variants(v):
    if isinstance(v, bool):
        return [not v]
    if isinstance(v, int):
        return [v + 1, v - 1, v * 2, 0]
    if isinstance(v, float):
        return [v + 0.5, v * 2]
    if isinstance(v, str):
        return [v[::-1], v[1:], v + v[:1], v.upper()]
    if isinstance(v, list):
        return [v[::-1], v[:-1], v + v[:1]]
    return []
extra = []
for args in inputs:
    for i, a in enumerate(args):
        for w in variants(a):
            extra.append(args[:i] + [w] + args[i + 1:])
def call(f, args):
    signal.alarm(2)
    try:
        return ("ok", f(*copy.deepcopy(args)))
    except BaseException as e:
        return ("error", type(e).__name__)
    finally:
        signal.alarm(0)
def same(a, b):
    if isinstance(a, float) or isinstance(b, float):
        try:
            return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)
        except TypeError:
            return False
    return a == b
checked = 0
for args in inputs + extra[:400]:
    want = call(canon, args)
    if want[0] != "ok":
        continue
    checked += 1
    got = call(patched, args)
    if got[0] != "ok" or not same(got[1], want[1]):
        print(json.dumps({"same": False, "checked": checked, "input": repr(args)[:200]}))
        sys.exit(0)
print(json.dumps({"same": True, "checked": checked}))
"""


def behaves_like_canonical(row: dict, source: str) -> tuple[bool, int]:
    """Compare the repaired function with the canonical one on the test's inputs and variations."""
    import subprocess

    request = {
        "entry": row["entry_point"],
        "canonical": row["prompt"] + row["canonical_solution"],
        "patched": source,
        "test": row["test"],
    }
    try:
        done = subprocess.run(
            [sys.executable, "-c", EQUIV],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            timeout=120,
        )
        verdict = json.loads(done.stdout.strip().splitlines()[-1])
    except (subprocess.TimeoutExpired, IndexError, ValueError):
        return False, 0
    return verdict["same"], verdict["checked"]


def run_task(row: dict, backend: str, budget: Budget, visible: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="hefix-") as tmp:
        folder = Path(tmp)
        make_task(row, folder, visible)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with open_sandbox(folder, backend=backend) as sandbox:
                started = time.monotonic()
                result = repair(sandbox, ["test_solution.py::test_check"], [], budget)
                seconds = time.monotonic() - started
    record = {
        "task_id": row["task_id"],
        "bug_type": row["bug_type"],
        "status": result.status,
        "tried": result.candidates_tried,
        "seconds": round(seconds, 2),
        "patch": result.patch_diff,
        "description": result.message,
        "outcome": "not found",
    }
    if result.status == "no_failures":
        record["outcome"] = "no failure"
    elif result.status == "ambiguous":  # plausible patches the tests cannot tell apart: none claimed
        record["outcome"] = "ambiguous"
    elif result.fixed:
        source = result.files["solution.py"]
        if not passes_hidden(row, source):
            record["outcome"] = "plausible, fails hidden"
        else:
            same, checked = behaves_like_canonical(row, source)
            record["extra_inputs"] = checked
            record["outcome"] = "fixed" if same else "plausible but wrong"
    return record


def table(records: list[dict]) -> str:
    """Per bug type. "fixed" = passes check and agrees with the canonical solution on every extra
    input we could derive; "unverified" counts fixed tasks whose test had no literal inputs to vary."""
    out = [
        "| bug type | tasks | fixed | of which unverified | plausible but wrong | not found | median s | "
        "median candidates |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    groups = defaultdict(list)
    for r in records:
        groups[r["bug_type"]].append(r)
    for name, rows in sorted(groups.items()) + [("**all**", records)]:
        c = Counter(r["outcome"] for r in rows)
        wrong = c["plausible but wrong"] + c["plausible, fails hidden"]
        unverified = sum(r["outcome"] == "fixed" and not r.get("extra_inputs") for r in rows)
        out.append(
            f"| {name} | {len(rows)} | {c['fixed']} ({100 * c['fixed'] / len(rows):.0f}%) | {unverified} | "
            f"{wrong} | "
            f"{c['not found'] + c['no failure']} | {statistics.median(r['seconds'] for r in rows):.1f} | "
            f"{statistics.median(r['tried'] for r in rows):.0f} |"
        )
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="bwrap")
    parser.add_argument("--limit", type=int, default=0, help="only the first N rows (after --stride)")
    parser.add_argument("--stride", type=int, default=1, help="every K-th row (a deterministic subset)")
    parser.add_argument("--seconds", type=float, default=60.0, help="time budget per task")
    parser.add_argument("--candidates", type=int, default=600, help="candidate budget per task")
    parser.add_argument(
        "--baseline-stride", type=int, default=8, help="baseline subset: every K-th row; 0: none"
    )
    parser.add_argument("--visible", choices=["check", "examples"], default="check")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "bench_builtin.md")
    parser.add_argument("--jsonl", type=Path, default=None, help="per-task records")
    parser.add_argument(
        "--from-jsonl", type=Path, default=None, help="only print the table of recorded records"
    )
    args = parser.parse_args()
    if args.from_jsonl:
        print(table([json.loads(line) for line in args.from_jsonl.read_text().splitlines() if line.strip()]))
        return
    rows = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()][:: args.stride]
    if args.limit:
        rows = rows[: args.limit]
    budget = Budget(max_candidates=args.candidates, max_seconds=args.seconds)
    records = []
    for row in rows:
        record = run_task(row, args.backend, budget, args.visible)
        records.append(record)
        print(
            f"{record['task_id']:>12} {record['bug_type']:<16} {record['outcome']:<22} {record['tried']:>4} "
            f"{record['seconds']:>6.1f}s  {record['description'][:70]}",
            flush=True,
        )
        if args.jsonl:
            with args.jsonl.open("a") as handle:
                handle.write(json.dumps(record) + "\n")
    report = [
        f"# Built-in repair engine on HumanEvalFix ({len(records)} tasks, visible test: {args.visible})",
        "",
        f"Backend `{args.backend}`, budget {args.candidates} candidates / {args.seconds:.0f} s per task, "
        f"run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.",
        "",
        table(records),
    ]
    if args.baseline_stride:
        report += ["", baseline(rows[:: args.baseline_stride], records, args, budget)]
    text = "\n".join(report) + "\n"
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    tmp.write_text(text)
    tmp.replace(args.out)


def baseline(rows: list[dict], records: list[dict], args: argparse.Namespace, budget: Budget) -> str:
    from dataclasses import replace

    plain = replace(budget, ordered=False)
    by_id = {r["task_id"]: r for r in records}
    ours = [by_id[row["task_id"]] for row in rows]
    theirs = [run_task(row, args.backend, plain, args.visible) for row in rows]
    if args.jsonl:
        with args.jsonl.with_suffix(".baseline.jsonl").open("a") as handle:
            handle.writelines(json.dumps(r) + "\n" for r in theirs)
    fixed_ours = sum(r["outcome"] == "fixed" for r in ours)
    fixed_theirs = sum(r["outcome"] == "fixed" for r in theirs)
    both = [(a, b) for a, b in zip(ours, theirs, strict=True) if a["status"] == b["status"] == "plausible"]
    med = statistics.median

    def median_of(values: list[float]) -> float:
        return med(values) if values else float("nan")

    ours_c, theirs_c = median_of([a["tried"] for a, _ in both]), median_of([b["tried"] for _, b in both])
    ours_s, theirs_s = median_of([a["seconds"] for a, _ in both]), median_of([b["seconds"] for _, b in both])
    return "\n".join(
        [
            f"## Against a baseline on {len(rows)} tasks (every {args.baseline_stride}th), same run",
            "",
            f"Candidates and seconds are medians over the {len(both)} tasks both orderings repaired "
            "(a task nobody repairs just spends the budget either way).",
            "",
            "| ordering | fixed | median candidates | median s |",
            "| --- | --- | --- | --- |",
            f"| plain source order (baseline) | {fixed_theirs} | {theirs_c:.0f} | {theirs_s:.1f} |",
            f"| localization x priors (engine) | {fixed_ours} | {ours_c:.0f} | {ours_s:.1f} |",
            "",
            f"Ratio engine / baseline: fixed {fixed_ours / max(1, fixed_theirs):.2f}x, median candidates "
            f"{ours_c / max(1, theirs_c):.2f}x, median time {ours_s / max(0.01, theirs_s):.2f}x.",
        ]
    )


if __name__ == "__main__":
    main()
