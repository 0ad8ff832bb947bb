"""The built-in repair engine on a held-aside set (bugs planted in real PyPI projects, see
bench_builtin_bugs.py) and on HumanEvalFix, against a baseline engine (--baseline-name: the commit
it was taken from, say main at c801dbd), both measured in the same run on the same tasks.

Each engine runs `repair()` in its own interpreter (its package root first on sys.path) through a
real sandbox, with the same budget (unless --baseline-seconds gives the baseline its own). Grades, per task:
- resolved: the patch applied to a fresh copy makes the project's whole suite pass (HumanEvalFix:
  the row's full `check`);
- plausible but wrong: resolved, yet it behaves unlike the fixed program: a patch that does not
  restore the original syntax tree is run against the original under a call tracer over the
  project's suite (arguments and return values of every call into the changed file, compared as a
  multiset, with PYTHONHASHSEED fixed, each tree traced at the same path); any difference counts
  as wrong; when two runs of the original already differ, the task is "fixed (unverified)".
  HumanEvalFix: bench_builtin's comparison with the canonical solution on extra inputs;
- ambiguous: the engine found plausible patches that behave differently on the tests and claimed
  none; its best-ranked patch is graded all the same, to show what was withheld.
Time is the wall time of `repair()` (coverage run included, sandbox start excluded).

    python evals/bench_builtin_heldout.py --baseline-root DIR [--backend bwrap] [--seconds 60]
        [--set heldout2]

DIR holds the old `repofix/` package (`git archive c801dbd repofix | tar -x -C DIR`; from a commit
whose sandbox runner lives at the checkout root, as at ec185dc, `... repofix sandbox | tar ...`). Sdists are
downloaded into --cache (default /work/cache/<set>), never into this repository. --set picks the
frozen list results/bench_builtin_<set>.bugs.json (default: the first set, `heldout`; `heldout2`,
`heldout3` ... `heldout14` were frozen later, each in other projects with another seed, see bench_builtin_sets.py); records and the table go to results/bench_builtin_<set>.*."""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import TypeVar

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import bench_builtin as hef  # noqa: E402
from bench_builtin_bugs import Bug, choose, plant, record  # noqa: E402
from bench_builtin_grade import grade_bug  # noqa: E402
from bench_builtin_patches import patch_edits  # noqa: E402
from bench_builtin_sets import load_set  # noqa: E402
from probes import run_probe  # noqa: E402

BASELINE = ["c801dbd"]  # the baseline engine's name in the tables (--baseline-name)

RUNNER = r"""
import json, sys, time, warnings
from pathlib import Path
req = json.loads(sys.stdin.read())
sys.path.insert(0, req["root"])
from repofix.repair import Budget, repair
from repofix.sandboxes import open_sandbox
fields = Budget.__dataclass_fields__
budget = Budget(**{k: v for k, v in req["budget"].items() if k in fields})
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    with open_sandbox(Path(req["dir"]), backend=req["backend"]) as box:
        start = time.monotonic()
        result = repair(box, req["failing"], None, budget)
        seconds = time.monotonic() - start
print(json.dumps({"status": result.status, "files": result.files, "seconds": seconds, "message": result.message,
                  "tried": result.candidates_tried}))
"""


def run_engine(root: Path, folder: Path, failing: list[str], backend: str, budget: dict) -> dict:
    request = {
        "root": str(root),
        "dir": str(folder),
        "failing": failing,
        "backend": backend,
        "budget": budget,
    }
    answer, stderr = run_probe(RUNNER, request, timeout=budget["max_seconds"] * 3 + 300)
    if answer is not None:
        return answer
    return {"status": "error", "files": {}, "seconds": float("nan"), "message": stderr, "tried": 0}


# Reused: the grades a patch alone decides. "fails suite" may be a suite that ran past its timeout on
# a busy machine, "unverified" a trace that came out empty: those are graded again.
REUSABLE = ("fixed", "plausible but wrong")
GRADER = hashlib.sha1((HERE / "bench_builtin_grade.py").read_bytes()).hexdigest()[:12]


def graded_before(out: Path) -> dict[tuple[str, str], str]:
    """The grades of patches this set's records already hold (any engine, any run, a process running
    beside this one included) by this grader (its source's hash): a grade depends on the patch alone,
    and grading one runs the project's suite four times under a call tracer (minutes on a large
    suite such as pycountry's)."""
    known = {}
    for path in sorted(out.parent.glob(f"{out.stem}.*.jsonl")):
        for line in path.read_text().splitlines():
            record = json.loads(line) if line.strip() else {}
            grade = record.get("outcome", "").removeprefix("ambiguous, best ")
            if grade in REUSABLE and record.get("grader") == GRADER and record.get("edits"):
                known[(record["bug"], json.dumps(record["edits"], sort_keys=True))] = grade
    return known


def planted(bug: Bug) -> str:
    """Which planted bug a record is of: two bugs may share a line (and the same patch's offsets
    mean another program on each); the tests it ignores are part of its grade."""
    where = [bug.project, bug.path, bug.start, bug.end, bug.after, sorted(bug.known)]
    return hashlib.sha1(json.dumps(where).encode()).hexdigest()[:12]


def heldout(
    bugs: list[Bug], engine: Path, args: argparse.Namespace, budget: dict, cache: Path, records: Path
) -> list[dict]:
    """Each bug through `engine`; each record is appended to `records` as its task ends, so a run cut
    short keeps what it finished (to finish it: rename its records to a slice, `.a`, and run the rest
    with --tasks and --tag .b; the report reads slices only when no whole file is there)."""
    rows = []
    records.write_text("")
    for bug in bugs:
        with tempfile.TemporaryDirectory(prefix="heldout-") as tmp:
            folder = plant(bug, cache, Path(tmp) / "repo")
            result = run_engine(engine, folder, bug.failing, args.backend, budget)
            edits = patch_edits(folder, result["files"])  # the record keeps no project code
        task, bug_id = f"{bug.project.split('==')[0]}:{bug.path}:{bug.line}", planted(bug)
        graded = result["status"] in ("plausible", "ambiguous")
        outcome, known = "not found", None
        if graded:
            known = graded_before(args.out).get((bug_id, json.dumps(edits, sort_keys=True)))
            grade = known or grade_bug(bug, result["files"], cache)
            # an ambiguous patch is not claimed; graded only to show what was withheld
            outcome = grade if result["status"] == "plausible" else f"ambiguous, best {grade}"
        rows.append(
            {
                "task": task,
                "bug": bug_id,
                "kind": bug.kind,
                "outcome": outcome,
                "seconds": result["seconds"],
                "tried": result["tried"],
                "message": result["message"],
                "edits": edits,
                "budget": budget["max_seconds"],
                **({"grader": GRADER} if graded else {}),
                **({"grade": "reused"} if known else {}),
            }
        )
        with records.open("a") as stream:
            stream.write(json.dumps(rows[-1]) + "\n")
        print(
            f"{engine.name[:12]:<12} {task:<48} {bug.kind:<17} {outcome:<20} "
            f"{result['seconds']:6.1f}s {result['message'][:60]}",
            flush=True,
        )
    return rows


def humanevalfix(engine: Path, args: argparse.Namespace, budget: dict) -> list[dict]:
    data = [json.loads(line) for line in hef.DATA.read_text().splitlines() if line.strip()][
        :: args.hef_stride
    ]
    rows = []
    for row in data:
        with tempfile.TemporaryDirectory(prefix="hefix-") as tmp:
            hef.make_task(row, Path(tmp), "check")
            result = run_engine(engine, Path(tmp), ["test_solution.py::test_check"], args.backend, budget)
        outcome = "not found"
        if result["status"] in ("plausible", "ambiguous"):
            source = result["files"]["solution.py"]
            if not hef.passes_hidden(row, source):
                outcome = "plausible, fails suite"
            else:
                outcome = "fixed" if hef.behaves_like_canonical(row, source)[0] else "plausible but wrong"
            if result["status"] == "ambiguous":
                outcome = f"ambiguous, best {outcome}"
        rows.append(
            {
                "task": row["task_id"],
                "kind": row["bug_type"],
                "outcome": outcome,
                "seconds": result["seconds"],
                "tried": result["tried"],
                "message": result["message"],
            }
        )
        print(
            f"{engine.name[:12]:<12} {row['task_id']:<48} {outcome:<20} {result['seconds']:6.1f}s", flush=True
        )
    return rows


def summary(name: str, engine: str, rows: list[dict]) -> str:
    resolved = [r for r in rows if r["outcome"].startswith(("fixed", "plausible but wrong"))]
    wrong = [r for r in rows if r["outcome"] == "plausible but wrong"]
    seconds = [r["seconds"] for r in rows if r["seconds"] == r["seconds"]]  # NaN: the engine crashed
    unverified = sum(r["outcome"] == "fixed (unverified)" for r in rows)
    withheld = [r for r in rows if r["outcome"].startswith("ambiguous")]
    right = sum(r["outcome"].startswith("ambiguous, best fixed") for r in withheld)
    times = f"{statistics.median(seconds):.1f} | {max(seconds):.1f}" if seconds else "- | -"  # all crashed
    return (
        f"| {name} | {engine} | {len(rows)} | {len(resolved)} ({100 * len(resolved) / len(rows):.0f}%) | "
        f"{unverified} | {len(wrong)} ({100 * len(wrong) / max(1, len(resolved)):.0f}% of resolved) | "
        f"{len(withheld)} ({right} right) | {len(rows) - len(seconds)} | {times} |"
    )


def by_kind(rows_new: list[dict], rows_old: list[dict]) -> list[str]:
    """Per planted kind and engine: resolved, plausible but wrong, median and max seconds."""
    kinds = sorted({r["kind"] for r in rows_new})
    base = BASELINE[0]
    out = [
        f"| kind | tasks | resolved, engine now | resolved, {base} | wrong, engine now | wrong, {base} | "
        f"median s, engine now | median s, {base} | max s, engine now | max s, {base} |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for kind in kinds:
        now = [r for r in rows_new if r["kind"] == kind]
        old = [r for r in rows_old if r["kind"] == kind]
        cells = []
        for stat in ("resolved", "wrong", "median", "max"):
            for rows in (now, old):
                seconds = [r["seconds"] for r in rows if r["seconds"] == r["seconds"]]
                if stat == "resolved":
                    cells.append(
                        str(sum(r["outcome"].startswith(("fixed", "plausible but wrong")) for r in rows))
                    )
                elif stat == "wrong":
                    cells.append(str(sum(r["outcome"] == "plausible but wrong" for r in rows)))
                elif seconds:
                    value = statistics.median(seconds) if stat == "median" else max(seconds)
                    cells.append(f"{value:.1f}")
                else:
                    cells.append("-")
        out.append(f"| {kind} | {len(now)} | " + " | ".join(cells) + " |")
    return out


T = TypeVar("T")  # a bug, or its position


def chosen(bugs: list[T], tasks: str) -> list[T]:
    """The bugs --tasks names: a slice `A:B` of the list, or positions `4,9,13` (the tasks a change
    can touch, rerun with both engines; such a run is tagged and reported on its own)."""
    refused = SystemExit(f"--tasks {tasks!r}: give A:B or positions 0 to {len(bugs) - 1} joined by commas")
    if ":" in tasks:
        bounds = tasks.split(":")
        if len(bounds) != 2 or not all(re.fullmatch(r"-?\d*", b.strip()) for b in bounds):
            raise refused
        first, last = (int(b) if b.strip() else None for b in bounds)
        return bugs[first:last]
    positions = [int(x) for x in tasks.split(",") if x.strip().isdigit()]
    if len(positions) != len(tasks.split(",")) or not all(p < len(bugs) for p in positions):
        raise refused
    return [bugs[p] for p in positions]


def load(path: Path) -> list[dict]:
    """The records of one engine; when a run was split into slices (--tasks with --tag .a, .b, ...)
    and the whole file is missing, the slices in order."""
    parts = [path] if path.exists() else sorted(path.parent.glob(path.stem + ".?" + path.suffix))
    return [json.loads(line) for part in parts for line in part.read_text().splitlines() if line.strip()]


def _hef_rows(stride: int) -> str:
    if not stride:
        return "HumanEvalFix: not run."
    return "HumanEvalFix: all 164 rows." if stride == 1 else f"HumanEvalFix: every {stride}th row."


def _budgets(args: argparse.Namespace, results: dict[str, list[dict]]) -> str:
    """Each engine's budget as its records say (older records say none: the command line's)."""
    given = {"engine now": args.seconds, args.baseline_name: args.baseline_seconds or args.seconds}
    seconds = {
        name: {r.get("budget", given[name]) for r in rows} or {given[name]} for name, rows in results.items()
    }
    if len({b for values in seconds.values() for b in values}) == 1:
        return f"{next(iter(seconds['engine now'])):.0f} s"
    return ", ".join(
        f"{'/'.join(f'{b:.0f}' for b in sorted(values))} s ({name})" for name, values in seconds.items()
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-root", type=Path, required=True)
    parser.add_argument("--baseline-name", default="c801dbd", help="the commit the baseline package is from")
    parser.add_argument(
        "--engine-root", type=Path, default=ROOT, help="a snapshot of this repository's package"
    )
    parser.add_argument("--backend", default="bwrap")
    parser.add_argument(
        "--seconds", type=float, default=60.0, help="each task's time budget (the engine's default is 300)"
    )
    parser.add_argument(
        "--baseline-seconds",
        type=float,
        help="the baseline's budget when it differs (say the same package at 60 s beside it at 300 s)",
    )
    parser.add_argument("--candidates", type=int, default=5000)  # the engine's own default
    parser.add_argument("--hef-stride", type=int, default=8, help="HumanEvalFix: every K-th row; 0: skip")
    parser.add_argument("--cache", type=Path, help="sdists and unpacked projects (default /work/cache/<set>)")
    parser.add_argument(
        "--set",
        dest="bug_set",
        default="heldout",
        help="which frozen held-aside list: heldout, heldout2, ... heldout14 (results/bench_builtin_<set>.bugs.json)",
    )
    parser.add_argument(
        "--only",
        help="'engine now' or the baseline's name: run one engine (two processes can share the machine), then --report",
        default=None,
    )
    parser.add_argument("--report", action="store_true", help="only write the table from recorded runs")
    parser.add_argument("--sets", default="heldout,hef", help="which sets to run: heldout, hef or both")
    parser.add_argument(
        "--tasks",
        default=":",
        help="a slice of the held-aside list (A:B), or its positions (4,9,13), for a partial rerun",
    )
    parser.add_argument(
        "--tag",
        default="",
        help="suffix of the records of a partial rerun; with --report, that slice's own table",
    )
    parser.add_argument("--out", type=Path, help="the table (default results/bench_builtin_<set>.md)")
    args = parser.parse_args()
    if args.baseline_name == "engine now":
        parser.error("--baseline-name 'engine now' is the engine's own name: name the baseline by its commit")
    args.out = args.out or HERE / "results" / f"bench_builtin_{args.bug_set}.md"
    if args.tag and not args.tag.startswith("."):
        args.tag = "." + args.tag  # `--tag b` names the same records as `--tag .b`
    args.cache = args.cache or Path("/work/cache") / args.bug_set
    budgets = {
        "engine now": {"max_seconds": args.seconds, "max_candidates": args.candidates},
        args.baseline_name: {
            "max_seconds": args.baseline_seconds or args.seconds,
            "max_candidates": args.candidates,
        },
    }
    frozen = args.out.with_suffix(".bugs.json")
    if not frozen.exists() and "heldout" in args.sets and args.bug_set != "heldout":
        parser.error(f"no frozen list {frozen}: freeze it first (bench_builtin_sets.py freeze)")
    if (
        not frozen.exists() and "heldout" in args.sets
    ):  # chosen once, then frozen: every later run uses the same list
        scratch = Path(tempfile.mkdtemp(prefix="heldout-choose-"))
        frozen.write_text(json.dumps(record(choose(args.cache, scratch)), indent=1) + "\n")
        shutil.rmtree(scratch, ignore_errors=True)
    header, bugs = load_set(frozen) if frozen.exists() else ({}, [])
    BASELINE[0] = args.baseline_name
    engines = {"engine now": args.engine_root.resolve(), args.baseline_name: args.baseline_root.resolve()}
    if not args.report:
        for name, root in engines.items():
            if args.only and name != args.only:
                continue
            if "heldout" in args.sets:
                records = args.out.with_suffix(f".{name.replace(' ', '_')}{args.tag}.jsonl")
                heldout(chosen(bugs, args.tasks), root, args, budgets[name], args.cache, records)
            if args.hef_stride and "hef" in args.sets:
                rows = humanevalfix(root, args, budgets[name])
                args.out.with_suffix(f".hef_{name.replace(' ', '_')}.jsonl").write_text(
                    "".join(json.dumps(r) + "\n" for r in rows)
                )
        if args.only or "heldout" not in args.sets:
            return
    # with --tag, the report of that slice alone (its own engines, say), beside the whole set's table
    results = {
        name: load(args.out.with_suffix(f".{name.replace(' ', '_')}{args.tag}.jsonl")) for name in engines
    }
    # HumanEvalFix's rows only when the command runs it: a partial rerun (`--sets heldout`) would
    # otherwise show the last whole run's rows as its own
    hef_stride = args.hef_stride if "hef" in args.sets else 0
    hef_files = {name: args.out.with_suffix(f".hef_{name.replace(' ', '_')}.jsonl") for name in engines}
    hef_results = {name: load(path) for name, path in hef_files.items() if hef_stride and path.exists()}
    named = "" if args.bug_set == "heldout" else f" `{args.bug_set}`"
    lines = [
        f"# Built-in repair engine: held-aside PyPI bugs and HumanEvalFix "
        f"({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})",
        "",
        f"Backend `{args.backend}`, budget {_budgets(args, results)} / {args.candidates} candidates per task, both "
        f"engines measured in the same run on the same machine. Held-aside set{named}: {len(bugs)} "
        f"bugs planted with seed {header['seed']} in {', '.join(header['projects'])} (how: "
        f"evals/bench_builtin_bugs.py; the frozen list: {frozen.name}). " + _hef_rows(hef_stride),
        "",
        "| set | engine | tasks | resolved | of which unverified | plausible but wrong | "
        "ambiguous, not claimed (best patch right) | crashed | median s | max s |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    if "validation" in header:
        check = header["validation"]
        lines[2] += (
            f" Validated ({check['validated_at']}): gold {check['gold_resolved']}/{check['tasks']}, "
            f"empty {check['empty_resolved']}/{check['tasks']}."
        )
    label = "held-aside" if args.bug_set == "heldout" else f"held-aside ({args.bug_set})"
    lines += [summary(label, name, rows) for name, rows in results.items()]
    lines += [summary("HumanEvalFix", name, rows) for name, rows in hef_results.items()]
    lines += ["", "Held-aside, resolved per planted kind:", ""] + by_kind(
        results["engine now"], results[args.baseline_name]
    )
    text = "\n".join(lines) + "\n"
    print(text)
    args.out.with_suffix(f"{args.tag}.md").write_text(text)


if __name__ == "__main__":
    main()
