"""The repair engine's coverage run: how long it takes with and without the sampled passing tests'
time share (Budget.trace_share), on the same suites in the same run.

    python evals/bench_coverage_run.py [--backend bwrap] [--rounds 3] [--share 6] [PROJECT_DIR ...]

Rows: a generated CPU-bound suite (a date walker and a prime sieve, one failing test), written here,
and any project folders given (say an unpacked sdist of a held-aside set), whose failing test is
named with --failing or, by default, is the first test. Each suite's coverage run is timed with
every sampled test traced (the baseline, as before trace_share) and with a share of `--share`
seconds (6 s: a tenth of the benchmarks' 60 s budget); the best of `--rounds` runs counts (the
machine is noisy). The table also says how many passing tests each traced.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from repofix.repair.checker import Checker  # noqa: E402
from repofix.sandboxes import open_sandbox  # noqa: E402

WALKER = """\
import datetime


def weekdays(start, days):
    day, found = start, []
    for _ in range(days):
        if day.weekday() < 5:
            found.append(day)
        day += datetime.timedelta(days=1)
    return found


def primes(limit):
    sieve = [True] * limit
    out = []
    for n in range(2, limit):
        if sieve[n]:
            out.append(n)
            for k in range(n * n, limit, n):
                sieve[k] = False
    return out
"""

WALKER_TESTS = (
    "import datetime\nfrom walker import primes, weekdays\n\n"
    + "".join(
        f"""
def test_weekdays_{n}():
    assert len(weekdays(datetime.date(2020, 1, 1), {80000 + n})) > 0


def test_primes_{n}():
    assert primes({120000 + n})[:3] == [2, 3, 5]
"""
        for n in range(12)
    )
    + "\n\ndef test_fails():\n    assert primes(100)[-1] == 89\n"
)


def generated(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "walker.py").write_text(WALKER)
    (folder / "test_walker.py").write_text(WALKER_TESTS)
    return folder


def timed(checker: Checker, failing: list[str], share: float | None, rounds: int) -> tuple[float, int]:
    best, traced = float("inf"), 0
    for _ in range(rounds):
        start = time.monotonic()
        runs, _ = checker.coverage([], 600, 120, trace=failing, sample=500, share=share)
        best = min(best, time.monotonic() - start)
        traced = sum(r.traced for r in runs if r.nodeid not in failing)
    return best, traced


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("projects", nargs="*", type=Path, help="project folders to time as well")
    parser.add_argument("--backend", default="bwrap")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--share", type=float, default=6.0)
    parser.add_argument("--failing", action="append", default=[], help="a project's failing test id")
    args = parser.parse_args()
    if args.rounds < 1 or args.share < 0:
        raise SystemExit("--rounds must be at least 1 and --share not negative")
    for project in args.projects:
        if not project.is_dir():
            raise SystemExit(f"no project folder at {project}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-coverage-") as tmp:
        suites = [
            (
                "generated date walker and sieve",
                generated(Path(tmp) / "walker"),
                ["test_walker.py::test_fails"],
            )
        ]
        for project in args.projects:
            copy = Path(tmp) / project.name
            shutil.copytree(project, copy, symlinks=True)
            suites.append((project.name, copy, args.failing))
        for name, folder, failing in suites:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with open_sandbox(folder, backend=args.backend) as box:
                    checker = Checker(box)
                    if not failing:  # the first test stands for the failing one
                        runs, _ = checker.coverage([], 600, 120, sample=0)
                        if not runs:
                            raise SystemExit(f"{name}: its suite ran no test (name one with --failing)")
                        failing = [runs[0].nodeid]
                    whole, whole_traced = timed(checker, failing, None, args.rounds)
                    paced, paced_traced = timed(checker, failing, args.share, args.rounds)
            rows.append((name, whole_traced, whole, paced_traced, paced))
    print(f"Coverage run, backend {args.backend}, best of {args.rounds}; share {args.share:g} s\n")
    print("| suite | passing tests traced, no share | s | traced, with the share | s | ratio |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, whole_traced, whole, paced_traced, paced in rows:
        print(
            f"| {name} | {whole_traced} | {whole:.1f} | {paced_traced} | {paced:.1f} | x{whole / paced:.2f} |"
        )


if __name__ == "__main__":
    main()
