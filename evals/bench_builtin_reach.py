"""Where the fixed program is in the built-in engine's candidate stream, for bugs of a held-aside
set that a run left unfound: out of reach (no candidate makes the fixed program's syntax tree), or
in reach at position N, against how many candidates the run tried before its time ran out.

    python evals/bench_builtin_reach.py --set heldout55 [--tasks 3,4] [--misses budget|all]
        [--records engine_now] [--backend bwrap] [--out results/bench_builtin_reach.jsonl]
    python evals/bench_builtin_reach.py --report [--out ...]      # the table of the probes recorded

For each bug: plant it (as bench_builtin_heldout.py does), run the engine's coverage run through a
real sandbox, build the candidate pool as `repair()` does (`Budget()`'s lines and pairs, the single
candidates made without a deadline), then walk the stream of valid candidates, singles then pairs,
and apply each one to the planted file: the first whose tree is the original file's is the fix's
position. No candidate is run against the tests. A fix that is equivalent but not the same tree
(`x >= 1` for `x > 0`) is not matched: the position is of the exact fix. With --misses budget
(the default) only the bugs whose recorded run ended "not found" with the time budget spent are
probed; with all, every "not found" one."""

from __future__ import annotations

import argparse
import ast
import json
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from bench_builtin_bugs import Bug, plant  # noqa: E402
from bench_builtin_heldout import chosen, load  # noqa: E402
from bench_builtin_sets import load_set  # noqa: E402

from repofix.repair.checker import Checker  # noqa: E402
from repofix.repair.engine import baseline, candidates  # noqa: E402
from repofix.repair.limits import Budget  # noqa: E402
from repofix.repair.search import CandidatePool  # noqa: E402
from repofix.sandboxes import open_sandbox  # noqa: E402

RESULTS = HERE / "results"


def probe(bug: Bug, cache: Path, backend: str) -> dict:
    """The fixed program's place among the candidates of `bug`'s planted project."""
    with tempfile.TemporaryDirectory(prefix="reach-") as tmp:
        folder = plant(bug, cache, Path(tmp) / "repo")
        planted = (folder / bug.path).read_bytes()  # the bug's text stands at bug.start
        fixed = planted[: bug.start] + bug.before.encode() + planted[bug.start + len(bug.after.encode()) :]
        original = ast.dump(ast.parse(fixed.decode()))
        budget = Budget()
        with open_sandbox(folder, backend=backend) as box:
            checker = Checker(box, "python")
            started = time.monotonic()
            runs, failing, passing, _ = baseline(
                checker, bug.failing, None, budget.max_seconds, budget.test_timeout, budget.traced
            )
            if not failing:
                return {"where": "nothing fails"}
            suspects, pool = candidates(box, runs, failing, passing, budget)
            coverage = time.monotonic() - started
        sources = pool.sources
        lines = [(s.path, s.line) for s in suspects if s.path in sources]
        rank_of_line = next((i for i, key in enumerate(lines) if key == (bug.path, bug.line)), None)
        if bug.path not in sources:
            return {"where": "file not suspected", "line rank": rank_of_line, "coverage": coverage}
        singles = pool.singles(budget.ordered)
        src = sources[bug.path]
        for position, m in enumerate(pool_stream(pool, singles, budget)):  # finite: pairs are capped
            if m.path == bug.path and ast.dump(ast.parse(src.apply(m.edits))) == original:
                return {
                    "where": "in reach",
                    "position": position,
                    "singles": len(singles),
                    "fix": m.description,
                    "line rank": rank_of_line,
                    "coverage": coverage,
                }
        return {
            "where": "out of reach",
            "singles": len(singles),
            "line rank": rank_of_line,
            "coverage": coverage,
        }


def pool_stream(pool: CandidatePool, singles: list, budget: Budget):
    """The candidates as `repair()` takes them, the dropped ones left out."""
    return (m for m in pool.stream(singles, budget.pair_lines, budget.max_pairs) if m is not None)


def where(row: dict) -> str:
    """A probe's column: out of reach, or in reach before or after where the recorded run stopped."""
    if row["where"] != "in reach":
        return row["where"]
    return "in reach, within tried" if row["position"] < row["tried"] else "in reach, beyond tried"


COLUMNS = [
    "in reach, within tried",
    "in reach, beyond tried",
    "out of reach",
    "file not suspected",
    "nothing fails",
]


def report(rows: list[dict]) -> str:
    """The probes by planted kind: where the fix was in the stream."""
    kinds = sorted({r["kind"] for r in rows})
    lines = [
        f"| kind | misses | {' | '.join(COLUMNS)} |",
        "| --- | --- | " + " | ".join("---" for _ in COLUMNS) + " |",
    ]
    for kind in [*kinds, "all"]:
        mine = [r for r in rows if kind in ("all", r["kind"])]
        counts = [sum(where(r) == c for r in mine) for c in COLUMNS]
        lines.append(f"| {kind} | {len(mine)} | {' | '.join(map(str, counts))} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", dest="bug_set", help="the frozen set, say heldout55")
    parser.add_argument("--tasks", help="positions in the set (4,9,13); default: the misses --misses picks")
    parser.add_argument("--misses", choices=["budget", "all"], default="budget")
    parser.add_argument("--records", default="engine_now", help="whose records pick the misses")
    parser.add_argument("--backend", default="bwrap")
    parser.add_argument("--cache", type=Path, help="sdists and unpacked projects (default /work/cache/<set>)")
    parser.add_argument(
        "--out", type=Path, help="jsonl of the probes (default results/bench_builtin_reach.jsonl)"
    )
    parser.add_argument("--report", action="store_true", help="only print the table of the recorded probes")
    args = parser.parse_args()
    out = args.out or RESULTS / "bench_builtin_reach.jsonl"
    if args.report:
        if not out.is_file():
            parser.error(f"no probes recorded in {out}: run the probe with --set first")
        print(report([json.loads(line) for line in out.read_text().splitlines() if line.strip()]))
        return
    if not args.bug_set:
        parser.error("--set is needed unless --report")
    frozen = RESULTS / f"bench_builtin_{args.bug_set}.bugs.json"
    if not frozen.is_file():
        parser.error(f"no frozen list {frozen}")
    _, bugs = load_set(frozen)
    records = load(RESULTS / f"bench_builtin_{args.bug_set}.{args.records.replace(' ', '_')}.jsonl")
    if len(records) != len(bugs):  # a record lines up with its bug by position
        parser.error(f"{len(records)} records of {args.records!r} for the {len(bugs)} bugs of {args.bug_set}")
    if args.tasks:
        positions = chosen(list(range(len(bugs))), args.tasks)  # A:B or 4,9,13, refused with the range
    else:
        positions = [
            i
            for i, r in enumerate(records)
            if r["outcome"] == "not found" and (args.misses == "all" or "budget" in r["message"])
        ]
    cache = args.cache or Path("/work/cache") / args.bug_set
    for i in positions:
        bug, record = bugs[i], records[i]
        found = probe(bug, cache, args.backend)
        row = {"set": args.bug_set, "index": i, "kind": bug.kind, "tried": record["tried"], **found}
        with out.open("a") as stream:
            stream.write(json.dumps(row) + "\n")
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
