"""The frozen lists of held-aside bugs (bench_builtin_bugs.py plants them, bench_builtin_heldout.py
runs the engines on them): freezing a new set once, loading either set, and validating a set as
SWE-bench grades its tasks (gold: the original program passes every test; empty: each planted bug
fails each test listed as failing).

    python evals/bench_builtin_sets.py freeze --set heldout2 --seed N --projects A==1 B==2 ...
    python evals/bench_builtin_sets.py validate --set heldout2
    python evals/bench_builtin_sets.py whole-ids --set heldout4

`whole-ids` re-records the test ids of a set frozen when ids were read from pytest's summary line,
which cuts an id at its first space (`test_compose[Short`) and misses a test that failed only in a
subtest: the bugs stay as chosen, each bug's suite runs again, and every recorded id must be found.

The first set (`heldout`) is a bare JSON list chosen with bench_builtin_bugs.SEED in .PROJECTS; a
later set's file is an object whose header records how it was chosen (seed, projects, rules, the
command, when, with which interpreter) and its validation, then its bugs. Sdists are kept in
--cache (default /work/cache/<set>), never in this repository."""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

import pytest
from bench_builtin_bugs import (
    MAX_FAILING,
    PER_KIND,
    PER_PROJECT,
    PROJECTS,
    SEED,
    Bug,
    choose,
    failing_tests,
    fetch,
    plant,
    project_tree,
)

RESULTS = Path(__file__).resolve().parent / "results"
RULES = {
    "kinds": [
        "missing-statement",
        "missing-clause",
        "off-by-one",
        "missing-wrapper",
        "missing-slice",
        "comparison",
        "literal",
    ],
    "per_project": PER_PROJECT,
    "per_kind_per_project": PER_KIND,
    "max_failing": MAX_FAILING,
    "suite_timeout_seconds": 60,
    "kept_when": "the project's suite, run once with the bug, has 1..max_failing newly failing tests, "
    "exit code 1 (no collection error) and ends within the timeout; sites are tried in the order of "
    "random.Random(seed).shuffle over every site in the projects' non-test sources; a site found twice "
    "(a nested function) is kept once; the suites write no .pyc (PYTHONDONTWRITEBYTECODE=1)",
}


def frozen_path(name: str, results: Path = RESULTS) -> Path:
    return results / f"bench_builtin_{name}.bugs.json"


def load_set(path: Path) -> tuple[dict, list[Bug]]:
    """(header, bugs) of a frozen list; the first set's bare list gets the header it was chosen with."""
    data = json.loads(path.read_text())
    if isinstance(data, list):
        return {"set": "heldout", "seed": SEED, "projects": PROJECTS}, [Bug(**b) for b in data]
    header = {k: v for k, v in data.items() if k != "bugs"}
    return header, [Bug(**b) for b in data["bugs"]]


def freeze(
    name: str, seed: int, projects: list[str], cache: Path, results: Path = RESULTS, note: str = ""
) -> Path:
    path = frozen_path(name, results)
    if path.exists():
        raise SystemExit(f"{path} exists: a set is frozen once (delete it only if it was never run)")
    scratch = Path(tempfile.mkdtemp(prefix=f"{name}-choose-"))
    try:
        bugs = choose(cache, scratch, seed=seed, projects=projects)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    header = {
        "set": name,
        "seed": seed,
        "projects": projects,
        "rules": RULES,
        "command": f"python evals/bench_builtin_sets.py freeze --set {name} --seed {seed} --projects "
        + " ".join(projects),
        "chosen_at": (chosen_at := time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())),
        "python": platform.python_version(),
        "pytest": pytest.__version__,
        # --note says what the freezer knows then (say, which engine tuning it came before)
        "note": f"frozen at {chosen_at}: {note}"
        if note
        else "frozen before any engine ran on it; nobody tuned against it",
    }
    path.write_text(json.dumps({**header, "bugs": [asdict(b) for b in bugs]}, indent=1) + "\n")
    return path


def validate(path: Path, cache: Path, log=print) -> dict:
    """Gold: the unplanted project's suite fails nothing beyond `known`. Empty: with each bug
    planted, the suite fails exactly the listed tests (beyond `known`)."""
    header, bugs = load_set(path)
    gold, empty, problems = 0, 0, []
    with tempfile.TemporaryDirectory(prefix="heldout-validate-") as tmp:
        base = Path(tmp)
        for spec in dict.fromkeys(b.project for b in bugs):
            known = {t for b in bugs if b.project == spec for t in b.known}
            result = failing_tests(project_tree(fetch(spec, cache), base / spec), timeout=120)
            ok = result is not None and set(result[0]) <= known
            gold += ok * sum(b.project == spec for b in bugs)
            if not ok:
                problems.append(f"gold {spec}: {result}")
            log(f"gold {spec}: {'pass' if ok else 'FAIL'}")
        for i, bug in enumerate(bugs):
            result = failing_tests(plant(bug, cache, base / f"bug{i}"), timeout=120)
            new = sorted(set(result[0]) - set(bug.known)) if result else None
            ok = new == sorted(bug.failing)
            empty += ok
            if not ok:
                problems.append(f"empty {bug.project} {bug.path}:{bug.line}: {new} != {bug.failing}")
            log(
                f"empty {bug.project} {bug.path}:{bug.line} {bug.kind}: {'fails as listed' if ok else 'DIFFERS'}"
            )
    return {
        "validated_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "tasks": len(bugs),
        "gold_resolved": gold,
        "empty_resolved": len(bugs) - empty,
        "problems": problems,
    }


def cut(nodeid: str) -> str:
    """A node id as pytest's "FAILED <id> - message" line showed it when sets were frozen."""
    return nodeid.split()[0] if nodeid.split() else nodeid


def whole_ids(path: Path, cache: Path, log=print) -> int:
    """Re-record every bug's failing ids as the plugin reads them; returns how many bugs changed.
    Each recorded id must be found again (whole, or as the start of a whole one); an id found
    beyond them failed only in a subtest, whose SUBFAILED line the summary's FAILED did not match."""
    data = json.loads(path.read_text())
    records = data if isinstance(data, list) else data["bugs"]
    changed, added = 0, 0
    with tempfile.TemporaryDirectory(prefix="heldout-ids-") as tmp:
        for i, (record, bug) in enumerate(zip(records, load_set(path)[1], strict=True)):
            result = failing_tests(plant(bug, cache, Path(tmp) / f"bug{i}"), timeout=120)
            if result is None:
                raise SystemExit(f"bug {i} ({bug.path}:{bug.line}): the suite hung")
            new = sorted(set(result[0]) - set(bug.known))
            lost = set(record["failing"]) - {cut(n) for n in new} - set(new)
            if lost:
                raise SystemExit(
                    f"bug {i} ({bug.path}:{bug.line}): recorded ids no longer fail: {sorted(lost)}"
                )
            if new != record["failing"]:
                extra = [n for n in new if cut(n) not in record["failing"] and n not in record["failing"]]
                log(
                    f"bug {i} {bug.path}:{bug.line}: {len(record['failing'])} ids -> {len(new)}; beyond them: {extra}"
                )
                record["failing"], changed, added = new, changed + 1, added + bool(extra)
    if changed and isinstance(data, dict):
        data["ids"] = (
            f"{changed} bugs' failing test ids re-recorded at {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
            " (whole-ids): they had been read from pytest's summary line, which cuts an id at its first space "
            f"and does not show a test that failed only in a subtest ({added} bugs gained such a test); "
            "the bugs are as chosen"
        )
    path.write_text(json.dumps(data, indent=1) + "\n")
    return changed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["freeze", "validate", "whole-ids"])
    parser.add_argument("--set", dest="name", required=True, help="the set's name, say heldout2")
    parser.add_argument("--seed", type=int, help="freeze: the shuffle's seed")
    parser.add_argument("--projects", nargs="+", help="freeze: pinned sdists, name==version")
    parser.add_argument("--cache", type=Path, help="sdists and unpacked projects (default /work/cache/<set>)")
    parser.add_argument("--note", default="", help="freeze: the header's note (after 'frozen at <time>: ')")
    args = parser.parse_args()
    cache = args.cache or Path("/work/cache") / args.name
    if args.action == "freeze":
        if args.seed is None or not args.projects or not all("==" in p for p in args.projects):
            parser.error("freeze needs --seed and --projects name==version ...")
        print(freeze(args.name, args.seed, args.projects, cache, note=args.note))
        return
    path = frozen_path(args.name)
    if not path.exists():
        parser.error(f"no frozen list {path}: freeze the set first")
    if args.action == "whole-ids":
        print(f"{whole_ids(path, cache)} bugs' ids re-recorded; validating again")
    report = validate(path, cache)
    print(json.dumps(report, indent=1))
    data = json.loads(path.read_text())
    if isinstance(data, dict):  # the first set's bare list has no header to record it in
        data = {**{k: v for k, v in data.items() if k != "bugs"}, "validation": report, "bugs": data["bugs"]}
        path.write_text(json.dumps(data, indent=1) + "\n")
    sys.exit(0 if not report["problems"] else 1)


if __name__ == "__main__":
    main()
