"""The built-in engine's held-aside sets pooled: what each set's engine of the day did to its bugs
(the "engine now" records bench_builtin_heldout.py wrote when the set was measured), summed per
planted kind, per number of failing tests and per set. One set of 40-54 bugs moves the targets'
rates by several points; the pool says which kinds the engine repairs and which it does not.

    python evals/bench_builtin_pooled.py [--first 19] [--last 42] [--out results/bench_builtin_pooled.md]

Nothing runs: the table is read from the recorded sets (results/bench_builtin_heldoutNN.bugs.json
and .engine_now.jsonl). Each set's engine is the one measured on it, so a later set's engine is
newer; the pool is a record of claims as they were made, not of one engine."""

from __future__ import annotations

import argparse
import collections
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_builtin_heldout import load, planted  # noqa: E402
from bench_builtin_sets import load_set  # noqa: E402

RESULTS = HERE / "results"
# a record's outcome -> its column; a held-back (ambiguous) patch is graded but not claimed
COLUMNS = {
    "fixed": "right",
    "fixed (unverified)": "right",
    "plausible but wrong": "wrong",
    # a claimed patch the grader's run of the whole suite failed: a wrong claim as far as the record
    # shows (heldout53's one was a flaky suite's: trieregex's memoizer keys on an object's address)
    "plausible, fails suite": "wrong",
    "ambiguous, best fixed": "held, right",
    "ambiguous, best fixed (unverified)": "held, right",
    "ambiguous, best plausible but wrong": "held, wrong",
    "not found": "not found",
}


@dataclass
class Tally:
    counts: collections.Counter[str] = field(default_factory=collections.Counter)

    def add(self, outcome: str) -> None:
        self.counts[COLUMNS.get(outcome, "crashed")] += 1

    def row(self, name: str) -> str:
        c, bugs = self.counts, sum(self.counts.values())
        claims = c["right"] + c["wrong"]
        return (
            f"| {name} | {bugs} | {c['right']} ({100 * c['right'] / bugs:.0f}%) | {c['wrong']} | "
            f"{100 * c['wrong'] / max(1, claims):.0f}% | {c['held, right'] + c['held, wrong']} "
            f"({c['held, right']} right) | {c['not found']} | {c['crashed']} |"
        )


HEAD = (
    "| {} | bugs | right | wrong claims | wrong, of claims | held back (best right) | not found | crashed |\n"
    "| --- | --- | --- | --- | --- | --- | --- | --- |"
)


def pooled(names: list[str], results: Path = RESULTS) -> dict[str, dict[str, Tally]]:
    """Per view ("kind", "failing tests", "set"), per value, the tally of outcomes; "all" the whole."""
    views: dict[str, dict[str, Tally]] = collections.defaultdict(lambda: collections.defaultdict(Tally))
    for name in names:
        frozen = results / f"bench_builtin_{name}.bugs.json"
        if not frozen.is_file():
            raise SystemExit(f"{name}: no frozen list {frozen}")
        try:
            _, bugs = load_set(frozen)
        except (ValueError, TypeError, KeyError) as err:  # not JSON, or not a frozen list's fields
            raise SystemExit(f"{name}: {frozen} is not a frozen list of bugs ({err})") from None
        by_id = {planted(bug): bug for bug in bugs}
        records = load(results / f"bench_builtin_{name}.engine_now.jsonl")
        if len(records) != len(bugs):
            raise SystemExit(f"{name}: {len(records)} records for {len(bugs)} bugs; measure the set first")
        for record in records:
            bug = by_id.get(record["bug"])
            if bug is None:
                raise SystemExit(f"{name}: record {record['task']} is of no bug of the frozen list")
            failing = len(bug.failing)
            for view, value in (
                ("kind", bug.kind),
                ("failing tests", str(failing) if failing < 4 else "4 or more"),
                ("set", name),
                ("all", "all"),
            ):
                views[view][value].add(record["outcome"])
    return views


def report(names: list[str], results: Path = RESULTS) -> str:
    views = pooled(names, results)
    whole = views["all"]["all"].counts
    bugs, claims = sum(whole.values()), whole["right"] + whole["wrong"]
    lines = [
        f"# Built-in repair engine: held-aside sets {names[0]} to {names[-1]} pooled",
        "",
        f"Read from each set's records (`bench_builtin_<set>.engine_now.jsonl`, the engine of the day "
        f"measured on it at 60 s a task): {bugs} bugs in {len(names)} sets, {whole['right']} right "
        f"({100 * whole['right'] / bugs:.1f}%), {whole['wrong']} of {claims} claims wrong "
        f"({100 * whole['wrong'] / max(1, claims):.1f}%). Targets: 60% right, at most 5% of claims wrong. "
        "*Right* counts the claimed patches that behave as the fixed program on the suite's calls "
        "(`bench_builtin_grade.py`), *wrong* the claimed ones that do not, *held back* the plausible "
        "patches the engine reported as doubtful without claiming them.",
        "",
    ]
    for view in ("kind", "failing tests", "set"):
        lines += [f"## By {view}", "", HEAD.format(view)]
        values = views[view]
        for value in names if view == "set" else sorted(values):  # the sets as given, not by their text
            lines.append(values[value].row(value))
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--first", type=int, default=19, help="the first set pooled, heldoutN")
    parser.add_argument("--last", type=int, required=True, help="the last set pooled, heldoutN")
    parser.add_argument("--out", type=Path, default=RESULTS / "bench_builtin_pooled.md")
    args = parser.parse_args()
    if args.last < args.first:
        parser.error(f"--last {args.last} is before --first {args.first}")
    text = report([f"heldout{n}" for n in range(args.first, args.last + 1)])
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
