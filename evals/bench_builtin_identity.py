"""Does the repair worker judge a program as the baseline run does? On each project of the frozen
held-aside sets, UNPLANTED: the coverage run lists the tests that pass; then the check job tries one
candidate that changes nothing (an empty edit), with a bug's failing tests as its failing stage
(they pass here) and every other passing test as its passing stage, hot and the usual way. Each must
pass: a rejection is the worker running tests otherwise than the baseline did (installer's compiled
files, isodate's test ids; see docs/readme/repair.md), and such a project can get no fix at all.

    python evals/bench_builtin_identity.py [--engine-root DIR] [--sets heldout,heldout14] [--only NAME]

Per project a JSON line (--out, appended as it goes: a rerun skips what is there) and a table of the
rejections at the end. Nothing is timed: a machine's load only shows as a flaky test of the project's
own (mistune's timing tests)."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_builtin_bugs import fetch, project_tree  # noqa: E402
from bench_builtin_sets import load_set  # noqa: E402
from probes import run_probe  # noqa: E402

PROBE = r"""
import json, sys
from pathlib import Path
req = json.loads(sys.stdin.read())
sys.path.insert(0, req["root"])
from repofix.repair import Budget
from repofix.repair.checker import Checker
from repofix.repair.engine import baseline
from repofix.repair.source import Edit, Mutation
from repofix.sandboxes import open_sandbox

with open_sandbox(Path(req["dir"]), backend=req["backend"]) as box:
    checker = Checker(box)
    _, _, passed, seconds = baseline(checker, [], None, 300, Budget().test_timeout)
    failing = [t for t in req["failing"] if t in passed]
    passing = [t for t in passed if t not in failing]
    nothing = Mutation(req["path"], 1, "identity", "no change", (Edit(0, 0, ""),), 1.0, (1,))
    row = {"passed": len(passed), "failing": len(failing), "baseline_seconds": round(seconds, 1)}
    for hot in (True, False):
        verdicts = checker.check([nothing], failing, passing, timeout=30,
                                 full_timeout=max(60.0, 4 * seconds), seconds=300, hot=hot)
        row["hot" if hot else "usual"] = [[v.ok, v.stage, v.reason] for v in verdicts]
print(json.dumps(row))
"""


def probe(spec: str, path: str, failing: list[str], cache: Path, root: Path, backend: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="identity-") as tmp:
        folder = project_tree(fetch(spec, cache), Path(tmp) / "repo")
        request = {
            "root": str(root),
            "dir": str(folder),
            "backend": backend,
            "path": path,
            "failing": failing,
        }
        answer, stderr = run_probe(PROBE, request, timeout=1800)
    return answer if answer is not None else {"error": stderr.strip()}


def consistent(row: dict) -> bool:
    return "error" not in row and all(v[0] for key in ("hot", "usual") for v in row[key])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine-root", type=Path, default=HERE.parent, help="a snapshot of the package")
    parser.add_argument("--sets", default="", help="comma-separated set names (default: every frozen set)")
    parser.add_argument("--only", default="", help="projects whose name starts so")
    parser.add_argument("--backend", default="bwrap")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "bench_builtin_identity.jsonl")
    args = parser.parse_args()
    wanted = {s for s in args.sets.split(",") if s}
    done = (
        {json.loads(line)["project"] for line in args.out.read_text().splitlines()}
        if args.out.exists()
        else set()
    )
    for frozen in sorted((HERE / "results").glob("bench_builtin_heldout*.bugs.json")):
        name = frozen.name.split(".")[0].removeprefix("bench_builtin_")
        if wanted and name not in wanted:
            continue
        for bug in load_set(frozen)[1]:
            if bug.project in done or not bug.project.startswith(args.only):
                continue
            done.add(bug.project)  # a project's first bug gives its failing stage
            row = {"set": name, "project": bug.project}
            row.update(
                probe(
                    bug.project,
                    bug.path,
                    bug.failing,
                    Path(f"/work/cache/{name}"),
                    args.engine_root,
                    args.backend,
                )
            )
            with args.out.open("a") as handle:
                handle.write(json.dumps(row) + "\n")
            print(f"{name:<10} {bug.project:<28} {'ok' if consistent(row) else 'REJECTED'} {row}", flush=True)
    rows = [json.loads(line) for line in args.out.read_text().splitlines()]
    bad = [r for r in rows if not consistent(r)]
    print(f"\n{len(rows)} projects, {len(rows) - len(bad)} judged as the baseline judges them; rejected:")
    for r in bad:
        print(
            f"  {r['set']:<10} {r['project']:<28} hot {r.get('hot')} usual {r.get('usual')} {r.get('error', '')}"
        )


if __name__ == "__main__":
    main()
