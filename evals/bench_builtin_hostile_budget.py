"""Does the built-in engine's time budget hold on a hostile repository? Functions written to make
millions of candidates (hundreds of collections, thousands of locals), each repaired by this
checkout's engine and by a baseline engine (--baseline-root, a snapshot of another commit's
package), in the same run, one after the other, through a real sandbox at the same budget.

    python evals/bench_builtin_hostile_budget.py --baseline-root DIR --baseline-name REV [--seconds 60]

Each repository is generated here (nothing is downloaded); its one test passes only on the original
behaviour of a function whose every line runs, so no candidate can pass and the engine must give up
within its budget. A small real bug (a flipped comparison) is the control: both engines fix it.
Records go to results/bench_builtin_hostile_budget.<engine>.jsonl, the table to --out."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from bench_builtin_heldout import run_engine  # noqa: E402


def collections(count: int, display: str, locals_: int = 0, extra: str = "") -> dict[str, str]:
    body = [f"    c{i} = {display}" for i in range(count)] + [f"    v{i} = a" for i in range(locals_)]
    code = "def f(a):\n" + "\n".join(body) + "\n    return a + 1\n" + extra
    return {"big.py": code, "test_big.py": "from big import f\n\n\ndef test_f():\n    assert f(1) == 1\n"}


CLAMP = "def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x < hi:\n        return hi\n    return x\n"
CASES = {
    # the function found at stop 42: 300 sets it never reads (7.2 million add-statement candidates)
    "300 unread sets": collections(300, "set()"),
    # the module updates a dict in place, so each of 300 lists is also a missing update's receiver
    "300 lists, an update method": collections(300, "[]", extra="\n\ndef g(d, e):\n    d.update(e)\n"),
    # 12 sets (no cap applies) and 3,000 locals: 72,000 statements a line, only the deadline holds it
    "12 sets, 3,000 locals": collections(12, "set()", locals_=3000),
    "control: a flipped comparison": {
        "clamp.py": CLAMP,
        "test_clamp.py": "from clamp import clamp\n\n\ndef test_high():\n    assert clamp(50, 0, 10) == 10\n\n\n"
        "def test_low():\n    assert clamp(-5, 0, 10) == 0\n",
    },
}


def run(engine: Path, name: str, args: argparse.Namespace, records: Path) -> list[dict]:
    rows = []
    records.write_text("")
    for case, files in CASES.items():
        with tempfile.TemporaryDirectory(prefix="hostile-") as tmp:
            folder = Path(tmp) / "repo"
            folder.mkdir()
            for path, text in files.items():
                (folder / path).write_text(text)
            try:
                result = run_engine(engine, folder, [], args.backend, {"max_seconds": args.seconds})
            except subprocess.TimeoutExpired as stopped:  # the probe's own limit: 3 x budget + 300 s
                result = {
                    "status": "killed",
                    "seconds": float(stopped.timeout),
                    "tried": None,
                    "message": f"killed by the benchmark after {stopped.timeout:.0f} s, still running",
                }
        row = {
            "engine": name,
            "case": case,
            "status": result["status"],
            "seconds": round(result["seconds"], 1),
            "tried": result["tried"],
            "message": result["message"][:300],
        }
        rows.append(row)
        with records.open("a") as stream:  # kept as each case ends: a run cut short keeps them
            stream.write(json.dumps(row) + "\n")
        print(
            f"{name:<12} {case:<32} {row['status']:<10} {row['seconds']:7.1f}s {row['message'][:90]}",
            flush=True,
        )
    return rows


def table(results: dict[str, list[dict]], seconds: float) -> str:
    lines = [
        f"Budget {seconds:.0f} s a case (`Budget(max_seconds={seconds:.0f})`), limit budget + 10% = {seconds * 1.1:.0f} s.",
        "",
        "| case | engine | status | seconds | over the budget | candidates tried | message |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for case in CASES:
        for name, rows in results.items():
            row = next(r for r in rows if r["case"] == case)
            over = row["seconds"] / seconds
            tried = "?" if row["tried"] is None else row["tried"]
            lines.append(
                f"| {case} | {name} | {row['status']} | {'>= ' if row['status'] == 'killed' else ''}{row['seconds']:.1f} | x{over:.2f} | {tried} "
                f"| {row['message'][:140].replace('|', '/')} |"
            )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--baseline-root", type=Path, required=True, help="a snapshot of another commit's package"
    )
    parser.add_argument("--baseline-name", default="baseline", help="its name in the table (a commit)")
    parser.add_argument("--engine-root", type=Path, default=ROOT, help="the engine measured (this checkout)")
    parser.add_argument("--backend", default="bwrap", help="the sandbox (bwrap, docker, none)")
    parser.add_argument("--seconds", type=float, default=60.0, help="the budget of each case")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "bench_builtin_hostile_budget.md")
    args = parser.parse_args()
    results = {}
    for name, root in (("engine now", args.engine_root), (args.baseline_name, args.baseline_root)):
        results[name] = run(
            root.resolve(), name, args, args.out.with_suffix(f".{name.replace(' ', '_')}.jsonl")
        )
    report = table(results, args.seconds)
    print(report)
    args.out.write_text(f"# Built-in engine: the time budget on hostile functions\n\n{report}")


if __name__ == "__main__":
    main()
