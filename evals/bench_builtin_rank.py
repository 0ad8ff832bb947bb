"""Where the fix ranks among the built-in engine's candidates, on the held-aside bugs: a count that
does not depend on the machine's load (a task resolves when the engine reaches its fix's rank
before its budget runs out, at however many candidates per second the machine allows).

Per bug: plant it, run the engine's coverage run through a real sandbox, localize, generate and
order the single-edit candidates exactly as `repair()` does (CandidatePool.singles + valid), and
report the 1-based rank of the first candidate that gives back the original program (same syntax
tree, a planted `pass` ignored), or "-" when none does. Nothing is run against the tests.

    python evals/bench_builtin_rank.py [--engine-root DIR] [--tasks A:B] [--cap N] [--out FILE]

--engine-root: a package snapshot to measure (its `repofix/` first on sys.path), say main's.
--cap: count at most N candidates (a fix past them is "-"; 4,000 is more than a 60 s search tries
and makes a bug of a 2,000-line module take seconds, not minutes)."""

from __future__ import annotations

import argparse
import ast
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_builtin_bugs import Bug, plant  # noqa: E402
from bench_builtin_sets import load_set  # noqa: E402
from probes import run_probe  # noqa: E402

PROBE = r"""
import inspect, json, sys
from pathlib import Path
req = json.loads(sys.stdin.read())
sys.path.insert(0, req["root"])
from repofix.repair.checker import Checker
from repofix.repair import Budget
from repofix.repair.engine import _sources, baseline, _pytest_file
from repofix.repair.localize import rank
from repofix.repair.search import CandidatePool
from repofix.sandboxes import open_sandbox
sys.path.insert(1, req["evals"])  # after the engine's root: this benchmark's own key, one copy of it
from bench_builtin_rank import _key as key, _near as near

budget = Budget()
with open_sandbox(Path(req["dir"]), backend=req["backend"]) as box:
    runs, failing, passing, _ = baseline(Checker(box), req["failing"], None, 300, budget.test_timeout)
    # as repair() ranks them (an engine before `together` has no such argument)
    together = {"together": True} if "together" in inspect.signature(rank).parameters else {}
    suspects = rank(runs, set(failing), **together)
    protected = {_pytest_file(n) for n in failing + passing}
    sources = _sources(box, suspects, protected)
    try:  # an engine older than raised_at does not weigh candidates by where errors were raised
        from repofix.repair.localize import raised_at
        raised = raised_at(runs, set(failing))
        ring = [budget.outer_lines] if hasattr(budget, "outer_lines") else []  # an engine before the ring
        pool = CandidatePool(sources, suspects, budget.max_lines, raised, *ring)
    except ImportError:
        raised = set()
        pool = CandidatePool(sources, suspects, budget.max_lines)
    want = key(req["original"])
    found, count = None, 0
    for m in pool.valid(pool.singles(True)):
        count += 1
        if count > req["cap"]:
            break
        if found is None and m.path == req["path"] and near(m.edits, req["start"]):
            if key(sources[m.path].apply(m.edits)) == want:
                found = (count, m.op, m.description)
    line = next((i + 1 for i, s in enumerate(suspects) if s.path == req["path"] and s.line == req["line"]), None)
kept = [[s.path, s.line, s.score, s.ef, s.ep] for s in suspects if s.path in sources][:200]
print(json.dumps({"rank": found and found[0], "op": found and found[1], "candidates": count,
                  "line_rank": line, "suspects": kept, "raised": sorted(raised)}))
"""


def replay(bug: Bug, row: dict, cache: Path, cap: int) -> dict:
    """The rank again from recorded suspects, with this interpreter's package (no sandbox, no tests):
    for comparing orderings of the same candidates."""
    from repofix.repair import Budget
    from repofix.repair.localize import Suspect
    from repofix.repair.search import CandidatePool
    from repofix.repair.source import SourceFile

    suspects = [Suspect(*s) for s in row["suspects"]]
    with tempfile.TemporaryDirectory(prefix="heldout-rank-") as tmp:
        folder = plant(bug, cache, Path(tmp) / "repo")
        sources = {p: SourceFile(p, (folder / p).read_text()) for p in sorted({s.path for s in suspects})}
        original = _original(bug, folder)
    budget, raised = Budget(), {tuple(r) for r in row.get("raised", [])}
    ring = [budget.outer_lines] if hasattr(budget, "outer_lines") else []  # an engine before the ring
    pool = CandidatePool(sources, suspects, budget.max_lines, raised, *ring)
    want, count, found = _key(original), 0, None
    for m in pool.valid(pool.singles(True)):
        count += 1
        if count > cap:
            break
        near = found is None and m.path == bug.path and _near(m.edits, bug.start)
        if near and _key(sources[m.path].apply(m.edits)) == want:
            found = (count, m.op)
    return {
        "rank": found and found[0],
        "op": found and found[1],
        "candidates": count,
        "line_rank": row["line_rank"],
    }


def _original(bug: Bug, folder: Path) -> str:
    """The planted file as it was before the bug: what a right fix gives back."""
    data = (folder / bug.path).read_bytes()
    return (data[: bug.start] + bug.before.encode() + data[bug.start + len(bug.after.encode()) :]).decode(
        "utf-8"
    )


NEAR = 4000  # bytes: a fix's edits lie this close to the planted bug (a cloned statement beside it)


def _near(edits, start: int) -> bool:
    """Whether a candidate's edits are near enough to the planted bug to be its fix: the syntax
    tree of the whole file is built only for those (a parse of a 2,000-line file per candidate
    made a bug take minutes)."""
    return all(abs(e.start - start) <= NEAR for e in edits)


def _key(text: str) -> str:
    """A syntax tree's dump, a planted `pass` left out: a fix equal to the original in all but layout."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            body = getattr(node, name, None)
            if isinstance(body, list) and len(body) > 1:
                setattr(node, name, [s for s in body if not isinstance(s, ast.Pass)] or body[:1])
    return ast.dump(tree)


def probe(bug: Bug, root: Path, cache: Path, backend: str, cap: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="heldout-rank-") as tmp:
        folder = plant(bug, cache, Path(tmp) / "repo")
        request = {
            "root": str(root),
            "evals": str(HERE),
            "dir": str(folder),
            "failing": bug.failing,
            "backend": backend,
            "path": bug.path,
            "line": bug.line,
            "original": _original(bug, folder),
            "start": bug.start,
            "cap": cap,
        }
        answer, stderr = run_probe(PROBE, request, timeout=900)
    if answer is not None:
        return answer
    return {"rank": None, "op": None, "candidates": 0, "line_rank": None, "error": stderr}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine-root", type=Path, default=HERE.parent)
    parser.add_argument("--bugs", type=Path, default=HERE / "results" / "bench_builtin_heldout.bugs.json")
    parser.add_argument("--backend", default="bwrap")
    parser.add_argument("--cache", type=Path, default=Path("/work/cache/heldout"))
    parser.add_argument("--tasks", default=":")
    parser.add_argument("--out", type=Path, default=None, help="JSON lines, one per bug")
    parser.add_argument("--replay", type=Path, help="recorded rows (--out of a run): rank again, no sandbox")
    parser.add_argument(
        "--cap", type=int, default=10**9, help="count candidates up to this many (a fix past it: '-')"
    )
    args = parser.parse_args()
    bugs = load_set(args.bugs)[1]
    first, last = (int(x) if x else None for x in args.tasks.split(":"))
    recorded = [json.loads(line) for line in args.replay.read_text().splitlines()] if args.replay else []
    if args.replay:
        last = min(len(recorded), last if last is not None else len(bugs))
    rows = []
    for number, bug in enumerate(bugs[first:last]):
        row = {"task": f"{bug.project.split('==')[0]}:{bug.path}:{bug.line}", "kind": bug.kind}
        if args.replay:
            row.update(replay(bug, recorded[(first or 0) + number], args.cache, args.cap))
        else:
            row.update(probe(bug, args.engine_root.resolve(), args.cache, args.backend, args.cap))
        rows.append(row)
        if args.out:  # as it goes: a long run can be replayed in part
            with args.out.open("a" if number else "w") as handle:
                handle.write(json.dumps(row) + "\n")
        print(
            f"{row['task']:<48} {bug.kind:<17} rank {row['rank'] or '-':>6} of {row['candidates']:>6} "
            f"line {row.get('line_rank') or '-':>3} {row['op'] or row.get('error', '')[-80:]}",
            flush=True,
        )
    print(summary(rows))


def summary(rows: list[dict]) -> str:
    ranks = sorted(r["rank"] for r in rows if r["rank"])
    within = ", ".join(f"top {n}: {sum(r <= n for r in ranks)}" for n in (25, 50, 100, 200, 400))
    middle = ranks[len(ranks) // 2] if ranks else "-"
    return f"{len(rows)} bugs, fix generated for {len(ranks)}; {within}; median rank {middle}"


if __name__ == "__main__":
    main()
